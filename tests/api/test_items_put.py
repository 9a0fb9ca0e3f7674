"""PutItem through boto3, from the API reference: replace semantics, ReturnValues
(NONE and ALL_OLD only), conditions, key rules and the order of DynamoDB's checks."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name
from items_common import FAILED, NOT_FOUND, fails

INVALID = "One or more parameter values were invalid: "
RETURN_VALUES = ("ValidationException", "ReturnValues can only be ALL_OLD or NONE")


def test_put_then_get_returns_the_item(ddb, table):
    item = {"pk": {"S": "a"}, "n": {"N": "1"}, "s": {"S": "x"}}
    reply = ddb.put_item(TableName=table, Item=item)
    assert "Attributes" not in reply
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"] == item


def test_put_replaces_the_whole_item(ddb, table):
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "old": {"S": "x"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "new": {"S": "y"}})
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"] == {
        "pk": {"S": "a"}, "new": {"S": "y"}}


def test_return_values_all_old_gives_the_replaced_item(ddb, table):
    old = {"pk": {"S": "a"}, "v": {"N": "1"}}
    first = ddb.put_item(TableName=table, Item=old, ReturnValues="ALL_OLD")
    assert "Attributes" not in first  # nothing was replaced
    second = ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": {"N": "2"}},
                          ReturnValues="ALL_OLD")
    assert second["Attributes"] == old


def test_return_values_none_returns_nothing(ddb, table):
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    reply = ddb.put_item(TableName=table, Item={"pk": {"S": "a"}}, ReturnValues="NONE")
    assert "Attributes" not in reply


@pytest.mark.parametrize("value", ["ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"])
def test_return_values_other_than_all_old_or_none_are_rejected(ddb, table, value):
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"S": "a"}},
                 ReturnValues=value) == RETURN_VALUES
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})


def test_return_values_not_in_the_enum_is_a_constraint_error(server, table):
    reply = server.post("PutItem", {"TableName": table, "Item": {"pk": {"S": "a"}},
                                    "ReturnValues": "SOME"})
    assert reply.status == 400
    assert reply.json == {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "1 validation error detected: Value 'SOME' at 'returnValues' failed to satisfy "
                   "constraint: Member must satisfy enum value set: "
                   "[ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"}


def test_missing_item_is_a_constraint_error(server, table):
    reply = server.post("PutItem", {"TableName": table})
    assert reply.status == 400
    assert reply.json["message"] == ("1 validation error detected: Value null at 'item' failed to "
                                     "satisfy constraint: Member must not be null")


def test_missing_table(ddb):
    assert fails(ddb.put_item, TableName="no-such-table", Item={"pk": {"S": "a"}}) == NOT_FOUND


# The checks that need no table come before the table lookup.
@pytest.mark.parametrize("params, expected", [
    ({"ReturnValues": "ALL_NEW"}, RETURN_VALUES),
    ({"Item": {"pk": {"S": "a"}, "s": {"SS": []}}},
     ("ValidationException", INVALID + "An string set  may not be empty")),
    ({"ConditionExpression": "a = :missing"},
     ("ValidationException", "Invalid ConditionExpression: An expression attribute value used in "
                             "expression is not defined; attribute value: :missing")),
    ({"ExpressionAttributeValues": {":v": {"S": "x"}}},
     ("ValidationException",
      "ExpressionAttributeValues can only be specified when using expressions: "
      "ConditionExpression is null")),  # verified
])
def test_request_errors_come_before_the_missing_table(ddb, params, expected):
    request = {"TableName": "no-such-table", "Item": {"pk": {"S": "a"}}, **params}
    assert fails(ddb.put_item, **request) == expected


def test_key_errors_come_after_the_missing_table(ddb):
    assert fails(ddb.put_item, TableName="no-such-table", Item={"other": {"S": "a"}}) == NOT_FOUND


def test_missing_partition_key(ddb, table):
    assert fails(ddb.put_item, TableName=table, Item={"x": {"S": "a"}}) == (
        "ValidationException", INVALID + "Missing the key pk in the item")


def test_missing_sort_key(ddb, sorted_table):
    assert fails(ddb.put_item, TableName=sorted_table, Item={"pk": {"S": "a"}}) == (
        "ValidationException", INVALID + "Missing the key sk in the item")


def test_key_of_the_wrong_type(ddb, sorted_table):
    assert fails(ddb.put_item, TableName=sorted_table,
                 Item={"pk": {"S": "a"}, "sk": {"N": "1"}}) == (
        "ValidationException", INVALID + "Type mismatch for key sk expected: S actual: N")


def test_empty_key_string_is_rejected(ddb, table):
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"S": ""}}) == (
        "ValidationException", "One or more parameter values are not valid. The AttributeValue for "
                               "a key attribute cannot contain an empty string value. Key: pk")


def test_condition_attribute_not_exists_prevents_overwrite(ddb, table):
    item = {"pk": {"S": "a"}, "v": {"N": "1"}}
    ddb.put_item(TableName=table, Item=item, ConditionExpression="attribute_not_exists(pk)")
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"S": "a"}, "v": {"N": "2"}},
                 ConditionExpression="attribute_not_exists(pk)") == FAILED
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"] == item


def test_failed_condition_returns_the_item_on_request(ddb, table):
    item = {"pk": {"S": "a"}, "v": {"N": "1"}}
    ddb.put_item(TableName=table, Item=item)
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}}, ConditionExpression="v = :two",
                     ExpressionAttributeValues={":two": {"N": "2"}},
                     ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert error_of(excinfo) == FAILED
    assert excinfo.value.response["Item"] == item


def test_failed_condition_without_return_values_has_no_item(server, table):
    server.post("PutItem", {"TableName": table, "Item": {"pk": {"S": "a"}}})
    reply = server.post("PutItem", {"TableName": table, "Item": {"pk": {"S": "a"}},
                                    "ConditionExpression": "attribute_not_exists(pk)"})
    assert reply.status == 400
    assert reply.json == {
        "__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
        "message": "The conditional request failed"}


def test_failed_condition_on_a_missing_item_has_no_item(ddb, table):
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}},
                     ConditionExpression="attribute_exists(pk)",
                     ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert error_of(excinfo) == FAILED
    assert "Item" not in excinfo.value.response
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})


def test_item_collection_metrics_only_for_tables_with_local_indexes(ddb, table):
    reply = ddb.put_item(TableName=table, Item={"pk": {"S": "a"}},
                         ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in reply


def test_item_collection_metrics_with_a_local_index(ddb):
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"},
                              {"AttributeName": "l", "AttributeType": "S"}],
        LocalSecondaryIndexes=[{"IndexName": "by-l",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}])
    reply = ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "sk": {"S": "b"}},
                         ReturnItemCollectionMetrics="SIZE")
    metrics = reply["ItemCollectionMetrics"]
    assert metrics["ItemCollectionKey"] == {"pk": {"S": "a"}}
    low, high = metrics["SizeEstimateRangeGB"]
    assert 0 <= low <= high


def test_index_key_of_the_wrong_type_is_rejected(ddb):
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "gk", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-gk",
                                 "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}])
    assert fails(ddb.put_item, TableName=name, Item={"pk": {"S": "a"}, "gk": {"N": "1"}}) == (
        "ValidationException",
        INVALID + "Type mismatch for Index Key gk Expected: S Actual: N IndexName: by-gk")
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})  # without the index key: not indexed


def test_null_return_values_is_absent(server, table):
    """JSON null is an absent member: PutItem and DeleteItem return nothing, as by default."""
    item = {"pk": {"S": "n"}, "v": {"N": "1"}}
    for operation, body in (("PutItem", {"Item": item}), ("PutItem", {"Item": item}),
                            ("DeleteItem", {"Key": {"pk": {"S": "n"}}})):
        reply = server.post(operation, {"TableName": table, "ReturnValues": None, **body})
        assert (reply.status, reply.json) == (200, {})
