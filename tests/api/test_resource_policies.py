"""PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy on tables and streams
(their evaluation with identity policies is in test_access.py)."""
from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from conftest import unique_name


def _policy(action: str = "dynamodb:GetItem", resource: str = "*") -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:user/carol"},
        "Action": action, "Resource": resource}]})


def _error(call, **kwargs) -> tuple[str, str]:
    with pytest.raises(ClientError) as caught:
        call(**kwargs)
    return caught.value.response["Error"]["Code"], caught.value.response["Error"]["Message"]


def test_put_get_delete_with_revisions(ddb, make_table):
    arn = ddb.describe_table(TableName=make_table())["Table"]["TableArn"]
    assert _error(ddb.get_resource_policy, ResourceArn=arn) == (
        "PolicyNotFoundException",
        f"Resource-based policy not found for the provided ResourceArn: {arn}")
    first = ddb.put_resource_policy(ResourceArn=arn, Policy=_policy(),
                                    ExpectedRevisionId="NO_POLICY")["RevisionId"]
    assert ddb.get_resource_policy(ResourceArn=arn) | {"ResponseMetadata": None} == {
        "Policy": _policy(), "RevisionId": first, "ResponseMetadata": None}
    # the same document again: nothing changes, the same revision
    assert ddb.put_resource_policy(ResourceArn=arn, Policy=_policy())["RevisionId"] == first
    assert _error(ddb.put_resource_policy, ResourceArn=arn, Policy=_policy("dynamodb:*"),
                  ExpectedRevisionId="NO_POLICY")[0] == "PolicyNotFoundException"
    assert _error(ddb.put_resource_policy, ResourceArn=arn, Policy=_policy("dynamodb:*"),
                  ExpectedRevisionId="12")[0] == "PolicyNotFoundException"
    second = ddb.put_resource_policy(ResourceArn=arn, Policy=_policy("dynamodb:*"),
                                     ExpectedRevisionId=first)["RevisionId"]
    assert second != first
    assert ddb.get_resource_policy(ResourceArn=arn)["Policy"] == _policy("dynamodb:*")
    # the table's description does not show it
    assert "ResourcePolicies" not in ddb.describe_table(TableName=arn)["Table"]
    assert _error(ddb.delete_resource_policy, ResourceArn=arn,
                  ExpectedRevisionId=first)[0] == "PolicyNotFoundException"
    assert ddb.delete_resource_policy(ResourceArn=arn)["RevisionId"] == second
    assert _error(ddb.delete_resource_policy, ResourceArn=arn)[0] == "PolicyNotFoundException"
    assert _error(ddb.get_resource_policy, ResourceArn=arn)[0] == "PolicyNotFoundException"


def test_refusals(ddb, make_table):
    arn = ddb.describe_table(TableName=make_table())["Table"]["TableArn"]
    code, _ = _error(ddb.put_resource_policy, ResourceArn=arn, Policy="{not json")
    assert code == "ValidationException"
    code, _ = _error(ddb.put_resource_policy, ResourceArn=arn, Policy=json.dumps(
        {"Statement": [{"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": "*"}]}))
    assert code == "ValidationException"  # a resource policy names its principals
    assert _error(ddb.put_resource_policy, ResourceArn=arn,
                  Policy=_policy() + " " * 20 * 1024)[0] == "ValidationException"
    missing = arn.rpartition("/")[0] + "/" + unique_name()
    assert _error(ddb.get_resource_policy, ResourceArn=missing)[0] == "ResourceNotFoundException"


def test_stream_policy(ddb, make_table):
    name = make_table(StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    table = ddb.describe_table(TableName=name)["Table"]
    stream = table["LatestStreamArn"]
    revision = ddb.put_resource_policy(ResourceArn=stream, Policy=_policy(
        "dynamodb:GetRecords", stream))["RevisionId"]
    assert ddb.get_resource_policy(ResourceArn=stream)["RevisionId"] == revision
    # the table's own policy is another
    assert _error(ddb.get_resource_policy,
                  ResourceArn=table["TableArn"])[0] == "PolicyNotFoundException"
