"""Global tables, version 2019.11.21 (docs/global-tables.md): UpdateTable's
ReplicaUpdates and its rules, replicas in two regions of one okura, and multi-region
eventual consistency between them (two-way replication, last writer wins, deletes,
transactions, index entries, each replica's stream, ReplicationLatency)."""
from __future__ import annotations

import http.client
import json
import time

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name
from test_clock import clocked  # noqa: F401 - a fixture

HOME, AWAY = "us-east-1", "eu-west-1"
HASH = [{"AttributeName": "pk", "KeyType": "HASH"}]
PK = [{"AttributeName": "pk", "AttributeType": "S"}]


def admin(server, method: str, path: str, body=None) -> dict:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request(method, path, None if body is None else json.dumps(body),
                           {"Content-Type": "application/json"})
        reply = connection.getresponse()
        assert reply.status == 200
        return json.loads(reply.read())
    finally:
        connection.close()


@pytest.fixture
def home(server):
    return server.client(region=HOME)


@pytest.fixture
def away(server):
    return server.client(region=AWAY)


@pytest.fixture
def drills(server):
    """Replication settings a test changes, put back after it."""
    yield lambda body: admin(server, "POST", "/okura/replication", body)
    for region in admin(server, "GET", "/okura/replication")["paused"]:
        admin(server, "POST", "/okura/replication", {"resume": region})
    admin(server, "POST", "/okura/replication", {"delay": 0})


def failure(call, **request) -> tuple[str, str]:
    with pytest.raises(ClientError) as caught:
        call(**request)
    return error_of(caught)


def regional(client, **extra) -> str:
    name = unique_name()
    client.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                        BillingMode="PAY_PER_REQUEST", **extra)
    return name


def wait_active(client, name: str) -> dict:
    """The table's description once it and all its replicas are ACTIVE (a copy job runs
    in the background)."""
    deadline = time.monotonic() + 60
    while True:
        table = client.describe_table(TableName=name)["Table"]
        if table["TableStatus"] == "ACTIVE" and all(
                replica["ReplicaStatus"] == "ACTIVE" for replica in table.get("Replicas", ())):
            return table
        assert time.monotonic() < deadline, table
        time.sleep(0.05)


def global_table(home, away, **extra) -> str:
    name = regional(home, **extra)
    home.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": AWAY}}])
    wait_active(away, name)
    wait_active(home, name)
    return name


def item(client, name: str, pk: str) -> dict | None:
    return client.get_item(TableName=name, Key={"pk": {"S": pk}},
                           ConsistentRead=True).get("Item")


def test_a_replica_gets_the_items_already_there(server, home, away):
    name = regional(home)
    for i in range(300):
        home.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}})
    reply = home.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": AWAY}}])
    described = reply["TableDescription"]
    assert described["TableStatus"] == "UPDATING"
    assert described["GlobalTableVersion"] == "2019.11.21"
    # no stream before: DynamoDB turns one on, as replication needs
    assert described["StreamSpecification"] == {"StreamEnabled": True,
                                                "StreamViewType": "NEW_AND_OLD_IMAGES"}
    there = wait_active(away, name)
    assert there["ItemCount"] == 300
    assert there["GlobalTableVersion"] == "2019.11.21"
    assert there["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert there["LatestStreamArn"].startswith(f"arn:aws:dynamodb:{AWAY}:")
    assert [r["RegionName"] for r in there["Replicas"]] == [HOME]
    here = wait_active(home, name)
    assert here["Replicas"] == [{
        "RegionName": AWAY, "ReplicaStatus": "ACTIVE",
        "ReplicaArn": f"arn:aws:dynamodb:{AWAY}:000000000000:table/{name}",
        "ReplicaTableClassSummary": {"TableClass": "STANDARD"}}]
    assert item(away, name, "k299") == {"pk": {"S": "k299"}, "n": {"N": "299"}}


def test_writes_reach_the_other_region_both_ways(server, home, away):
    name = global_table(home, away)
    home.put_item(TableName=name, Item={"pk": {"S": "a"}, "from": {"S": HOME}})
    away.put_item(TableName=name, Item={"pk": {"S": "b"}, "from": {"S": AWAY}})
    home.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET n = :n",
                     ExpressionAttributeValues={":n": {"N": "1"}})
    away.put_item(TableName=name, Item={"pk": {"S": "gone"}})
    admin(server, "POST", "/okura/settle")
    away.delete_item(TableName=name, Key={"pk": {"S": "gone"}})
    home.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": {"pk": {"S": "t1"}}}},
        {"Put": {"TableName": name, "Item": {"pk": {"S": "t2"}}}}])
    admin(server, "POST", "/okura/settle")
    for client in (home, away):
        assert item(client, name, "a") == {"pk": {"S": "a"}, "from": {"S": HOME}, "n": {"N": "1"}}
        assert item(client, name, "b") == {"pk": {"S": "b"}, "from": {"S": AWAY}}
        assert item(client, name, "gone") is None
        assert item(client, name, "t1") and item(client, name, "t2")


def test_the_last_writer_wins_a_conflict(server, home, away, drills):
    name = global_table(home, away)
    home.put_item(TableName=name, Item={"pk": {"S": "z"}})
    admin(server, "POST", "/okura/settle")
    drills({"pause": AWAY})
    drills({"pause": HOME})
    # the same items written in both regions before either write reached the other
    home.put_item(TableName=name, Item={"pk": {"S": "x"}, "v": {"S": "home first"}})
    away.put_item(TableName=name, Item={"pk": {"S": "y"}, "v": {"S": "away first"}})
    away.put_item(TableName=name, Item={"pk": {"S": "z"}, "v": {"S": "away first"}})
    time.sleep(0.002)  # the writes below are later: their timestamps are
    away.put_item(TableName=name, Item={"pk": {"S": "x"}, "v": {"S": "away last"}})
    home.put_item(TableName=name, Item={"pk": {"S": "y"}, "v": {"S": "home last"}})
    home.delete_item(TableName=name, Key={"pk": {"S": "z"}})
    assert item(home, name, "x")["v"] == {"S": "home first"}
    assert item(away, name, "z")["v"] == {"S": "away first"}
    drills({"resume": AWAY})
    drills({"resume": HOME})
    admin(server, "POST", "/okura/settle")
    for client in (home, away):
        assert item(client, name, "x") == {"pk": {"S": "x"}, "v": {"S": "away last"}}
        assert item(client, name, "y") == {"pk": {"S": "y"}, "v": {"S": "home last"}}
        assert item(client, name, "z") is None


def test_index_entries_and_the_stream_follow(server, home, away):
    name = unique_name()
    home.create_table(TableName=name, KeySchema=HASH, BillingMode="PAY_PER_REQUEST",
                      AttributeDefinitions=[*PK, {"AttributeName": "g", "AttributeType": "S"}],
                      GlobalSecondaryIndexes=[{
                          "IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                          "Projection": {"ProjectionType": "ALL"}}])
    home.put_item(TableName=name, Item={"pk": {"S": "old"}, "g": {"S": "G"}})
    home.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": AWAY}}])
    there = wait_active(away, name)
    home.put_item(TableName=name, Item={"pk": {"S": "new"}, "g": {"S": "G"}})
    admin(server, "POST", "/okura/settle")
    found = away.query(TableName=name, IndexName="byg", KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": {"S": "G"}})
    assert sorted(i["pk"]["S"] for i in found["Items"]) == ["new", "old"]
    streams = server.client("dynamodbstreams", region=AWAY)
    arn = there["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    records = streams.get_records(ShardIterator=iterator)["Records"]
    # the replica's stream carries the writes it received, each once
    inserted = [r["dynamodb"]["Keys"]["pk"]["S"] for r in records if r["eventName"] == "INSERT"]
    assert inserted.count("new") == 1
    assert records[-1]["dynamodb"]["NewImage"] == {"pk": {"S": "new"}, "g": {"S": "G"}}


def test_a_delay_holds_writes_back_on_the_clock(clocked):  # noqa: F811
    # a server of its own: its clock moves forward for good, and other tests share `server`
    server = clocked()
    home, away = server.client(region=HOME), server.client(region=AWAY)
    name = global_table(home, away)
    admin(server, "POST", "/okura/replication", {"delay": 30, "table": name})
    home.put_item(TableName=name, Item={"pk": {"S": "late"}})
    assert admin(server, "POST", "/okura/settle") == {"applied": 0, "settled": 0}  # not due yet
    assert item(away, name, "late") is None
    admin(server, "POST", "/okura/clock", {"advance": 31})
    deadline = time.monotonic() + 30
    while item(away, name, "late") is None:
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_replication_latency_is_published(server, home, away):
    name = global_table(home, away)
    home.put_item(TableName=name, Item={"pk": {"S": "m"}})
    admin(server, "POST", "/okura/settle")
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request("GET", "/metrics")
    page = connection.getresponse().read().decode()
    connection.close()
    assert (f'aws_dynamodb_replication_latency_sample_count{{job="aws_dynamodb",instance="",'
            f'table_name="{name}",receiving_region="{AWAY}",region="{HOME}"}}') in page


def test_a_replica_leaves_by_update_table_or_delete_table(server, home, away):
    name = global_table(home, away)
    home.update_table(TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": AWAY}}])
    assert failure(away.describe_table, TableName=name)[0] == "ResourceNotFoundException"
    assert home.describe_table(TableName=name)["Table"]["Replicas"] == []
    home.put_item(TableName=name, Item={"pk": {"S": "alone"}})  # logs for nobody
    admin(server, "POST", "/okura/settle")
    # added again, then deleted in its own region
    home.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": AWAY}}])
    assert wait_active(away, name)["ItemCount"] == 1
    away.delete_table(TableName=name)
    assert home.describe_table(TableName=name)["Table"]["Replicas"] == []


def test_replica_updates_rules(server, home, away):
    name = regional(home)
    create = [{"Create": {"RegionName": AWAY}}]
    assert failure(home.update_table, TableName=name, ReplicaUpdates=create,
                   DeletionProtectionEnabled=True) == (
        "ValidationException", "One or more parameter values were invalid: Replica "
        "modification must be the only operation in the request")
    assert failure(home.update_table, TableName=name, ReplicaUpdates=[
            {"Create": {"RegionName": AWAY}}, {"Create": {"RegionName": "ap-south-1"}}]) == (
        "ValidationException",
        "Update table operation with more than one create or delete replica actions not allowed")
    assert failure(home.update_table, TableName=name, ReplicaUpdates=[
            {"Create": {"RegionName": AWAY}, "Delete": {"RegionName": AWAY}}]) == (
        "ValidationException",
        "Update table operation with more than one type of replica actions not allowed.")
    assert failure(home.update_table, TableName=name, ReplicaUpdates=[
            {"Update": {"RegionName": AWAY}}]) == (
        "ValidationException",
        "There are no actions specified in the Replica Update Action of the request.")
    assert failure(home.update_table, TableName=name, ReplicaUpdates=[
            {"Create": {"RegionName": HOME}}]) == (
        "ValidationException", "Cannot add or delete the local region through ReplicaUpdates. "
        "Use CreateTable, DeleteTable, or UpdateTable as required.")
    assert failure(home.update_table, TableName=name, ReplicaUpdates=[
            {"Delete": {"RegionName": AWAY}}]) == (
        "ValidationException", "Update global table operation failed because one or more "
        "replicas were not part of the global table. Please retry the request without these "
        f"replicas: [{AWAY}].")
    # a table of that name in the other region already
    away.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                      BillingMode="PAY_PER_REQUEST")
    assert failure(home.update_table, TableName=name, ReplicaUpdates=create) == (
        "ValidationException", f"Failed to create a the new replica of table with name: "
        f"\u2018{name}\u2019 because one or more replicas already existed as tables.")
    provisioned = unique_name()
    home.create_table(TableName=provisioned, KeySchema=HASH, AttributeDefinitions=PK,
                      ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert failure(home.update_table, TableName=provisioned, ReplicaUpdates=create) == (
        "ValidationException", "Table write capacity should either be Pay-Per-Request or "
        "AutoScaled.")


def test_what_a_replica_refuses(server, home, away):
    name = global_table(home, away)
    assert failure(home.update_table, TableName=name, StreamSpecification={
        "StreamEnabled": False}) == (
        "ValidationException", "One or more parameter values were invalid: Disabling Stream "
        "is not allowed for a Global Table replica.")
    assert failure(home.update_table, TableName=name, ReplicaUpdates=[
            {"Create": {"RegionName": AWAY}}]) == (
        "ValidationException", f"Failed to create a the new replica of table with name: "
        f"\u2018{name}\u2019 because one or more replicas already existed as tables.")
    away.update_table(TableName=name, DeletionProtectionEnabled=True)
    assert failure(home.update_table, TableName=name, ReplicaUpdates=[
            {"Delete": {"RegionName": AWAY}}]) == (
        "ValidationException", f"Cannot delete table {name} in region {AWAY} because it has "
        "deletion protection enabled. Disable deletion protection first.")
    away.update_table(TableName=name, DeletionProtectionEnabled=False)


def test_overrides_are_described(server, home, away):
    name = regional(home)
    home.update_table(TableName=name, ReplicaUpdates=[{"Create": {
        "RegionName": AWAY, "TableClassOverride": "STANDARD_INFREQUENT_ACCESS",
        "OnDemandThroughputOverride": {"MaxReadRequestUnits": 50}}}])
    replica = wait_active(home, name)["Replicas"][0]
    assert replica["OnDemandThroughputOverride"] == {"MaxReadRequestUnits": 50}
    assert replica["ReplicaTableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    there = away.describe_table(TableName=name)["Table"]
    assert there["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert there["OnDemandThroughput"]["MaxReadRequestUnits"] == 50
    home.update_table(TableName=name, ReplicaUpdates=[{"Update": {
        "RegionName": AWAY, "OnDemandThroughputOverride": {"MaxReadRequestUnits": 70}}}])
    replica = wait_active(home, name)["Replicas"][0]
    assert replica["OnDemandThroughputOverride"] == {"MaxReadRequestUnits": 70}


def test_an_evacuated_region_catches_up(server, home, away, drills):
    name = global_table(home, away)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.request("POST", "/okura/faults", json.dumps(
            {"region": AWAY, "error": "ServiceUnavailable"}),
            {"Content-Type": "application/json"})
        assert connection.getresponse().read()
        drills({"pause": AWAY})
        # the region is down: its requests fail as in an outage, and nothing reaches it
        assert failure(away.get_item, TableName=name, Key={"pk": {"S": "a"}})[0] == \
            "ServiceUnavailable"
        for i in range(30):  # the application writes to the region left
            home.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}})
        home.delete_item(TableName=name, Key={"pk": {"S": "k0"}})
        connection.request("DELETE", "/okura/faults")
        assert connection.getresponse().read()
    finally:
        connection.close()
    assert item(away, name, "k1") is None
    drills({"resume": AWAY})
    admin(server, "POST", "/okura/settle")
    assert away.scan(TableName=name, Select="COUNT", ConsistentRead=True)["Count"] == 29
    assert item(away, name, "k29") == {"pk": {"S": "k29"}, "n": {"N": "29"}}
