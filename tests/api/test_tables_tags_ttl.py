"""TagResource, UntagResource, ListTagsOfResource and the TTL settings."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of


@pytest.fixture
def arn(ddb, table) -> str:
    return ddb.describe_table(TableName=table)["Table"]["TableArn"]


def failure(call, **request) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**request)
    return error_of(excinfo)


def test_tag_replace_and_untag(ddb, arn):
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}])
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "3"}])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [
        {"Key": "a", "Value": "3"}, {"Key": "b", "Value": "2"}]
    ddb.untag_resource(ResourceArn=arn, TagKeys=["a", "never-set"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "b", "Value": "2"}]


def test_tag_limit(ddb, arn):
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": f"k{i}", "Value": ""} for i in range(50)])
    assert failure(ddb.tag_resource, ResourceArn=arn, Tags=[{"Key": "one-more", "Value": ""}]) == (
        "LimitExceededException", "The number of tags on the resource exceeds the limit of 50")


def test_reserved_tag_key(ddb, arn):
    assert failure(ddb.tag_resource, ResourceArn=arn, Tags=[{"Key": "aws:x", "Value": ""}]) == (
        "ValidationException", "One or more parameter values were invalid: Tag keys starting "
        "with 'aws:' are reserved for system use")


def test_tags_of_missing_table(ddb):
    missing = "arn:aws:dynamodb:us-east-1:000000000000:table/no-such-table"
    expected = ("ResourceNotFoundException",
                f"Requested resource not found: ResourcArn: {missing} not found")
    assert failure(ddb.list_tags_of_resource, ResourceArn=missing) == expected
    assert failure(ddb.tag_resource, ResourceArn=missing,
                   Tags=[{"Key": "a", "Value": "b"}]) == expected
    assert failure(ddb.untag_resource, ResourceArn=missing, TagKeys=["a"]) == expected


def test_tags_of_other_region(server, arn):
    other = server.client(region="eu-west-1")
    assert failure(other.list_tags_of_resource, ResourceArn=arn) == (
        "ResourceNotFoundException", f"Requested resource not found: ResourcArn: {arn} not found")


def test_malformed_arn(ddb):
    assert failure(ddb.list_tags_of_resource, ResourceArn="not-an-arn") == (
        "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input not-an-arn")


def test_ttl_of_missing_table(ddb):
    expected = ("ResourceNotFoundException",
                "Requested resource not found: Table: no-such-table not found")
    assert failure(ddb.describe_time_to_live, TableName="no-such-table") == expected
    assert failure(ddb.update_time_to_live, TableName="no-such-table", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "x"}) == expected
