"""CreateTable's rules beyond the request shape, with DynamoDB's exact messages."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name

HASH = [{"AttributeName": "pk", "KeyType": "HASH"}]
HASH_RANGE = HASH + [{"AttributeName": "sk", "KeyType": "RANGE"}]
PK = [{"AttributeName": "pk", "AttributeType": "S"}]
PK_SK = PK + [{"AttributeName": "sk", "AttributeType": "N"}]
ON_DEMAND = {"BillingMode": "PAY_PER_REQUEST"}
THROUGHPUT = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
INVALID = "One or more parameter values were invalid: "


def create_error(ddb, **request) -> tuple[str, str]:
    request.setdefault("TableName", unique_name())
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(**request)
    return error_of(excinfo)


def gsi(name: str, *keys: str, **extra) -> dict:
    types = ("HASH", "RANGE")
    return {"IndexName": name,
            "KeySchema": [{"AttributeName": k, "KeyType": t} for k, t in zip(keys, types)],
            "Projection": {"ProjectionType": "ALL"}, **extra}


@pytest.mark.parametrize("schema, message", [
    ([{"AttributeName": "pk", "KeyType": "RANGE"}],
     "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"),
    ([{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "HASH"}],
     "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"),
    ([{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}],
     "Both the Hash Key and the Range Key element in the KeySchema have the same name"),
])
def test_key_schema_order(ddb, schema, message):
    assert create_error(ddb, KeySchema=schema, AttributeDefinitions=PK_SK, **ON_DEMAND) == (
        "ValidationException", message)


def test_key_attribute_without_definition(ddb):
    assert create_error(ddb, KeySchema=HASH_RANGE, AttributeDefinitions=PK, **ON_DEMAND) == (
        "ValidationException", "Invalid KeySchema: Some index key attribute have no definition")


def test_one_attribute_as_hash_and_range_with_one_definition(ddb):  # verified
    schema = HASH + [{"AttributeName": "pk", "KeyType": "RANGE"}]
    assert create_error(ddb, KeySchema=schema, AttributeDefinitions=PK, **ON_DEMAND) == (
        "ValidationException", "Invalid KeySchema: Some index key attribute have no definition")


def test_unused_attribute_definition(ddb):
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK_SK, **ON_DEMAND) == (
        "ValidationException", INVALID + "Number of attributes in KeySchema does not exactly "
        "match number of attributes defined in AttributeDefinitions")


def test_attribute_defined_twice(ddb):  # verified
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK + PK, **ON_DEMAND) == (
        "ValidationException", "Attribute Name is duplicated: pk")


def test_missing_table_name(server):  # verified
    reply = server.post("CreateTable", {"KeySchema": HASH, "AttributeDefinitions": PK,
                                        **ON_DEMAND})
    assert (reply.status, reply.json) == (400, {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "The parameter 'TableName' is required but was not present in the request"})


def test_invalid_table_name_is_reported_at_table_name(ddb):
    # the member path 'tableName' is verified; the rest is the shape checker's wording
    assert create_error(ddb, TableName="x!", KeySchema=HASH, AttributeDefinitions=PK,
                        **ON_DEMAND) == (
        "ValidationException",
        "2 validation errors detected: Value 'x!' at 'tableName' failed to satisfy constraint: "
        "Member must have length greater than or equal to 3; Value 'x!' at 'tableName' failed "
        "to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")


NAME_LENGTH = "Member must have length greater than or equal to 3"
NAME_PATTERN = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"


@pytest.mark.parametrize("name, violations", [
    ("x!", [NAME_LENGTH, NAME_PATTERN]),
    ("ab", [NAME_LENGTH]),
    ("a b", [NAME_PATTERN]),
    ("a!" * 128, ["Member must have length less than or equal to 255", NAME_PATTERN]),
])
def test_invalid_table_name_is_reported_alone(ddb, name, violations):
    # recorded (issue 39): whatever else is wrong, a bad name's violations alone, length first
    code, message = create_error(
        ddb, TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "BAD"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "X"}],
        BillingMode="BAD", StreamSpecification={"StreamEnabled": True, "StreamViewType": "X"})
    count = len(violations)
    assert (code, message) == ("ValidationException", f"{count} validation error"
                               f"{'s' if count > 1 else ''} detected: " + "; ".join(
                                   f"Value '{name}' at 'tableName' failed to satisfy "
                                   f"constraint: {violation}" for violation in violations))


def test_unused_definition_with_indexes(ddb):
    definitions = PK + [{"AttributeName": "g", "AttributeType": "S"},
                        {"AttributeName": "x", "AttributeType": "S"}]
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=definitions,
                        GlobalSecondaryIndexes=[gsi("byg", "g")], **ON_DEMAND) == (
        "ValidationException", INVALID + "Some AttributeDefinitions are not used. "
        "AttributeDefinitions: [pk, g, x], keys used: [pk, g]")


def test_index_key_without_definition(ddb):
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK,
                        GlobalSecondaryIndexes=[gsi("byg", "g", "h")], **ON_DEMAND) == (
        "ValidationException", INVALID + "Some index key attributes are not defined in "
        "AttributeDefinitions. Keys: [pk, g, h], AttributeDefinitions: [pk]")


def test_missing_key_schema_and_definitions(server):
    reply = server.post("CreateTable", {"TableName": unique_name(), **ON_DEMAND})
    assert reply.status == 400
    assert reply.json == {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "2 validation errors detected: Value null at 'keySchema' failed to satisfy "
                   "constraint: Member must not be null; Value null at 'attributeDefinitions' "
                   "failed to satisfy constraint: Member must not be null"}


@pytest.mark.parametrize("billing, message", [
    ({"BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": THROUGHPUT},
     INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
     "BillingMode is PAY_PER_REQUEST"),
    ({"BillingMode": "PROVISIONED"},
     INVALID + "ReadCapacityUnits and WriteCapacityUnits must both be specified when "
     "BillingMode is PROVISIONED"),
    ({}, "No provisioned throughput specified for the table"),
])
def test_billing_mode_against_throughput(ddb, billing, message):
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK, **billing) == (
        "ValidationException", message)


def test_throughput_above_table_quota(ddb):
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK, ProvisionedThroughput={
        "ReadCapacityUnits": 40001, "WriteCapacityUnits": 1}) == (
        "LimitExceededException", INVALID + "ReadCapacityUnits for table exceeds the maximum "
        "allowed value of 40000")


def test_explicit_provisioned_mode_is_summarised(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                     BillingMode="PROVISIONED", ProvisionedThroughput=THROUGHPUT)
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["BillingModeSummary"] == {"BillingMode": "PROVISIONED"}


def test_table_name_given_as_arn(ddb):
    name = unique_name()
    arn = f"arn:aws:dynamodb:us-east-1:000000000000:table/{name}"
    created = ddb.create_table(TableName=arn, KeySchema=HASH, AttributeDefinitions=PK,
                               **ON_DEMAND)["TableDescription"]
    assert created["TableName"] == name
    assert created["TableArn"] == arn
    # an ARN names a table only if its name follows the naming rules: no table may be
    # called "", "x" or "a b", nor a malformed ARN itself
    prefix = "arn:aws:dynamodb:us-east-1:000000000000:table/"
    for bad in (prefix, prefix + "x", prefix + "a b", prefix + name + "/index/i",
                "arn:nonsense"):
        with pytest.raises(ClientError) as excinfo:
            ddb.create_table(TableName=bad, KeySchema=HASH, AttributeDefinitions=PK,
                             **ON_DEMAND)
        assert error_of(excinfo) == (
            "ValidationException", f"Invalid TableArn: Invalid ResourceArn provided as input {bad}")
    listed = [name for page in ddb.get_paginator("list_tables").paginate()
              for name in page["TableNames"]]
    assert name in listed and all(len(listed_name) >= 3 for listed_name in listed)


def test_stream_specification(ddb):
    name = unique_name()
    created = ddb.create_table(
        TableName=name, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    label = table["LatestStreamLabel"]
    assert label == created["TableDescription"]["LatestStreamLabel"]
    assert table["LatestStreamArn"] == f"{table['TableArn']}/stream/{label}"


def test_disabled_stream_is_not_described(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
                     StreamSpecification={"StreamEnabled": False})
    table = ddb.describe_table(TableName=name)["Table"]
    assert "StreamSpecification" not in table and "LatestStreamArn" not in table


@pytest.mark.parametrize("spec, message", [
    ({"StreamEnabled": True},
     INVALID + "You must specify a StreamViewType when enabling a stream"),
    ({"StreamEnabled": False, "StreamViewType": "KEYS_ONLY"},
     INVALID + "Table is being created with a stream disabled, UpdateViewType should not "
     "be specified"),
])
def test_stream_rules(ddb, spec, message):
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
                        StreamSpecification=spec) == ("ValidationException", message)


def test_sse_with_kms(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
                     SSESpecification={"Enabled": True, "SSEType": "KMS",
                                       "KMSMasterKeyId": "1234abcd-12ab-34cd-56ef-1234567890ab"})
    assert ddb.describe_table(TableName=name)["Table"]["SSEDescription"] == {
        "Status": "ENABLED", "SSEType": "KMS",
        "KMSMasterKeyArn": "arn:aws:kms:us-east-1:000000000000:key/"
                           "1234abcd-12ab-34cd-56ef-1234567890ab"}


def test_sse_disabled_is_not_described(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
                     SSESpecification={"Enabled": False})
    assert "SSEDescription" not in ddb.describe_table(TableName=name)["Table"]


@pytest.mark.parametrize("spec, message", [
    ({"Enabled": False, "SSEType": "KMS"},
     INVALID + "SSEType or KMSMasterKeyId cannot be specified when SSE is disabled"),
    ({"Enabled": True, "SSEType": "AES256"}, INVALID + "SSEType AES256 is not supported"),
])
def test_sse_rules(ddb, spec, message):
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
                        SSESpecification=spec) == ("ValidationException", message)


def test_table_class_deletion_protection_and_tags(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
                     TableClass="STANDARD_INFREQUENT_ACCESS", DeletionProtectionEnabled=True,
                     Tags=[{"Key": "team", "Value": "data"}])
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["TableClassSummary"] == {"TableClass": "STANDARD_INFREQUENT_ACCESS"}
    assert table["DeletionProtectionEnabled"] is True
    assert "Tags" not in table
    assert ddb.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"] == [
        {"Key": "team", "Value": "data"}]


def test_reserved_tag_key(ddb):
    """Recorded, as TagResource words it."""
    assert create_error(ddb, KeySchema=HASH, AttributeDefinitions=PK, **ON_DEMAND,
                        Tags=[{"Key": "aws:owner", "Value": "x"}]) == (
        "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:owner")


def test_validation_comes_before_existence(ddb, table):
    assert create_error(ddb, TableName=table, KeySchema=HASH, AttributeDefinitions=PK) == (
        "ValidationException", "No provisioned throughput specified for the table")


def test_key_schema_of_three_elements(ddb):
    schema = HASH_RANGE + [{"AttributeName": "x", "KeyType": "RANGE"}]
    assert create_error(ddb, KeySchema=schema, AttributeDefinitions=PK_SK, **ON_DEMAND) == (
        "ValidationException", "1 validation error detected: Value '[KeySchemaElement("
        "attributeName=pk, keyType=HASH), KeySchemaElement(attributeName=sk, keyType=RANGE), "
        "KeySchemaElement(attributeName=x, keyType=RANGE)]' at 'keySchema' failed to satisfy "
        "constraint: Member must have length less than or equal to 2")
