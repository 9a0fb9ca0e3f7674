"""Two okura nodes over one PostgreSQL database behave as one DynamoDB (issue 6):
concurrent writes through both lose nothing, a conditional put has one winner, a
transaction conflict is reported as DynamoDB reports it, tables created, changed
and deleted through one node are seen at once by the other, stream records come out
once each in per-item order, and one node at a time sweeps TTL (a lease in the
database, taken over when its holder dies)."""
from __future__ import annotations

import asyncio
import json
import signal
import socket
import threading
import time
import urllib.request

import asyncpg
import pytest
from botocore.exceptions import ClientError
from conftest import Server, error_of, new_database, unique_name
from test_streams import read_all, stream_table

from okura.core import leases

HOUR = 3600
TTL_LEASE_TIME = 30  # seconds: the sweeper's lease at the --ttl-interval used here


@pytest.fixture(scope="module")
def database():
    with new_database() as url:
        yield url


def start(url: str) -> Server:
    return Server("--postgres", url, "--ttl-interval", "0.05")


@pytest.fixture(scope="module")
def nodes(database):
    """[node A, node B]; a test that kills one puts a fresh node in its place."""
    started = [start(database), start(database)]
    yield started
    for node in started:
        node.stop()


@pytest.fixture(scope="module")
def clients(nodes):
    return [node.client() for node in nodes]


def in_threads(*work) -> list:
    """Run each callable in its own thread, released together; their results, once every
    thread has ended. No join is bounded: a bounded one returned with a thread still
    running, its result still the initial None, and under load the counter test below read
    1,997 of 2,000 increments, the rest still to come. A hang is the test timeout's to end;
    daemon threads then keep no test run from exiting."""
    barrier = threading.Barrier(len(work))
    results: list = [None] * len(work)

    def run(i, job):
        barrier.wait()
        try:
            results[i] = job()
        except Exception as failure:  # noqa: BLE001 - the test inspects it
            results[i] = failure

    threads = [threading.Thread(target=run, args=(i, job), daemon=True)
               for i, job in enumerate(work)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def hash_table(ddb, **extra) -> str:
    name = unique_name()
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           *extra.pop("attributes", [])], **extra)
    return name


def clock(node, advance: float | None = None) -> dict:
    data = None if advance is None else json.dumps({"advance": advance}).encode()
    with urllib.request.urlopen(urllib.request.Request(
            f"{node.url}/okura/clock", data=data, method="GET" if data is None else "POST",
            headers={"Content-Type": "application/json"}),
            timeout=10) as reply:
        return json.loads(reply.read())


def eventually(condition, timeout: float = 10.0, what: str = "the condition"):
    deadline = time.monotonic() + timeout
    while not (found := condition()):
        assert time.monotonic() < deadline, f"{what} did not hold in {timeout}s"
        time.sleep(0.02)
    return found


def racing_clients(nodes, count: int = 8) -> list:
    """`count` clients, by turns of each node (one per thread: botocore clients are not
    shared)."""
    return [nodes[i % len(nodes)].client() for i in range(count)]


def assert_serving(nodes) -> None:
    """Every node still runs, answers, and logged no failure (issue 37: under the race
    below both processes of the compiled build died, their logs ending in tracebacks)."""
    for node in nodes:
        assert node.process.poll() is None, node.log_text()
        assert "TableNames" in node.client().list_tables()
        log = node.log_text()
        assert "Traceback" not in log and " ERROR " not in log, log


def test_counter_incremented_through_both_nodes_ends_exact(nodes):
    """8 clients add 1, 250 times each, through both nodes: 2,000 (issue 37's race)."""
    name = hash_table(nodes[0].client())
    per_client = 250

    def increments(ddb):
        def run():
            for _ in range(per_client):
                ddb.update_item(TableName=name, Key={"pk": {"S": "c"}},
                                UpdateExpression="ADD n :one",
                                ExpressionAttributeValues={":one": {"N": "1"}})
        return run

    results = in_threads(*(increments(ddb) for ddb in racing_clients(nodes)))
    assert results == [None] * 8
    for node in nodes:
        item = node.client().get_item(TableName=name, Key={"pk": {"S": "c"}},
                                      ConsistentRead=True)
        assert item["Item"]["n"] == {"N": str(8 * per_client)}
    assert_serving(nodes)


def test_conditional_puts_through_both_nodes_have_one_winner_per_key(nodes):
    """8 clients race a put with attribute_not_exists(pk) on each of 40 keys through
    both nodes: one wins each key, every other is refused as DynamoDB refuses it, both
    nodes see the winner's item and serve on."""
    name = hash_table(nodes[0].client())
    keys = [f"k{i}" for i in range(40)]

    def puts(ddb, writer: str):
        def run() -> list:
            outcomes = []
            for key in keys:
                try:
                    ddb.put_item(TableName=name, Item={"pk": {"S": key}, "writer": {"S": writer}},
                                 ConditionExpression="attribute_not_exists(pk)")
                    outcomes.append(writer)
                except ClientError as failure:
                    outcomes.append(failure.response["Error"])
            return outcomes
        return run

    results = in_threads(*(puts(ddb, f"w{i}") for i, ddb in enumerate(racing_clients(nodes))))
    assert all(isinstance(result, list) for result in results), results
    refused = {"Code": "ConditionalCheckFailedException",
               "Message": "The conditional request failed"}
    winners = {}
    for key, outcomes in zip(keys, zip(*results)):
        won = [outcome for outcome in outcomes if outcome != refused]
        assert len(won) == 1 and isinstance(won[0], str), (key, outcomes)
        winners[key] = won[0]
    for node in nodes:
        got = node.client().batch_get_item(RequestItems={name: {
            "Keys": [{"pk": {"S": key}} for key in keys], "ConsistentRead": True}})
        assert {item["pk"]["S"]: item["writer"]["S"]
                for item in got["Responses"][name]} == winners
    assert_serving(nodes)


def test_transaction_conflict_across_nodes_is_reported_as_dynamodb_does(nodes):
    name = hash_table(nodes[0].client())
    keys = ["x", "y"]
    actions = [{"Update": {"TableName": name, "Key": {"pk": {"S": key}},
                           "UpdateExpression": "ADD n :one",
                           "ExpressionAttributeValues": {":one": {"N": "1"}}}} for key in keys]
    outcomes: list = []
    deadline = time.monotonic() + 20

    def transactions(node):
        ddb = node.client()

        def run():
            while time.monotonic() < deadline and not any(
                    isinstance(o, ClientError) for o in outcomes):
                try:
                    ddb.transact_write_items(TransactItems=actions)
                    outcomes.append("ok")
                except ClientError as failure:
                    outcomes.append(failure)
        return run

    in_threads(transactions(nodes[0]), transactions(nodes[1]))
    conflicts = [o for o in outcomes if isinstance(o, ClientError)]
    assert conflicts, "two nodes running transactions on the same items never conflicted"
    conflict_reason = {"Code": "TransactionConflict",
                       "Message": "Transaction is ongoing for the item"}
    for failure in conflicts:
        reasons = failure.response["CancellationReasons"]
        assert conflict_reason in reasons and all(
            r in (conflict_reason, {"Code": "None"}) for r in reasons), reasons
        codes = ", ".join(r["Code"] for r in reasons)
        assert failure.response["Error"] == {
            "Code": "TransactionCanceledException",
            "Message": "Transaction cancelled, please refer cancellation reasons for specific "
                       f"reasons [{codes}]"}
    # A cancelled transaction wrote nothing; every one that succeeded wrote both items.
    done = outcomes.count("ok")
    for key in keys:
        item = nodes[1].client().get_item(TableName=name, Key={"pk": {"S": key}},
                                          ConsistentRead=True).get("Item")
        assert (item or {}).get("n", {"N": "0"}) == {"N": str(done)}


def test_table_created_through_one_node_is_served_at_once_by_the_other(clients):
    a, b = clients
    name = hash_table(a)
    b.put_item(TableName=name, Item={"pk": {"S": "k"}})
    assert b.describe_table(TableName=name)["Table"]["TableName"] == name
    assert a.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"] == {"pk": {"S": "k"}}
    assert name in b.list_tables()["TableNames"]


def test_table_deleted_through_one_node_is_not_found_through_the_other(clients):
    a, b = clients
    name = hash_table(a)
    b.put_item(TableName=name, Item={"pk": {"S": "k"}})  # node B now has it cached
    a.delete_table(TableName=name)
    not_found = ("ResourceNotFoundException", "Requested resource not found")
    with pytest.raises(ClientError) as write:
        b.put_item(TableName=name, Item={"pk": {"S": "k"}})
    assert error_of(write) == not_found
    with pytest.raises(ClientError) as read:
        b.get_item(TableName=name, Key={"pk": {"S": "k"}})
    assert error_of(read) == not_found
    assert name not in b.list_tables()["TableNames"]


def test_stream_records_of_writes_through_both_nodes_come_once_each_in_item_order(
        nodes, clients):
    name, arn = stream_table(clients[0])
    keys, per_writer = ["p", "q", "r"], 10

    def writer(node):
        ddb = node.client()

        def run():
            for i in range(per_writer):
                ddb.update_item(TableName=name, Key={"pk": {"S": keys[i % len(keys)]}},
                                UpdateExpression="ADD v :one",
                                ExpressionAttributeValues={":one": {"N": "1"}})
        return run

    writers = nodes * 2
    assert in_threads(*(writer(node) for node in writers)) == [None] * len(writers)
    streams = nodes[1].client("dynamodbstreams")
    records = read_all(streams, arn)
    assert len(records) == len(writers) * per_writer
    sequence = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert sequence == sorted(set(sequence))  # once each, in order
    for key in keys:
        versions = [int(r["dynamodb"]["NewImage"]["v"]["N"]) for r in records
                    if r["dynamodb"]["Keys"]["pk"]["S"] == key]
        # Each record's image is one more than the one before: per-item order.
        assert versions == list(range(1, len(versions) + 1))


def test_tokens_one_node_hands_out_are_taken_by_the_other(nodes, clients):
    """Tokens are sealed with a secret kept in the database, made once for every node."""
    name, arn = stream_table(clients[0])
    clients[0].put_item(TableName=name, Item={"pk": {"S": "a"}})
    clients[0].put_item(TableName=name, Item={"pk": {"S": "b"}})
    one, two = (node.client("dynamodbstreams") for node in nodes)
    shard = one.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = one.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                      ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    assert len(two.get_records(ShardIterator=iterator)["Records"]) == 2
    page = clients[0].execute_statement(Statement=f'SELECT * FROM "{name}"', Limit=1)
    rest = clients[1].execute_statement(Statement=f'SELECT * FROM "{name}"',
                                        NextToken=page["NextToken"])
    assert len(page["Items"] + rest["Items"]) == 2


def test_index_created_through_one_node_while_the_other_writes_ends_complete(nodes):
    a, b = nodes[0].client(), nodes[1].client()
    name = hash_table(a)
    for i in range(600):  # more than two backfill chunks
        a.put_item(TableName=name, Item={"pk": {"S": f"i{i}"}, "g": {"S": f"g{i % 7}"}})
    stop = threading.Event()
    written: list[int] = []
    failures: list[Exception] = []

    def write_through_b():
        ddb = nodes[1].client()
        i = 0
        try:
            while not stop.is_set():
                # New items, and old ones moved to another index key.
                ddb.put_item(TableName=name, Item={"pk": {"S": f"i{i % 900}"},
                                                   "g": {"S": f"h{i % 5}"}})
                written.append(i)
                i += 1
        except Exception as failure:  # noqa: BLE001 - a write refused during the backfill fails the test
            failures.append(failure)

    thread = threading.Thread(target=write_through_b)
    thread.start()
    try:
        a.update_table(TableName=name, AttributeDefinitions=[
            {"AttributeName": "g", "AttributeType": "S"}], GlobalSecondaryIndexUpdates=[{
                "Create": {"IndexName": "by-g",
                           "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                           "Projection": {"ProjectionType": "ALL"}}}])

        def active():
            # DescribeTable is eventually consistent (DynamoDB's documentation says so):
            # node B may answer from its cache until A's change notice reaches it.
            indexes = b.describe_table(TableName=name)["Table"].get("GlobalSecondaryIndexes")
            return indexes is not None and indexes[0]["IndexStatus"] == "ACTIVE"

        eventually(active, 30, "the index becoming ACTIVE")
    finally:
        stop.set()
        thread.join()  # its last write done before the comparisons below
    assert failures == []
    assert len(written) > 0

    def everything(ddb, **index) -> dict:
        found = {}
        for page in ddb.get_paginator("scan").paginate(TableName=name, **index):
            for item in page["Items"]:
                assert item["pk"]["S"] not in found, "an item indexed twice"
                found[item["pk"]["S"]] = item
        return found

    assert everything(a, IndexName="by-g") == everything(b)


def test_one_node_sweeps_ttl_at_a_time_and_the_other_takes_over_when_it_dies(
        database, nodes):
    a = nodes[0].client()
    name = hash_table(a)
    a.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    start_time = clock(nodes[0])["now"]
    for i in range(5):
        a.put_item(TableName=name, Item={"pk": {"S": f"e{i}"},
                                         "expires": {"N": str(int(start_time) + HOUR)}})
    # Moved through node A, the clock moves on node B too (within its refresh period).
    moved = clock(nodes[0], 2 * HOUR)["offset"]
    eventually(lambda: clock(nodes[1])["offset"] >= moved, 2, "node B following the clock")

    def remaining(ddb) -> int:
        return ddb.scan(TableName=name, ConsistentRead=True)["Count"]

    eventually(lambda: remaining(a) == 0, 10, "the sweep")

    holders = []
    for _ in range(10):  # while both run, the lease stays with one holder
        holders.append(asyncio.run(ttl_lease(database))["Holder"])
        time.sleep(0.05)
    assert len(set(holders)) == 1, holders

    # Kill the node holding the lease: the other takes over once the lease runs out.
    victim = next(i for i, node in enumerate(nodes) if holders[0] == node_of(node))
    nodes[victim].stop(signal.SIGKILL)
    survivor = nodes[1 - victim]
    ddb = survivor.client()
    ddb.put_item(TableName=name, Item={"pk": {"S": "late"},
                                       "expires": {"N": str(int(clock(survivor)["now"]) + 60)}})
    time.sleep(0.3)
    assert remaining(ddb) == 1  # the dead node's lease is still running: nobody sweeps
    clock(survivor, TTL_LEASE_TIME + 61)  # past the dead holder's lease and the item's TTL
    eventually(lambda: remaining(ddb) == 0, 10, "the sweep after the takeover")
    assert asyncio.run(ttl_lease(database))["Holder"] == node_of(survivor)
    nodes[victim] = start(database)  # for the tests that follow


async def ttl_lease(url: str) -> dict:
    """The sweeper's lease row, read from the database itself."""
    connection = await asyncpg.connect(url)
    try:
        doc = await connection.fetchval("SELECT doc FROM items WHERE tid=$1 AND hk=$2 AND rk=''",
                                        leases.LEASES, b"ttl")
        return json.loads(doc)
    finally:
        await connection.close()


def node_of(node: Server) -> str:
    """A node's name in lease rows: host and process id."""
    return f"{socket.gethostname()}:{node.process.pid}"
