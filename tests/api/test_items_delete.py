"""DeleteItem through boto3, from the API reference: idempotent deletes, ReturnValues
(NONE and ALL_OLD only), conditions, and key rules after the table lookup."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of
from items_common import FAILED, NOT_FOUND, fails

KEY = {"pk": {"S": "a"}}
ITEM = {"pk": {"S": "a"}, "v": {"N": "1"}, "l": {"L": [{"S": "x"}]}}


@pytest.fixture
def stored(ddb, table) -> str:
    ddb.put_item(TableName=table, Item=ITEM)
    return table


def test_delete_removes_the_item(ddb, stored):
    reply = ddb.delete_item(TableName=stored, Key=KEY)
    assert "Attributes" not in reply
    assert "Item" not in ddb.get_item(TableName=stored, Key=KEY)


def test_deleting_a_missing_item_succeeds(ddb, table):
    reply = ddb.delete_item(TableName=table, Key=KEY, ReturnValues="ALL_OLD")
    assert "Attributes" not in reply


def test_all_old_returns_the_deleted_item(ddb, stored):
    assert ddb.delete_item(TableName=stored, Key=KEY, ReturnValues="ALL_OLD")["Attributes"] == ITEM


@pytest.mark.parametrize("value", ["ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"])
def test_other_return_values_are_rejected(ddb, stored, value):
    assert fails(ddb.delete_item, TableName=stored, Key=KEY, ReturnValues=value) == (
        "ValidationException", "ReturnValues can only be ALL_OLD or NONE")
    assert ddb.get_item(TableName=stored, Key=KEY)["Item"] == ITEM


def test_condition_guards_the_delete(ddb, stored):
    assert fails(ddb.delete_item, TableName=stored, Key=KEY, ConditionExpression="v = :two",
                 ExpressionAttributeValues={":two": {"N": "2"}}) == FAILED
    assert ddb.get_item(TableName=stored, Key=KEY)["Item"] == ITEM
    ddb.delete_item(TableName=stored, Key=KEY, ConditionExpression="v = :one AND size(l) = :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    assert "Item" not in ddb.get_item(TableName=stored, Key=KEY)


def test_condition_on_a_missing_item_fails(ddb, table):
    assert fails(ddb.delete_item, TableName=table, Key=KEY,
                 ConditionExpression="attribute_exists(pk)") == FAILED


def test_failed_condition_returns_the_item_on_request(ddb, stored):
    with pytest.raises(ClientError) as excinfo:
        ddb.delete_item(TableName=stored, Key=KEY, ConditionExpression="attribute_not_exists(v)",
                        ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert error_of(excinfo) == FAILED
    assert excinfo.value.response["Item"] == ITEM


def test_key_must_match_the_schema(ddb, sorted_table):
    assert fails(ddb.delete_item, TableName=sorted_table, Key=KEY) == (
        "ValidationException", "The provided key element does not match the schema")


def test_missing_table(ddb):
    assert fails(ddb.delete_item, TableName="no-such-table", Key=KEY) == NOT_FOUND
    assert fails(ddb.delete_item, TableName="no-such-table", Key=KEY,
                 ReturnValues="ALL_NEW") == ("ValidationException",
                                             "ReturnValues can only be ALL_OLD or NONE")


def test_deleted_table_is_not_found(ddb, table):
    ddb.delete_table(TableName=table)
    ddb.get_waiter("table_not_exists").wait(TableName=table, WaiterConfig={"Delay": 0.1})
    assert fails(ddb.delete_item, TableName=table, Key=KEY) == NOT_FOUND
    assert fails(ddb.get_item, TableName=table, Key=KEY) == NOT_FOUND


def test_expression_values_need_a_condition(ddb, table):  # unverified: PutItem's text, same rule
    assert fails(ddb.delete_item, TableName=table, Key={"pk": {"S": "a"}},
                 ExpressionAttributeValues={":v": {"S": "x"}}) == (
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions: "
        "ConditionExpression is null")
