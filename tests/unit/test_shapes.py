"""okura.shapes: DynamoDB's request-shape validation and its messages."""
import pytest
from hypothesis import given, strategies as st

from okura import shapes
from okura.errors import DynamoError

KEY = {"pk": {"S": "a"}}
C = "failed to satisfy constraint: "


def error(op, body):
    with pytest.raises(DynamoError) as info:
        shapes.of(op).check(body)
    return info.value.name, info.value.message


def test_valid_requests_pass():
    shapes.of("GetItem").check({"TableName": "Music", "Key": KEY, "ConsistentRead": True, "Unknown": [1]})
    shapes.of("Query").check({"TableName": "arn:aws:dynamodb:us-east-1:1:table/T", "Limit": 10,
                           "ExpressionAttributeValues": {":a": {"S": "x"}}, "Select": None})
    shapes.of("DescribeStream").check({"StreamArn": "a" * 37})


def test_null_elements_of_lists_and_maps_are_missing_members():
    not_null = f"{C}Member must not be null"
    assert error("BatchGetItem", {"RequestItems": {"Music": None}})[1] == (
        f"1 validation error detected: Value null at 'requestItems.Music.member' {not_null}")
    assert error("BatchWriteItem", {"RequestItems": {"Music": [None]}})[1].endswith(
        f"Value null at 'requestItems.Music.member.1.member' {not_null}")
    assert error("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "Music",
                                                                 "Key": KEY}}, None]})[1] == (
        f"1 validation error detected: Value null at 'transactItems.2.member' {not_null}")
    assert error("Scan", {"TableName": "Music", "AttributesToGet": ["a", None]})[1].endswith(
        f"Value null at 'attributesToGet.2.member' {not_null}")
    assert error("PutItem", {"TableName": "Music", "Item": KEY,
                             "Expected": {"a": None}})[1].endswith(
        f"Value null at 'expected.a.member' {not_null}")


def test_fractional_integers_are_truncated():
    body = {"TableName": "Music", "Limit": 2.9, "Segment": 0.5, "TotalSegments": 3.0}
    shapes.of("Scan").check(body)
    assert body == {"TableName": "Music", "Limit": 2, "Segment": 0, "TotalSegments": 3}
    assert all(type(body[member]) is int for member in ("Limit", "Segment", "TotalSegments"))
    # (Query checks its Limit itself: tests/api/test_query_errors.py)
    assert error("Scan", {"TableName": "Music", "Limit": 0.5})[1].endswith(
        f"Value '0' at 'limit' {C}Member must have value greater than or equal to 1")


def test_missing_required_member():
    assert error("DeleteTable", {}) == (
        "ValidationException", f"1 validation error detected: Value null at 'tableName' {C}Member must not be null")


def test_null_counts_as_absent():
    assert error("DeleteTable", {"TableName": None})[1].endswith("Member must not be null")


def test_length_pattern_enum_range_and_their_order_at_top_level():
    assert error("ListTables", {"ExclusiveStartTableName": "", "Limit": 0, "ReturnValues": "x"}) == (
        "ValidationException",
        "3 validation errors detected: "
        f"Value '' at 'exclusiveStartTableName' {C}Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; "
        f"Value '' at 'exclusiveStartTableName' {C}Member must have length greater than or equal to 3; "
        f"Value '0' at 'limit' {C}Member must have value greater than or equal to 1")
    assert error("ListTables", {"Limit": 101})[1] == (
        f"1 validation error detected: Value '101' at 'limit' {C}Member must have value less than or equal to 100")
    assert error("CreateTable", {"TableName": "abc", "BillingMode": ""})[1] == (
        f"1 validation error detected: Value '' at 'billingMode' {C}"
        "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")


def test_members_reported_in_dynamodb_order():
    body = {"TableName": "", "UpdateExpression": "SET a = :a", "ExpressionAttributeValues": {":a": {"S": "x"}},
            "ReturnConsumedCapacity": "INVALID", "ReturnValues": "INVALID"}
    assert error("UpdateItem", body)[1] == (
        "4 validation errors detected: "
        f"Value 'INVALID' at 'returnConsumedCapacity' {C}Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; "
        f"Value '' at 'tableName' {C}Member must have length greater than or equal to 1; "
        f"Value 'INVALID' at 'returnValues' {C}"
        "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; "
        f"Value null at 'key' {C}Member must not be null")


def test_nested_paths_and_nested_order():
    body = {"TableName": "abc", "KeySchema": [{}], "AttributeDefinitions": [{}],
            "GlobalSecondaryIndexes": [{"IndexName": ""}], "ProvisionedThroughput": {}}
    message = error("CreateTable", body)[1]
    for part in (
        f"Value null at 'keySchema.1.member.attributeName' {C}Member must not be null; "
        f"Value null at 'keySchema.1.member.keyType' {C}Member must not be null",
        f"Value null at 'attributeDefinitions.1.member.attributeType' {C}Member must not be null; "
        f"Value null at 'attributeDefinitions.1.member.attributeName' {C}Member must not be null",
        f"Value null at 'provisionedThroughput.writeCapacityUnits' {C}Member must not be null; "
        f"Value null at 'provisionedThroughput.readCapacityUnits' {C}Member must not be null",
        f"Value '' at 'globalSecondaryIndexes.1.member.indexName' {C}Member must have length greater than or equal to 3; "
        f"Value '' at 'globalSecondaryIndexes.1.member.indexName' {C}"
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
    ):
        assert part in message


def test_map_value_path_and_list_length_rendering():
    assert error("BatchGetItem", {"RequestItems": {"Auth": {"Keys": []}}})[1] == (
        f"1 validation error detected: Value '[]' at 'requestItems.Auth.member.keys' {C}"
        "Member must have length greater than or equal to 1")
    statements = [{"Statement": "SELECT * FROM t", "ConsistentRead": True}] * 26
    assert error("BatchExecuteStatement", {"Statements": statements})[1] == (
        "1 validation error detected: Value '[" + ", ".join(
            ["BatchStatementRequest(statement=SELECT * FROM t, parameters=null, consistentRead=true, "
             "returnValuesOnConditionCheckFailure=null)"] * 26)
        + f"]' at 'statements' {C}Member must have length less than or equal to 25")


def test_bracketed_map_value_and_list_member_constraints():
    assert error("BatchWriteItem", {"RequestItems": {"variantIds": []}})[1] == (
        f"1 validation error detected: Value '{{variantIds=[]}}' at 'requestItems' {C}Map value must satisfy "
        "constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
    assert error("UntagResource", {"ResourceArn": "arn:x", "TagKeys": ["", "k"]})[1] == (
        f"1 validation error detected: Value '[, k]' at 'tagKeys' {C}Member must satisfy constraint: "
        "[Member must have length less than or equal to 128, Member must have length greater than or equal to 1]")


def test_constraints_the_operation_checks_itself_pass():
    # BatchGetItem's Keys per table, Query's Limit, an empty RequestItems and CreateTable's
    # TableName: DynamoDB words these in the operation (tests/api)
    shapes.of("BatchGetItem").check({"RequestItems": {"t1": {"Keys": [KEY] * 101}}})
    shapes.of("BatchGetItem").check({"RequestItems": {}})
    shapes.of("BatchWriteItem").check({"RequestItems": {}})
    shapes.of("Query").check({"TableName": "Music", "Limit": 0})
    shapes.of("CreateTable").check({})
    assert error("BatchGetItem", {"RequestItems": {"t1": {"Keys": []}}})[1].endswith(
        "Member must have length greater than or equal to 1")
    assert error("BatchGetItem", {"RequestItems": {"t1": {"Keys": [KEY]}}, "ReturnConsumedCapacity": "x"})[1].endswith(
        "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")


def test_structure_rendering_includes_hidden_members():
    many = {f"t{i}": {"Keys": [KEY]} for i in range(101)}
    assert ", attributesToGet=null, consistentRead=null, projectionExpression=null, " \
           "expressionAttributeNames=null, workloadProfileName=null)" in error("BatchGetItem", {"RequestItems": many})[1]


def test_ten_errors_listed_count_is_complete():
    body = {"TableName": "abc", "KeySchema": [{}, {}], "AttributeDefinitions": [{}, {}, {}]}
    message = error("CreateTable", body)[1]
    assert message.startswith("10 validation errors detected: ")
    assert message.count("Member must not be null") == 10
    body["AttributeDefinitions"].append({})
    message = error("CreateTable", body)[1]
    assert message.startswith("12 validation errors detected: ")
    assert message.count("failed to satisfy constraint") == 10


def test_table_name_or_arn():
    assert error("GetItem", {"TableName": "ab", "Key": KEY})[1] == (
        f"1 validation error detected: Value 'ab' at 'tableName' {C}Member must have length greater than or equal to 3")
    assert error("DescribeTable", {"TableName": ""})[1] == (
        "2 validation errors detected: "
        f"Value '' at 'tableName' {C}Member must have length greater than or equal to 3; "
        f"Value '' at 'tableName' {C}Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
    assert error("PutItem", {"TableName": "a" * 256, "Item": KEY})[1].endswith(
        f"at 'tableName' {C}Member must have length less than or equal to 255")
    shapes.of("PutItem").check({"TableName": "arn:aws:dynamodb:us-east-1:123456789012:table/t", "Item": KEY})


def test_create_table_reports_a_bad_name_alone():
    assert error("CreateTable", {"TableName": "", "BillingMode": "x", "ProvisionedThroughput": {}})[1] == (
        "2 validation errors detected: "
        f"Value '' at 'tableName' {C}Member must have length greater than or equal to 3; "
        f"Value '' at 'tableName' {C}Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
    # other operations report the name's rules only once the model's checks pass
    assert error("PutItem", {"TableName": "ab", "Item": KEY, "ReturnValues": "x"})[1].startswith(
        "1 validation error detected: Value 'x' at 'returnValues'")
    # a wrongly typed member comes first
    assert error("CreateTable", {"TableName": "x!", "BillingMode": 5})[0] == "SerializationException"


@pytest.mark.parametrize("op, body, message", [
    ("GetItem", {"TableName": 5}, "NUMBER_VALUE cannot be converted to String"),
    ("GetItem", {"TableName": {}}, "Start of structure or map found where not expected"),
    ("GetItem", {"TableName": []}, "Start of list found where not expected"),
    ("Query", {"TableName": "abc", "Limit": "5"}, "STRING_VALUE cannot be converted to Integer"),
    ("Query", {"TableName": "abc", "ConsistentRead": 1}, "NUMBER_VALUE cannot be converted to Boolean"),
    ("Query", {"TableName": "abc", "ExpressionAttributeNames": "{}"}, "Unexpected field type"),
    ("Query", {"TableName": "abc", "AttributesToGet": {}}, "Start of structure or map found where not expected"),
    ("PutItem", {"TableName": "abc", "Item": {"a": "x"}}, "Unexpected field type"),
    ("PutItem", {"TableName": "abc", "Item": []}, "Start of list found where not expected"),
    ("DeleteTable", [], "Start of list found where not expected"),
])
def test_serialization_errors(op, body, message):
    assert error(op, body) == ("SerializationException", message)


def test_serialization_error_wins_over_validation_errors():
    assert error("Query", {"TableName": "", "Limit": "x"}) == (
        "SerializationException", "STRING_VALUE cannot be converted to Integer")


def test_unknown_operation():
    with pytest.raises(KeyError):
        shapes.of("Nope")


def test_every_model_operation_is_covered():
    assert len(shapes.OPERATIONS) == 66
    for op in ("TransactWriteItems", "ExecuteStatement", "GetRecords", "ListStreams", "ImportTable",
               "StartBulkPutItems"):
        assert op in shapes.OPERATIONS


@given(st.from_regex(r"[a-zA-Z0-9_.\-]{3,255}", fullmatch=True))
def test_any_valid_table_name_passes(name):
    shapes.of("DescribeTable").check({"TableName": name})


@given(st.lists(st.sampled_from(["ReturnConsumedCapacity", "Select", "ConditionalOperator"]),
                unique=True))
def test_error_count_matches_listed_errors(bad):
    body = {"TableName": "abc", **{member: "BAD" for member in bad}}
    if not bad:
        shapes.of("Query").check(body)
        return
    name, message = error("Query", body)
    assert message.startswith(f"{len(bad)} validation error{'s' if len(bad) > 1 else ''} detected: ")
    assert message.count("Member must satisfy enum value set") == len(bad)
