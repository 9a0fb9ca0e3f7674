"""BatchGetItem and BatchWriteItem: limits, duplicates, validation before any write,
per-table projection and consistency, UnprocessedKeys past 16 MB, capacity."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name

DUPLICATES = ("ValidationException", "Provided list of item keys contains duplicates")


def key(pk: str, sk: str | None = None) -> dict:
    out = {"pk": {"S": pk}}
    if sk is not None:
        out["sk"] = {"S": sk}
    return out


def put(item: dict) -> dict:
    return {"PutRequest": {"Item": item}}


def delete(k: dict) -> dict:
    return {"DeleteRequest": {"Key": k}}


def error(call, **request) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**request)
    return error_of(excinfo)


def test_write_puts_and_deletes_across_tables(ddb, table, sorted_table):
    ddb.put_item(TableName=table, Item=key("gone"))
    reply = ddb.batch_write_item(RequestItems={
        table: [put(dict(key("a"), v={"N": "1"})), delete(key("gone"))],
        sorted_table: [put(key("b", "1")), put(key("b", "2"))]})
    assert reply["UnprocessedItems"] == {}
    assert ddb.get_item(TableName=table, Key=key("a"))["Item"] == dict(key("a"), v={"N": "1"})
    assert "Item" not in ddb.get_item(TableName=table, Key=key("gone"))
    assert ddb.get_item(TableName=sorted_table, Key=key("b", "2"))["Item"] == key("b", "2")


def test_write_limit_counts_requests_over_all_tables(ddb, table, sorted_table):
    request = {table: [put(key(str(i))) for i in range(13)],
               sorted_table: [put(key("p", str(i))) for i in range(13)]}
    assert error(ddb.batch_write_item, RequestItems=request) == (
        "ValidationException", "Too many items requested for the BatchWriteItem call")


def test_write_duplicate_keys(ddb, table):
    assert error(ddb.batch_write_item, RequestItems={
        table: [put(dict(key("a"), v={"S": "x"})), delete(key("a"))]}) == DUPLICATES
    assert "Item" not in ddb.get_item(TableName=table, Key=key("a"))


def test_same_key_in_two_tables_is_no_duplicate(ddb, make_table):
    first, second = make_table(), make_table()
    ddb.batch_write_item(RequestItems={first: [put(key("a"))], second: [put(key("a"))]})
    assert ddb.get_item(TableName=second, Key=key("a"))["Item"] == key("a")


def test_every_request_is_checked_before_anything_is_written(ddb, table):
    assert error(ddb.batch_write_item, RequestItems={
        table: [put(key("first")), put({"pk": {"N": "1"}})]}) == (
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N")
    assert "Item" not in ddb.get_item(TableName=table, Key=key("first"))
    assert error(ddb.batch_write_item, RequestItems={
        table: [put(key("first")), put(dict(key("big"), v={"S": "x" * 400 * 1024}))]}) == (
        "ValidationException", "Item size has exceeded the maximum allowed size")
    assert "Item" not in ddb.get_item(TableName=table, Key=key("first"))


def test_write_to_a_missing_table(ddb, table):
    assert error(ddb.batch_write_item, RequestItems={
        table: [put(key("a"))], "no-such-table": [put(key("a"))]}) == (
        "ResourceNotFoundException", "Requested resource not found")
    assert "Item" not in ddb.get_item(TableName=table, Key=key("a"))


def test_delete_key_must_match_the_schema(ddb, sorted_table):
    assert error(ddb.batch_write_item, RequestItems={sorted_table: [delete(key("a"))]}) == (
        "ValidationException", "The provided key element does not match the schema")


def test_write_capacity_per_table(ddb, table, sorted_table):
    reply = ddb.batch_write_item(RequestItems={
        table: [put(dict(key("a"), v={"S": "x" * 1500})), put(key("b"))],
        sorted_table: [delete(key("c", "1"))]}, ReturnConsumedCapacity="TOTAL")
    assert sorted(reply["ConsumedCapacity"], key=lambda c: c["TableName"] != table) == [
        {"TableName": table, "CapacityUnits": 3.0},
        {"TableName": sorted_table, "CapacityUnits": 1.0}]


def test_write_capacity_counts_index_writes_as_single_writes_do(ddb):
    """Each request of a batch is billed as its PutItem would be, index entries included."""
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    item = {"pk": {"S": "a"}, "g": {"S": "x"}}
    reply = ddb.batch_write_item(RequestItems={name: [put(item)]},
                                 ReturnConsumedCapacity="INDEXES")
    single = ddb.put_item(TableName=name, Item=dict(item, pk={"S": "b"}),
                          ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert reply["ConsumedCapacity"] == [single]
    assert single["CapacityUnits"] == 2.0
    assert single["GlobalSecondaryIndexes"] == {"by-g": {"CapacityUnits": 1.0}}


def test_get_across_tables_with_projection(ddb, table, sorted_table):
    ddb.put_item(TableName=table, Item=dict(key("a"), v={"N": "1"}, w={"S": "x"}))
    ddb.put_item(TableName=sorted_table, Item=dict(key("b", "1"), v={"N": "2"}))
    reply = ddb.batch_get_item(RequestItems={
        table: {"Keys": [key("a"), key("missing")], "ProjectionExpression": "#v",
                "ExpressionAttributeNames": {"#v": "v"}},
        sorted_table: {"Keys": [key("b", "1")], "ConsistentRead": True}})
    assert reply["Responses"] == {table: [{"v": {"N": "1"}}],
                                  sorted_table: [dict(key("b", "1"), v={"N": "2"})]}
    assert reply["UnprocessedKeys"] == {}


def test_get_capacity_follows_consistency(ddb, table, sorted_table):
    ddb.put_item(TableName=table, Item=dict(key("a"), v={"S": "x" * 5000}))
    reply = ddb.batch_get_item(RequestItems={
        table: {"Keys": [key("a")]},
        sorted_table: {"Keys": [key("b", "1")], "ConsistentRead": True}},
        ReturnConsumedCapacity="TOTAL")
    assert sorted(reply["ConsumedCapacity"], key=lambda c: c["TableName"] != table) == [
        {"TableName": table, "CapacityUnits": 1.0},
        {"TableName": sorted_table, "CapacityUnits": 1.0}]


def test_get_limit_and_duplicates(ddb, table, sorted_table):
    assert error(ddb.batch_get_item, RequestItems={
        table: {"Keys": [key(str(i)) for i in range(60)]},
        sorted_table: {"Keys": [key("p", str(i)) for i in range(41)]}}) == (
        "ValidationException", "Too many items requested for the BatchGetItem call")
    assert error(ddb.batch_get_item, RequestItems={
        table: {"Keys": [key("a"), key("b"), key("a")]}}) == DUPLICATES


def test_empty_request_items(server):
    for operation in ("BatchGetItem", "BatchWriteItem"):
        reply = server.post(operation, {"RequestItems": {}})
        assert (reply.status, reply.json) == (400, {
            "__type": "com.amazon.coral.validate#ValidationException",
            "message": f"The requestItems parameter is required for {operation}"})


def test_get_over_100_keys_for_one_table(ddb, table):
    assert error(ddb.batch_get_item, RequestItems={
        table: {"Keys": [key(str(i)) for i in range(101)]}}) == (
        "ValidationException",
        f"1 validation error detected: Value at 'RequestItems.{table}.member.Keys' failed to "
        "satisfy constraint: Member must have length less than or equal to 100")


def test_get_unknown_table(ddb):
    assert error(ddb.batch_get_item, RequestItems={"no-such-table": {"Keys": [key("a")]}}) == (
        "ResourceNotFoundException", "Requested resource not found")


def test_get_replies_at_most_16_mb(ddb, table):
    value = {"S": "x" * (400 * 1024 - 10)}
    for start in range(0, 50, 10):
        ddb.batch_write_item(RequestItems={table: [
            put(dict(key(f"{i:02}"), v=value)) for i in range(start, start + 10)]})
    keys = [key(f"{i:02}") for i in range(50)]
    reply = ddb.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
    returned = reply["Responses"][table]
    unprocessed = reply["UnprocessedKeys"][table]
    assert len(returned) == 40  # 41 items of 400 KB are past 16 MB
    assert unprocessed == {"Keys": keys[40:], "ConsistentRead": True}
    again = ddb.batch_get_item(RequestItems={table: unprocessed})
    assert {item["pk"]["S"] for item in returned + again["Responses"][table]} == {
        f"{i:02}" for i in range(50)}
