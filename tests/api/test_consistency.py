"""--consistency eventual (docs/consistency.md): what reads that do not ask for the
latest may miss, through boto3, on every backend.

The servers here draw delays of up to MAX_DELAY seconds from a fixed seed: the least of
its first 400 draws is about 29 s, so a read right after a write always falls inside its
delay, and moving the clock past MAX_DELAY shows everything."""
from __future__ import annotations

import contextlib

import pytest
from botocore.exceptions import ClientError

from conftest import BACKENDS, Server, error_of, new_database, unique_name

MAX_DELAY = 1e6
SEED = "7"


@pytest.fixture(scope="module", params=BACKENDS)
def eventual(request, tmp_path_factory):
    args = ("--consistency", "eventual", "--consistency-max-delay", str(MAX_DELAY),
            "--consistency-seed", SEED)
    with contextlib.ExitStack() as databases:
        if request.param == "postgres":
            # a database of its own: moving this server's clock moves every node's on it
            instance = Server("--postgres", databases.enter_context(new_database()), *args)
        elif request.param == "memory":
            instance = Server(*args)
        else:
            instance = Server(*args, data_dir=str(tmp_path_factory.mktemp("okura-eventual")))
        yield instance
        instance.stop()


def indexed_table(ddb) -> str:
    """A table (pk S, sk N) with a global secondary index on (g S, sk N)."""
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t}
                              for n, t in (("pk", "S"), ("sk", "N"), ("g", "S"))],
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                          {"AttributeName": "sk", "KeyType": "RANGE"}]}])
    return name


def item(sk: int, g: str = "a", v: int = 1) -> dict:
    return {"pk": {"S": "p"}, "sk": {"N": str(sk)}, "g": {"S": g}, "v": {"N": str(v)}}


def on_index(ddb, name: str, g: str = "a", **extra) -> list[int]:
    found = ddb.query(TableName=name, IndexName="by-g", KeyConditionExpression="g = :g",
                      ExpressionAttributeValues={":g": {"S": g}}, **extra)
    return [int(i["sk"]["N"]) for i in found["Items"]]


def test_a_gsi_misses_a_fresh_write_until_settled(eventual):
    ddb = eventual.client()
    name = indexed_table(ddb)
    ddb.put_item(TableName=name, Item=item(1))
    assert on_index(ddb, name) == []
    status, reply = eventual.admin("POST", "settle")
    assert status == 200 and reply["settled"] >= 1
    assert on_index(ddb, name) == [1]


def test_a_gsi_finds_a_write_once_the_clock_passes_the_maximum(eventual):
    ddb = eventual.client()
    name = indexed_table(ddb)
    ddb.put_item(TableName=name, Item=item(1))
    assert on_index(ddb, name) == []
    eventual.admin("POST", "clock", {"advance": MAX_DELAY})
    assert on_index(ddb, name) == [1]


def test_eventual_reads_may_see_the_item_before_its_overwrite_consistent_never(eventual):
    ddb = eventual.client()
    name = indexed_table(ddb)
    key = {"pk": {"S": "p"}, "sk": {"N": "1"}}
    ddb.put_item(TableName=name, Item=item(1, v=1))
    eventual.admin("POST", "settle")
    ddb.put_item(TableName=name, Item=item(1, g="b", v=2))

    def v(found: dict) -> int:
        return int(found["v"]["N"])

    assert v(ddb.get_item(TableName=name, Key=key)["Item"]) == 1
    assert v(ddb.get_item(TableName=name, Key=key, ConsistentRead=True)["Item"]) == 2
    assert [v(i) for i in ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                                    ExpressionAttributeValues={":p": {"S": "p"}})["Items"]] == [1]
    assert [v(i) for i in ddb.query(TableName=name, KeyConditionExpression="pk = :p",
                                    ExpressionAttributeValues={":p": {"S": "p"}},
                                    ConsistentRead=True)["Items"]] == [2]
    assert [v(i) for i in ddb.scan(TableName=name)["Items"]] == [1]
    batch = ddb.batch_get_item(RequestItems={name: {"Keys": [key]}})
    assert [v(i) for i in batch["Responses"][name]] == [1]
    selected = ddb.execute_statement(Statement=f'SELECT * FROM "{name}" WHERE pk = \'p\'')
    assert [v(i) for i in selected["Items"]] == [1]
    # the index still holds the entry under the old g, not yet the one under the new
    assert (on_index(ddb, name, "a"), on_index(ddb, name, "b")) == ([1], [])
    # transactions and conditions see the latest
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": name, "Key": key}}])
    assert v(got["Responses"][0]["Item"]) == 2
    ddb.put_item(TableName=name, Item=item(1, g="b", v=3), ConditionExpression="v = :two",
                 ExpressionAttributeValues={":two": {"N": "2"}})
    with pytest.raises(ClientError) as refused:
        ddb.query(TableName=name, IndexName="by-g", KeyConditionExpression="g = :g",
                  ExpressionAttributeValues={":g": {"S": "b"}}, ConsistentRead=True)
    assert error_of(refused) == (
        "ValidationException", "Consistent reads are not supported on global secondary indexes")
    eventual.admin("POST", "settle")
    assert v(ddb.get_item(TableName=name, Key=key)["Item"]) == 3
    assert (on_index(ddb, name, "a"), on_index(ddb, name, "b")) == ([], [1])


def test_deleted_and_new_items_page_by_page(eventual):
    """Eventual Query pages by Limit over what an eventual reader sees: a deleted item
    still there, a new one not yet, an item moved within the index at its old place."""
    ddb = eventual.client()
    name = indexed_table(ddb)
    for sk in range(1, 6):
        ddb.put_item(TableName=name, Item=item(sk))
    eventual.admin("POST", "settle")
    ddb.delete_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"N": "3"}})
    ddb.put_item(TableName=name, Item=item(6))
    ddb.put_item(TableName=name, Item=item(2, g="b"))
    reads = [dict(KeyConditionExpression="pk = :k", ExpressionAttributeValues={":k": {"S": "p"}},
                  ScanIndexForward=forward) for forward in (True, False)]
    reads += [dict(IndexName="by-g", KeyConditionExpression="g = :k",
                   ExpressionAttributeValues={":k": {"S": "a"}}, ScanIndexForward=forward)
              for forward in (True, False)]
    scans = [("scan", {}), ("scan", {"IndexName": "by-g"})]
    for how, asked in [("query", r) for r in reads] + scans:
        seen: list[int] = []
        start: dict = {}
        while True:
            page = getattr(ddb, how)(TableName=name, Limit=2, **asked, **start)
            seen += [int(i["sk"]["N"]) for i in page["Items"]]
            if "LastEvaluatedKey" not in page:
                break
            start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}
        expected = [1, 2, 3, 4, 5]
        assert seen == (expected if asked.get("ScanIndexForward", True) else expected[::-1]), asked
    eventual.admin("POST", "settle")
    assert on_index(ddb, name, "a") == [1, 4, 5, 6]


def test_pending_writes_on_metrics_and_the_consistency_endpoint(eventual):
    ddb = eventual.client()
    eventual.admin("POST", "settle")
    name = indexed_table(ddb)
    ddb.put_item(TableName=name, Item=item(1))
    ddb.put_item(TableName=name, Item=item(2))
    status, state = eventual.admin("GET", "consistency")
    assert status == 200 and state["mode"] == "eventual" and state["seed"] == int(SEED)
    mine = {p["IndexName"]: p["Writes"] for p in state["pending"] if p["TableName"] == name}
    assert mine == {None: 2, "by-g": 2}
    import urllib.request
    with urllib.request.urlopen(f"{eventual.url}/metrics") as reply:
        text = reply.read().decode()
    assert (f'okura_consistency_pending_writes{{table_name="{name}",index="by-g",'
            f'region="us-east-1"}} 2.0') in text
    eventual.admin("POST", "settle")
    assert not [p for p in eventual.admin("GET", "consistency")[1]["pending"]
                if p["TableName"] == name]


def test_one_table_eventual_on_a_strong_server(server):
    ddb = server.client()
    lagging, plain = indexed_table(ddb), indexed_table(ddb)
    # delays of hours from a known seed: a read right after the write is inside its delay
    status, state = server.admin("POST", "consistency", {"table": lagging, "mode": "eventual",
                                                         "seed": 7, "maxDelay": MAX_DELAY})
    assert status == 200 and state["mode"] == "strong" and state["tables"] == {lagging: "eventual"}
    assert (state["seed"], state["maxDelay"]) == (7, MAX_DELAY)
    try:
        for name in (lagging, plain):
            ddb.put_item(TableName=name, Item=item(1))
        assert (on_index(ddb, lagging), on_index(ddb, plain)) == ([], [1])
    finally:
        status, state = server.admin("POST", "consistency", {"table": lagging, "mode": None,
                                                             "maxDelay": 2})
    assert state["tables"] == {}
    assert on_index(ddb, lagging) == [1]  # strong again: the latest at once


def test_the_consistency_endpoint_refuses_what_it_does_not_know(server):
    assert server.admin("POST", "consistency", {"mode": "sometimes"}) == (
        400, {"error": '"mode" must be one of strong, eventual'})
    assert server.admin("POST", "consistency", {"table": 3, "mode": "strong"}) == (
        400, {"error": '"table" must be a table name'})
    assert server.admin("POST", "consistency", {"seed": -1}) == (
        400, {"error": '"seed" must be a non-negative whole number'})
    assert server.admin("POST", "consistency", {"maxDelay": "long"}) == (
        400, {"error": '"maxDelay" must be a non-negative number of seconds'})
    assert server.admin("GET", "settle")[0] == 405


def test_stream_records_are_readable_once_their_write_is_visible(eventual):
    ddb = eventual.client()
    name = unique_name()
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    streams = eventual.client("dynamodbstreams")
    arn = ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    first = streams.get_records(ShardIterator=iterator)
    assert first["Records"] == []
    eventual.admin("POST", "settle")
    second = streams.get_records(ShardIterator=first["NextShardIterator"])
    assert [r["dynamodb"]["Keys"] for r in second["Records"]] == [{"pk": {"S": "a"}}]
