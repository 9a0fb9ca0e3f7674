"""TTL expiry on servers whose clock the tests move: the sweeper deletes expired
items through the write path (stream REMOVE records by the DynamoDB service),
ignores what DynamoDB ignores, and leaves unswept expired items readable."""
from __future__ import annotations

import time

import pytest
from botocore.exceptions import ClientError
from conftest import error_of
from test_clock import admin, advance, clocked  # noqa: F401 - clocked is a fixture
from test_streams import read_all, stream_table

HOUR = 3600
SERVICE = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}


@pytest.fixture(scope="module")
def node(clocked):  # noqa: F811
    return clocked("--ttl-interval", "0.05")


@pytest.fixture(scope="module")
def ddb(node):
    return node.client()


def now_of(node) -> float:
    return admin(node, "GET")[1]["now"]


def keys_of(ddb, name: str) -> list[str]:
    return sorted(i["pk"]["S"] for i in ddb.scan(TableName=name, ConsistentRead=True)["Items"])


def wait_for(condition, timeout: float = 5.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the sweeper did not get there in time"
        time.sleep(0.02)


def ttl_table(ddb) -> tuple[str, str]:
    name, arn = stream_table(ddb)
    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    return name, arn


def test_enable_describe_disable_once_an_hour(node, ddb):
    table, _ = stream_table(ddb)
    ttl = ddb.describe_time_to_live
    assert ttl(TableName=table)["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}
    assert ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})["TimeToLiveSpecification"] == {
        "Enabled": True, "AttributeName": "expires"}
    assert ttl(TableName=table)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
    assert "TimeToLive" not in ddb.describe_table(TableName=table)["Table"]
    assert failure(ddb, TableName=table, Enabled=True, AttributeName="expires") == (
        "ValidationException", "TimeToLive is already enabled")
    for enabled in (True, False):  # moving TTL to another attribute, or disabling it there
        assert failure(ddb, TableName=table, Enabled=enabled, AttributeName="other") == (
            "ValidationException",
            "TimeToLive is active on a different AttributeName: current AttributeName is expires")
    # "Any additional UpdateTimeToLive calls for the same table during this one hour
    # duration result in a ValidationException"
    assert failure(ddb, TableName=table, Enabled=False, AttributeName="expires") == (
        "ValidationException", "Time to live has been modified multiple times within a fixed "
        "interval")
    advance(node, HOUR)
    ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": False, "AttributeName": "expires"})
    assert ttl(TableName=table)["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}
    assert failure(ddb, TableName=table, Enabled=False, AttributeName="expires") == (
        "ValidationException", "TimeToLive is already disabled")


def failure(ddb, TableName, **specification) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        ddb.update_time_to_live(TableName=TableName, TimeToLiveSpecification=specification)
    return error_of(excinfo)


def test_expired_item_is_deleted_with_a_service_remove_record(node, ddb):
    streams = node.client("dynamodbstreams")
    name, arn = ttl_table(ddb)
    start = now_of(node)
    item = {"pk": {"S": "soon"}, "expires": {"N": str(int(start) + 2 * HOUR)}}
    ddb.put_item(TableName=name, Item=item)
    ddb.put_item(TableName=name, Item={"pk": {"S": "later"},
                                       "expires": {"N": str(int(start) + 5 * HOUR)}})
    time.sleep(0.2)  # sweeps pass over items not yet expired
    assert keys_of(ddb, name) == ["later", "soon"]
    advance(node, 3 * HOUR)
    wait_for(lambda: keys_of(ddb, name) == ["later"])
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "INSERT", "REMOVE"]
    removal = records[-1]
    assert removal["userIdentity"] == SERVICE
    assert removal["dynamodb"]["OldImage"] == item
    assert all("userIdentity" not in r for r in records[:2])


def test_what_ttl_ignores(node, ddb):
    name, _ = ttl_table(ddb)
    now = int(now_of(node))
    ddb.put_item(TableName=name, Item={"pk": {"S": "ancient"},
                                       "expires": {"N": str(now - 6 * 365 * 86400)}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "string"}, "expires": {"S": str(now - 60)}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "future"}, "expires": {"N": str(now + HOUR)}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "none"}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "other"}, "ttl": {"N": str(now - 60)}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "past"}, "expires": {"N": str(now - 60)}})
    wait_for(lambda: "past" not in keys_of(ddb, name))
    time.sleep(0.2)
    assert keys_of(ddb, name) == ["ancient", "future", "none", "other", "string"]


def test_disabled_ttl_expires_nothing(node, ddb):
    name, _ = ttl_table(ddb)
    advance(node, HOUR)  # TTL changes once an hour
    ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": False, "AttributeName": "expires"})
    ddb.put_item(TableName=name, Item={"pk": {"S": "kept"},
                                       "expires": {"N": str(int(now_of(node)) - 60)}})
    time.sleep(0.3)
    assert keys_of(ddb, name) == ["kept"]


def test_many_items_are_swept_in_chunks(node, ddb):
    name, _ = ttl_table(ddb)
    past = str(int(now_of(node)) - 60)
    for n in range(250):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"k{n:03d}"}, "expires": {"N": past}})
    wait_for(lambda: keys_of(ddb, name) == [], timeout=10)


def test_expired_items_are_readable_until_swept(clocked):  # noqa: F811
    slow = clocked("--ttl-interval", "3600")
    ddb = slow.client()
    name, _ = ttl_table(ddb)
    key = {"pk": {"S": "expired"}}
    ddb.put_item(TableName=name, Item={**key, "expires": {"N": str(int(now_of(slow)) + 60)}})
    advance(slow, HOUR)
    time.sleep(0.2)
    assert ddb.get_item(TableName=name, Key=key)["Item"]["pk"] == key["pk"]
