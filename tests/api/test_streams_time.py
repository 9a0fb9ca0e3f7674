"""Streams over time, on servers whose clock the tests move: shard rollover with
lineage (a reader sees every record exactly once), iterator expiry, retention."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from conftest import error_of
from test_clock import advance, clocked  # noqa: F401 - clocked is a fixture
from test_streams import item, only_shard, read_all, read_shard, stream_table

HOUR = 3600


@pytest.fixture(scope="module")
def node(clocked):  # noqa: F811
    return clocked()


@pytest.fixture(scope="module")
def ddb(node):
    return node.client()


@pytest.fixture(scope="module")
def streams(node):
    return node.client("dynamodbstreams")


def test_rollover_keeps_lineage_and_every_record_once(node, ddb, streams):
    name, arn = stream_table(ddb)
    written = []
    for period in range(4):
        for n in range(3):
            key = f"p{period}-{n}"
            ddb.put_item(TableName=name, Item=item(key, v=period))
            written.append(key)
        advance(node, 4 * HOUR + 1)
    ddb.put_item(TableName=name, Item=item("last"))
    written.append("last")
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    assert len(shards) == 5
    for parent, child in zip(shards, shards[1:]):
        assert child["ParentShardId"] == parent["ShardId"]
        assert int(child["SequenceNumberRange"]["StartingSequenceNumber"]) == \
            int(parent["SequenceNumberRange"]["EndingSequenceNumber"]) + 1
    assert "EndingSequenceNumber" not in shards[-1]["SequenceNumberRange"]
    children = streams.describe_stream(StreamArn=arn, ShardFilter={
        "Type": "CHILD_SHARDS", "ShardId": shards[1]["ShardId"]})["StreamDescription"]["Shards"]
    assert children == [shards[2]]
    page = streams.describe_stream(StreamArn=arn, Limit=2)["StreamDescription"]
    assert page["Shards"] == shards[:2] and page["LastEvaluatedShardId"] == shards[1]["ShardId"]
    records = read_all(streams, arn)
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == written


def test_polling_reader_follows_the_rollover(node, ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a"))
    shard = only_shard(streams, arn)
    records, iterator = read_shard(streams, arn, shard)
    assert len(records) == 1 and iterator is not None
    for _ in range(24):  # four hours of polling every ten minutes
        advance(node, 10 * 60)
        reply = streams.get_records(ShardIterator=iterator)
        assert reply["Records"] == []
        iterator = reply["NextShardIterator"]
    ddb.put_item(TableName=name, Item=item("b"))  # rolls: lands in the child shard
    reply = streams.get_records(ShardIterator=iterator)
    assert reply["Records"] == [] and "NextShardIterator" not in reply
    child, = [s for s in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
              if s.get("ParentShardId") == shard]
    assert [r["dynamodb"]["Keys"]["pk"]["S"]
            for r in read_shard(streams, arn, child["ShardId"])[0]] == ["b"]


def test_iterators_expire_after_15_minutes(node, ddb, streams):
    name, arn = stream_table(ddb)
    shard = only_shard(streams, arn)
    fresh = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                       ShardIteratorType="LATEST")["ShardIterator"]
    advance(node, 14 * 60)
    following = streams.get_records(ShardIterator=fresh)["NextShardIterator"]
    advance(node, 2 * 60)
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=fresh)
    assert error_of(excinfo) == ("ExpiredIteratorException",
                                 "The provided iterator exceeds the maximum age allowed.")
    assert streams.get_records(ShardIterator=following)["Records"] == []


def test_records_age_out_after_24_hours(node, ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("old"))
    shard = only_shard(streams, arn)
    old, = read_shard(streams, arn, shard)[0]
    advance(node, 24 * HOUR - 60)
    ddb.put_item(TableName=name, Item=item("new"))  # rolls the shard
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_all(streams, arn)] == ["old", "new"]
    advance(node, 120)  # "old" is now past 24 hours; "new" is not
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_all(streams, arn)] == ["new"]
    shards = [s["ShardId"] for s in streams.describe_stream(
        StreamArn=arn)["StreamDescription"]["Shards"]]
    assert shard in shards  # closed a minute short of 24 hours ago: still listed, empty
    advance(node, 24 * HOUR)
    assert [s["ShardId"] for s in streams.describe_stream(
        StreamArn=arn)["StreamDescription"]["Shards"]] == shards[1:]


def test_trimmed_records_refuse_iterators_and_reads(node, ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("x"))
    ddb.put_item(TableName=name, Item=item("y"))
    shard = only_shard(streams, arn)
    first, second = read_shard(streams, arn, shard)[0]
    advance(node, 24 * HOUR - 5 * 60)
    at_first = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="AT_SEQUENCE_NUMBER",
        SequenceNumber=first["dynamodb"]["SequenceNumber"])["ShardIterator"]
    advance(node, 10 * 60)  # both records trimmed; the iterator is still fresh
    trimmed = ("TrimmedDataAccessException",
               "The data you are trying to access has been trimmed.")
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=at_first)
    assert error_of(excinfo) == trimmed
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                   ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                   SequenceNumber=first["dynamodb"]["SequenceNumber"])
    assert error_of(excinfo) == trimmed
    assert read_shard(streams, arn, shard)[0] == []  # TRIM_HORIZON: past the trimmed ones


def test_disabled_stream_disappears_after_24_hours(node, ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a"))
    ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    advance(node, 23 * HOUR)
    assert [s["StreamArn"] for s in streams.list_streams(TableName=name)["Streams"]] == [arn]
    advance(node, 2 * HOUR)
    assert streams.list_streams(TableName=name)["Streams"] == []
    with pytest.raises(ClientError) as excinfo:
        streams.describe_stream(StreamArn=arn)
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 f"Requested resource not found: Stream: {arn} not found")
