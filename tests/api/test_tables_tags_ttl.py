"""TagResource, UntagResource, ListTagsOfResource and the TTL settings."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name


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
        "ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn")


def test_create_table_with_too_many_tags_creates_nothing(ddb):
    """Recorded: more than 50 tags is a ValidationException, for CreateTable too, and the
    table is not created."""
    name = unique_name()
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST",
                         Tags=[{"Key": f"k{i}", "Value": ""} for i in range(51)])
    assert error_of(excinfo) == (
        "ValidationException", "Number of Tags exceed the current limit for the provided ResourceArn")
    assert name not in ddb.list_tables()["TableNames"]


def test_tag_and_untag_reply_with_an_empty_body(server, ddb, arn):
    """The operations have no output: DynamoDB's reply body is empty."""
    tagged = server.post("TagResource", {"ResourceArn": arn, "Tags": [{"Key": "a", "Value": "b"}]})
    assert (tagged.status, tagged.raw, tagged.headers["x-amz-crc32"]) == (200, b"", "0")
    untagged = server.post("UntagResource", {"ResourceArn": arn, "TagKeys": ["a"]})
    assert (untagged.status, untagged.raw) == (200, b"")
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []


def test_empty_tag_lists_are_refused(server, arn):
    """Recorded: an empty Tags or TagKeys list is refused, before the table is looked for."""
    missing = arn.rpartition("/")[0] + "/no-such-table"
    for resource in (arn, missing):
        for operation, body, message in (
                ("TagResource", {"Tags": []}, "Atleast one Tag needs to be provided as Input."),
                ("UntagResource", {"TagKeys": []},
                 "Atleast one Tag Key needs to be provided as Input.")):
            reply = server.post(operation, {"ResourceArn": resource, **body})
            assert (reply.status, reply.json) == (400, {
                "__type": "com.amazon.coral.validate#ValidationException", "message": message})


def test_duplicate_tag_keys_are_refused(ddb, arn):
    """Recorded: one key twice in a request is refused, and nothing of it is applied."""
    assert failure(ddb.tag_resource, ResourceArn=arn, Tags=[
        {"Key": "new", "Value": "1"}, {"Key": "dup", "Value": "1"}, {"Key": "dup", "Value": "2"}]) == (
        "ValidationException", "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup")
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []


@pytest.mark.parametrize("key", ["a b\t", "ü+-=._:/9", "\u00e9t\u00e9"])
def test_tag_characters_allowed(ddb, arn, key):
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": key, "Value": key}])
    assert {"Key": key, "Value": key} in ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]


@pytest.mark.parametrize("bad", ["a@b", "a*", "x#y", "(1)"])
def test_tag_characters_refused(ddb, arn, bad):
    """Recorded texts: a key or value outside letters, digits, whitespace and + - = . _ : /."""
    assert failure(ddb.tag_resource, ResourceArn=arn, Tags=[{"Key": bad, "Value": "v"}]) == (
        "ValidationException", f"The Tag Key provided is invalid, Key: {bad}")
    assert failure(ddb.tag_resource, ResourceArn=arn, Tags=[{"Key": "k", "Value": bad}]) == (
        "ValidationException", f"The Tag Value provided is invalid, Value: {bad}")


def test_reserved_tag_key(ddb, arn):
    """Recorded, for TagResource and CreateTable alike."""
    assert failure(ddb.tag_resource, ResourceArn=arn, Tags=[{"Key": "aws:x", "Value": ""}]) == (
        "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:x")


def test_tags_of_missing_table(ddb):
    missing = "arn:aws:dynamodb:us-east-1:000000000000:table/no-such-table"
    expected = ("ResourceNotFoundException",
                f"Requested resource not found: ResourcArn: {missing} not found")
    assert failure(ddb.list_tags_of_resource, ResourceArn=missing) == (
        "AccessDeniedException", "User: arn:aws:iam::000000000000:root is not authorized to "
        f"perform: dynamodb:ListTagsOfResource on resource: {missing}")
    assert failure(ddb.tag_resource, ResourceArn=missing,
                   Tags=[{"Key": "a", "Value": "b"}]) == expected
    assert failure(ddb.untag_resource, ResourceArn=missing, TagKeys=["a"]) == expected


def test_tags_of_other_region(server, arn):
    other = server.client(region="eu-west-1")
    assert failure(other.list_tags_of_resource, ResourceArn=arn) == (
        "ResourceNotFoundException", f"Requested resource not found: ResourcArn: {arn} not found")


def test_malformed_arn(ddb):
    """Recorded: a ResourceArn that is not an ARN."""
    expected = ("ValidationException",
                "One or more parameter values were invalid: ARNs must start with 'arn:': not-an-arn")
    assert failure(ddb.list_tags_of_resource, ResourceArn="not-an-arn") == expected
    assert failure(ddb.tag_resource, ResourceArn="not-an-arn",
                   Tags=[{"Key": "a", "Value": "b"}]) == expected
    assert failure(ddb.untag_resource, ResourceArn="not-an-arn", TagKeys=["a"]) == expected


def test_ttl_of_missing_table(ddb):
    expected = ("ResourceNotFoundException",
                "Requested resource not found: Table: no-such-table not found")
    assert failure(ddb.describe_time_to_live, TableName="no-such-table") == expected
    assert failure(ddb.update_time_to_live, TableName="no-such-table", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "x"}) == expected
