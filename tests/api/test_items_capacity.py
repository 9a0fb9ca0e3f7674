"""ReturnConsumedCapacity of the single-item operations, from the developer guide
("Read and write operations", "Item sizes and formats"): reads cost one unit per
4 KB (half when eventually consistent), writes one unit per 1 KB of the larger of
the old and new item, at least one unit either way."""
from __future__ import annotations

import pytest

from conftest import unique_name

KEY = {"pk": {"S": "k"}}


def sized(total: int) -> dict:
    """An item of exactly `total` bytes: "pk" + "k" + "d" + a string of total - 4 bytes."""
    return {**KEY, "d": {"S": "x" * (total - 4)}}


def units(reply: dict) -> float:
    return reply["ConsumedCapacity"]["CapacityUnits"]


@pytest.mark.parametrize("size, expected", [(4, 1.0), (1024, 1.0), (1025, 2.0), (4096, 4.0),
                                            (10 * 1024 + 1, 11.0)])
def test_put_costs_one_unit_per_kb(ddb, table, size, expected):
    reply = ddb.put_item(TableName=table, Item=sized(size), ReturnConsumedCapacity="TOTAL")
    assert reply["ConsumedCapacity"]["TableName"] == table
    assert units(reply) == expected


def test_put_over_a_larger_item_costs_the_larger_size(ddb, table):
    ddb.put_item(TableName=table, Item=sized(3000))
    reply = ddb.put_item(TableName=table, Item=sized(10), ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 3.0


@pytest.mark.parametrize("size, consistent, expected", [
    (100, False, 0.5), (4096, False, 0.5), (4097, False, 1.0),
    (100, True, 1.0), (4096, True, 1.0), (4097, True, 2.0), (12 * 1024, True, 3.0),
])
def test_get_costs_one_unit_per_4_kb(ddb, table, size, consistent, expected):
    ddb.put_item(TableName=table, Item=sized(size))
    reply = ddb.get_item(TableName=table, Key=KEY, ConsistentRead=consistent,
                         ReturnConsumedCapacity="TOTAL")
    assert reply["Item"] == sized(size)
    assert units(reply) == expected


@pytest.mark.parametrize("consistent, expected", [(False, 0.5), (True, 1.0)])
def test_get_of_a_missing_item_costs_the_minimum(ddb, table, consistent, expected):
    reply = ddb.get_item(TableName=table, Key=KEY, ConsistentRead=consistent,
                         ReturnConsumedCapacity="TOTAL")
    assert "Item" not in reply
    assert units(reply) == expected


def test_projection_does_not_lower_the_cost(ddb, table):
    ddb.put_item(TableName=table, Item=sized(5000))
    reply = ddb.get_item(TableName=table, Key=KEY, ProjectionExpression="pk",
                         ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert reply["Item"] == KEY
    assert units(reply) == 2.0


def test_update_costs_the_larger_of_old_and_new(ddb, table):
    ddb.put_item(TableName=table, Item=sized(1500))
    reply = ddb.update_item(TableName=table, Key=KEY, UpdateExpression="REMOVE d",
                            ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 2.0
    reply = ddb.update_item(TableName=table, Key=KEY, UpdateExpression="SET d = :v",
                            ExpressionAttributeValues={":v": {"S": "x" * 2100}},
                            ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 3.0


def test_delete_costs_the_deleted_item(ddb, table):
    ddb.put_item(TableName=table, Item=sized(2049))
    reply = ddb.delete_item(TableName=table, Key=KEY, ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 3.0
    reply = ddb.delete_item(TableName=table, Key=KEY, ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 1.0


@pytest.mark.parametrize("operation, params", [
    ("put_item", {"Item": KEY}),
    ("get_item", {"Key": KEY}),
    ("update_item", {"Key": KEY}),
    ("delete_item", {"Key": KEY}),
])
def test_indexes_mode_breaks_out_the_table(ddb, table, operation, params):
    reply = getattr(ddb, operation)(TableName=table, ReturnConsumedCapacity="INDEXES", **params)
    consumed = reply["ConsumedCapacity"]
    assert consumed["TableName"] == table
    assert consumed["Table"]["CapacityUnits"] == consumed["CapacityUnits"]
    assert "GlobalSecondaryIndexes" not in consumed and "LocalSecondaryIndexes" not in consumed


@pytest.mark.parametrize("operation, params", [
    ("put_item", {"Item": KEY}),
    ("get_item", {"Key": KEY}),
    ("update_item", {"Key": KEY}),
    ("delete_item", {"Key": KEY}),
])
@pytest.mark.parametrize("mode", [None, "NONE"])
def test_no_capacity_unless_asked(ddb, table, operation, params, mode):
    extra = {"ReturnConsumedCapacity": mode} if mode else {}
    reply = getattr(ddb, operation)(TableName=table, **params, **extra)
    assert "ConsumedCapacity" not in reply


def test_size_counts_numbers_binaries_and_containers(ddb, table):
    # pk "k": 3; n: 1 + (38 digits -> 19 + 1); b: 1 + 1000 raw bytes;
    # m: 1 + 3 + ("a" 1 + BOOL 1 + element 1) ; l: 1 + 3 + (NULL 1 + element 1)
    item = {**KEY, "n": {"N": "1" * 38}, "b": {"B": b"\x00" * 1000},
            "m": {"M": {"a": {"BOOL": True}}}, "l": {"L": [{"NULL": True}]}}
    size = 3 + 21 + 1001 + 7 + 6  # 1038 bytes: two write units, one read unit
    assert size > 1024
    reply = ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 2.0
    item["b"] = {"B": b"\x00" * (1000 - (size - 1024))}
    reply = ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 2.0  # the replaced item was larger
    ddb.delete_item(TableName=table, Key=KEY)
    reply = ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL")
    assert units(reply) == 1.0  # exactly 1024 bytes


# Writes to a table with secondary indexes also pay for each index entry they write
# (developer guide, "Provisioned throughput considerations for Global Secondary Indexes").
@pytest.fixture
def indexed_table(ddb) -> str:
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "gk", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "keys", "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}},
            {"IndexName": "all", "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}}])
    return name


def write(ddb, table, operation: str, **params) -> dict:
    reply = getattr(ddb, operation)(TableName=table, ReturnConsumedCapacity="INDEXES", **params)
    consumed = reply["ConsumedCapacity"]
    return {"total": consumed["CapacityUnits"], "table": consumed["Table"]["CapacityUnits"],
            **{name: part["CapacityUnits"]
               for name, part in consumed.get("GlobalSecondaryIndexes", {}).items()}}


def test_item_outside_the_indexes_costs_the_table_only(ddb, indexed_table):
    assert write(ddb, indexed_table, "put_item", Item=KEY) == {"total": 1.0, "table": 1.0}


def test_new_indexed_item_writes_each_index(ddb, indexed_table):
    item = {**KEY, "gk": {"S": "g"}, "d": {"S": "x" * 2000}}
    assert write(ddb, indexed_table, "put_item", Item=item) == {
        "total": 2.0 + 1.0 + 2.0, "table": 2.0, "keys": 1.0, "all": 2.0}


def test_changing_an_index_key_deletes_and_puts_the_entry(ddb, indexed_table):
    ddb.put_item(TableName=indexed_table, Item={**KEY, "gk": {"S": "g"}})
    assert write(ddb, indexed_table, "update_item", Key=KEY, UpdateExpression="SET gk = :v",
                 ExpressionAttributeValues={":v": {"S": "h"}}) == {
        "total": 5.0, "table": 1.0, "keys": 2.0, "all": 2.0}


def test_changing_an_unprojected_attribute_writes_only_where_projected(ddb, indexed_table):
    ddb.put_item(TableName=indexed_table, Item={**KEY, "gk": {"S": "g"}})
    assert write(ddb, indexed_table, "update_item", Key=KEY, UpdateExpression="SET v = :v",
                 ExpressionAttributeValues={":v": {"S": "h"}}) == {
        "total": 2.0, "table": 1.0, "all": 1.0}


def test_removing_the_index_key_deletes_the_entry(ddb, indexed_table):
    ddb.put_item(TableName=indexed_table, Item={**KEY, "gk": {"S": "g"}})
    assert write(ddb, indexed_table, "update_item", Key=KEY, UpdateExpression="REMOVE gk") == {
        "total": 3.0, "table": 1.0, "keys": 1.0, "all": 1.0}
    ddb.put_item(TableName=indexed_table, Item={**KEY, "gk": {"S": "g"}})
    assert write(ddb, indexed_table, "delete_item", Key=KEY) == {
        "total": 3.0, "table": 1.0, "keys": 1.0, "all": 1.0}


def test_total_mode_counts_the_indexes_too(ddb, indexed_table):
    reply = ddb.put_item(TableName=indexed_table, Item={**KEY, "gk": {"S": "g"}},
                         ReturnConsumedCapacity="TOTAL")
    assert reply["ConsumedCapacity"] == {"TableName": indexed_table, "CapacityUnits": 3.0}
