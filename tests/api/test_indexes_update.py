"""UpdateTable GlobalSecondaryIndexUpdates: an index created on a populated table is
backfilled in the background (CREATING, then ACTIVE) and resumes after a restart;
a deleted one is DELETING, then gone."""
from __future__ import annotations

import time

import pytest
from botocore.exceptions import ClientError

from conftest import Server, error_of, unique_name

CREATE_BYG = {"Create": {"IndexName": "byg", "KeySchema": [{"AttributeName": "g",
                                                             "KeyType": "HASH"}],
                         "Projection": {"ProjectionType": "KEYS_ONLY"}}}
G_DEFINED = [{"AttributeName": "g", "AttributeType": "S"}]


def populated(ddb, count: int) -> str:
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    wait_for(lambda: ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE")
    for start in range(0, count, 25):
        ddb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": str(i)}, "g": {"S": str(i % 2)}}}}
            for i in range(start, min(start + 25, count))]})
    return name


def wait_for(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.02)


def index_of(ddb, table: str) -> dict | None:
    indexes = ddb.describe_table(TableName=table)["Table"].get("GlobalSecondaryIndexes")
    return None if indexes is None else indexes[0]


def count_in(ddb, table: str, g: str) -> int:
    return ddb.query(TableName=table, IndexName="byg", KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": {"S": g}}, Select="COUNT")["Count"]


def error(ddb, **request) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(**request)
    return error_of(excinfo)


def test_create_backfills_a_populated_table(ddb):
    table = populated(ddb, 600)
    reply = ddb.update_table(TableName=table, AttributeDefinitions=G_DEFINED,
                             GlobalSecondaryIndexUpdates=[CREATE_BYG])["TableDescription"]
    created = reply["GlobalSecondaryIndexes"][0]
    assert (created["IndexStatus"], created["Backfilling"]) == ("CREATING", False)
    assert {"AttributeName": "g", "AttributeType": "S"} in reply["AttributeDefinitions"]
    ddb.put_item(TableName=table, Item={"pk": {"S": "new"}, "g": {"S": "1"}})  # during backfill
    wait_for(lambda: index_of(ddb, table)["IndexStatus"] == "ACTIVE")
    assert "Backfilling" not in index_of(ddb, table)  # recorded: an ACTIVE index has none
    assert (count_in(ddb, table, "0"), count_in(ddb, table, "1")) == (300, 301)
    assert index_of(ddb, table)["ItemCount"] == 601


def test_backfill_resumes_after_restart(tmp_path):
    first = Server("--status-delay", "1", data_dir=str(tmp_path))
    try:
        ddb = first.client()
        table = populated(ddb, 30)
        ddb.update_table(TableName=table, AttributeDefinitions=G_DEFINED,
                         GlobalSecondaryIndexUpdates=[CREATE_BYG])
        assert index_of(ddb, table)["IndexStatus"] == "CREATING"
    finally:
        first.stop()  # before the job's start: it is only recorded
    second = Server(data_dir=str(tmp_path))
    try:
        ddb = second.client()  # the job runner resumes it
        wait_for(lambda: index_of(ddb, table)["IndexStatus"] == "ACTIVE")
        assert count_in(ddb, table, "0") == 15
    finally:
        second.stop()


def test_delete_an_index(ddb):
    table = populated(ddb, 10)
    ddb.update_table(TableName=table, AttributeDefinitions=G_DEFINED,
                     GlobalSecondaryIndexUpdates=[CREATE_BYG])
    wait_for(lambda: index_of(ddb, table)["IndexStatus"] == "ACTIVE")
    wait_for(lambda: ddb.describe_table(TableName=table)["Table"]["TableStatus"] == "ACTIVE")
    reply = ddb.update_table(TableName=table,
                             GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "byg"}}])
    assert reply["TableDescription"]["GlobalSecondaryIndexes"][0]["IndexStatus"] == "DELETING"
    wait_for(lambda: index_of(ddb, table) is None)
    ddb.put_item(TableName=table, Item={"pk": {"S": "after"}, "g": {"S": "0"}})


def test_one_online_index_change_at_a_time(ddb):
    table = populated(ddb, 1)
    second = {"Create": dict(CREATE_BYG["Create"], IndexName="other")}
    assert error(ddb, TableName=table, AttributeDefinitions=G_DEFINED,
                 GlobalSecondaryIndexUpdates=[CREATE_BYG, second]) == (
        "LimitExceededException", "Subscriber limit exceeded: Only 1 online index can be "
        "created or deleted simultaneously per table")


def test_create_rules(ddb):
    table = populated(ddb, 1)
    assert error(ddb, TableName=table, GlobalSecondaryIndexUpdates=[CREATE_BYG]) == (
        "ValidationException", "No Attribute Schema Defined")
    # the request must define every key of the new index, even one the table defines
    by_g_pk = {"Create": dict(CREATE_BYG["Create"], KeySchema=[
        {"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}])}
    for definitions in ([{"AttributeName": "h", "AttributeType": "S"}], G_DEFINED):
        assert error(ddb, TableName=table, AttributeDefinitions=definitions,
                     GlobalSecondaryIndexUpdates=[by_g_pk]) == (
            "ValidationException", "Invalid KeySchema: Some index key attribute have no definition")
    assert "GlobalSecondaryIndexes" not in ddb.describe_table(TableName=table)["Table"]
    assert error(ddb, TableName=table,
                 GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "nothere"}}]) == (
        "ResourceNotFoundException", "Requested resource not found: Index: nothere not found")


@pytest.fixture(scope="module")
def slow_node(clocked):  # noqa: F811 - the fixture imported below
    """A server whose index jobs start only when its clock is moved past their delay."""
    return clocked("--status-delay", "60")


from test_clock import advance, clocked  # noqa: E402, F401 - clocked is a fixture


def test_a_new_index_refuses_no_write_until_it_is_built(slow_node):
    """Developer guide, "Detecting and correcting index key violations": a violating item
    stays out of the index being built; once it is built, such writes are refused."""
    ddb = slow_node.client()
    table = unique_name()
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    advance(slow_node, 61)  # the table is ACTIVE
    for i in range(4):
        ddb.put_item(TableName=table, Item={"pk": {"S": str(i)}, "g": {"S": str(i % 2)}})
    ddb.update_table(TableName=table, AttributeDefinitions=G_DEFINED,
                     GlobalSecondaryIndexUpdates=[CREATE_BYG])
    ddb.put_item(TableName=table, Item={"pk": {"S": "n"}, "g": {"N": "1"}})  # g is S in byg
    ddb.put_item(TableName=table, Item={"pk": {"S": "e"}, "g": {"S": ""}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "ok"}, "g": {"S": "1"}})
    assert index_of(ddb, table)["IndexStatus"] == "CREATING"
    advance(slow_node, 61)
    wait_for(lambda: index_of(ddb, table)["IndexStatus"] == "ACTIVE")
    assert (count_in(ddb, table, "0"), count_in(ddb, table, "1")) == (2, 3)
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"pk": {"S": "n2"}, "g": {"N": "1"}})
    assert error_of(excinfo)[0] == "ValidationException"


def test_an_index_may_be_deleted_while_it_backfills(ddb):
    """API reference (Backfilling): an index CREATING with Backfilling true may be deleted."""
    table = populated(ddb, 6000)
    ddb.update_table(TableName=table, AttributeDefinitions=G_DEFINED,
                     GlobalSecondaryIndexUpdates=[CREATE_BYG])
    wait_for(lambda: index_of(ddb, table).get("Backfilling") is True)
    reply = ddb.update_table(TableName=table,
                             GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "byg"}}])
    assert reply["TableDescription"]["GlobalSecondaryIndexes"][0]["IndexStatus"] == "DELETING"
    wait_for(lambda: index_of(ddb, table) is None)
    ddb.put_item(TableName=table, Item={"pk": {"S": "after"}, "g": {"N": "0"}})  # no index left
