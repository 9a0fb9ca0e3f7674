"""DynamoDB Streams through boto3's dynamodbstreams client: the control plane's
StreamSpecification, ListStreams, DescribeStream, GetShardIterator, GetRecords and
the records every kind of write produces."""
from __future__ import annotations

import base64
import json
import time

import pytest
from botocore.exceptions import ClientError
from conftest import error_of, unique_name

KEY = [{"AttributeName": "pk", "KeyType": "HASH"}]


@pytest.fixture(scope="module")
def streams(server):
    return server.client("dynamodbstreams")


def stream_table(ddb, view: str = "NEW_AND_OLD_IMAGES") -> tuple[str, str]:
    """A new table with a stream: (table name, stream ARN)."""
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=KEY, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     StreamSpecification={"StreamEnabled": True, "StreamViewType": view})
    return name, ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]


def read_shard(streams, arn: str, shard_id: str, kind: str = "TRIM_HORIZON",
               limit: int = 1000) -> tuple[list[dict], str | None]:
    """Every record of one shard available now, and the iterator to continue with."""
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id,
                                          ShardIteratorType=kind)["ShardIterator"]
    records = []
    while iterator is not None:
        reply = streams.get_records(ShardIterator=iterator, Limit=limit)
        records += reply["Records"]
        iterator = reply.get("NextShardIterator")
        if not reply["Records"]:
            break
    return records, iterator


def read_all(streams, arn: str) -> list[dict]:
    """Every readable record of a stream, parents' shards before their children's,
    as a reader following DescribeStream's lineage sees them."""
    shards, after = [], None
    while True:
        page = streams.describe_stream(StreamArn=arn, **(
            {"ExclusiveStartShardId": after} if after else {}))["StreamDescription"]
        shards += page["Shards"]
        after = page.get("LastEvaluatedShardId")
        if after is None:
            break
    known = {shard["ShardId"] for shard in shards}
    records, done = [], set()
    while len(done) < len(shards):
        for shard in shards:
            parent = shard.get("ParentShardId")
            if shard["ShardId"] not in done and (parent is None or parent not in known
                                                 or parent in done):
                records += read_shard(streams, arn, shard["ShardId"])[0]
                done.add(shard["ShardId"])
    return records


def only_shard(streams, arn: str) -> str:
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    assert len(shards) == 1
    return shards[0]["ShardId"]


def item(pk: str, **attributes) -> dict:
    return {"pk": {"S": pk}, **{name: {"N": str(value)} for name, value in attributes.items()}}


@pytest.mark.parametrize("view", ["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"])
def test_records_per_view_type(ddb, streams, server, view):
    name, arn = stream_table(ddb, view)
    ddb.put_item(TableName=name, Item=item("a", v=1))
    ddb.put_item(TableName=name, Item=item("a", v=2))
    ddb.delete_item(TableName=name, Key={"pk": {"S": "a"}})
    records = read_all(streams, arn)
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    images = {"KEYS_ONLY": [(), (), ()],
              "NEW_IMAGE": [("NewImage",), ("NewImage",), ()],
              "OLD_IMAGE": [(), ("OldImage",), ("OldImage",)],
              "NEW_AND_OLD_IMAGES": [("NewImage",), ("NewImage", "OldImage"), ("OldImage",)]}
    expected_new = [item("a", v=1), item("a", v=2), None]
    expected_old = [None, item("a", v=1), item("a", v=2)]
    sequence = []
    for record, parts, new, old in zip(records, images[view], expected_new, expected_old):
        assert set(record) == {"awsRegion", "dynamodb", "eventID", "eventName", "eventSource",
                               "eventVersion"}
        assert record["awsRegion"] == "us-east-1"
        assert record["eventSource"] == "aws:dynamodb"
        assert record["eventVersion"] == "1.1"
        assert len(record["eventID"]) == 32
        data = record["dynamodb"]
        assert set(data) == {"ApproximateCreationDateTime", "Keys", "SequenceNumber",
                             "SizeBytes", "StreamViewType", *parts}
        assert data["Keys"] == {"pk": {"S": "a"}}
        assert data["StreamViewType"] == view
        assert data.get("NewImage") == (new if "NewImage" in parts else None)
        assert data.get("OldImage") == (old if "OldImage" in parts else None)
        sequence.append(int(data["SequenceNumber"]))
    assert sequence == sorted(sequence) and len(set(sequence)) == 3
    assert len({r["eventID"] for r in records}) == 3


def test_size_bytes_counts_keys_and_images(ddb, streams):
    name, arn = stream_table(ddb, "NEW_AND_OLD_IMAGES")
    ddb.put_item(TableName=name, Item={"pk": {"S": "ab"}, "name": {"S": "xyz"}})
    record, = read_all(streams, arn)
    # Keys: "pk" + "ab" = 4; NewImage: 4 + "name" + "xyz" = 11
    assert record["dynamodb"]["SizeBytes"] == 15


def test_writes_that_change_nothing_write_no_record(ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a", v=1, w=2))
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "w": {"N": "2.0"}, "v": {"N": "1"}})
    ddb.delete_item(TableName=name, Key={"pk": {"S": "absent"}})
    ddb.update_item(TableName=name, Key={"pk": {"S": "absent"}}, UpdateExpression="REMOVE v")
    ddb.update_item(TableName=name, Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})
    with pytest.raises(ClientError):
        ddb.put_item(TableName=name, Item=item("a", v=9), ConditionExpression="attribute_not_exists(pk)")
    assert [r["eventName"] for r in read_all(streams, arn)] == ["INSERT"]


def test_a_key_only_update_inserts_the_key_and_is_the_next_old_image(ddb, streams):
    name, arn = stream_table(ddb)
    key = {"pk": {"S": "k"}}
    ddb.update_item(TableName=name, Key=key)  # no update action: creates the key alone
    ddb.update_item(TableName=name, Key=key)  # the item is there: nothing changes
    ddb.update_item(TableName=name, Key=key, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "1"}})
    inserted, modified = read_all(streams, arn)
    assert inserted["eventName"] == "INSERT"
    assert inserted["dynamodb"]["NewImage"] == key and "OldImage" not in inserted["dynamodb"]
    assert modified["eventName"] == "MODIFY"
    assert modified["dynamodb"]["OldImage"] == key
    assert modified["dynamodb"]["NewImage"] == item("k", v=1)


def test_update_item_and_transactions_write_records(ddb, streams):
    name, arn = stream_table(ddb)
    ddb.update_item(TableName=name, Key={"pk": {"S": "u"}}, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": {"N": "1"}})
    ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": item("t1", v=1)}},
        {"Put": {"TableName": name, "Item": item("t2", v=2)}},
        {"Delete": {"TableName": name, "Key": {"pk": {"S": "u"}}}}])
    with pytest.raises(ClientError):  # cancelled: nothing of it reaches the stream
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": name, "Item": item("t3", v=3)}},
            {"Put": {"TableName": name, "Item": item("t1", v=9),
                     "ConditionExpression": "attribute_not_exists(pk)"}}])
    records = read_all(streams, arn)
    assert [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records] == [
        ("INSERT", "u"), ("INSERT", "t1"), ("INSERT", "t2"), ("REMOVE", "u")]


def test_describe_stream(ddb, streams):
    name, arn = stream_table(ddb, "KEYS_ONLY")
    table = ddb.describe_table(TableName=name)["Table"]
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    label = table["LatestStreamLabel"]
    assert arn == f"{table['TableArn']}/stream/{label}"
    assert description["StreamArn"] == arn
    assert description["StreamLabel"] == label
    assert description["StreamStatus"] == "ENABLED"
    assert description["StreamViewType"] == "KEYS_ONLY"
    assert description["TableName"] == name
    assert description["KeySchema"] == KEY
    shard, = description["Shards"]
    assert shard["ShardId"].startswith("shardId-") and 28 <= len(shard["ShardId"]) <= 65
    assert set(shard["SequenceNumberRange"]) == {"StartingSequenceNumber"}
    assert "ParentShardId" not in shard
    assert "LastEvaluatedShardId" not in description


def test_list_streams_filters_by_table_and_pages(ddb, streams):
    names = sorted(stream_table(ddb)[0] for _ in range(3))
    for name in names:
        listed = streams.list_streams(TableName=name)["Streams"]
        assert [(s["TableName"], s["StreamArn"]) for s in listed] == [
            (name, ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"])]
    seen, start = [], {}
    while True:
        page = streams.list_streams(Limit=2, **start)
        assert len(page["Streams"]) <= 2
        seen += [s["StreamArn"] for s in page["Streams"]]
        if "LastEvaluatedStreamArn" not in page:
            break
        assert page["LastEvaluatedStreamArn"] == page["Streams"][-1]["StreamArn"]
        start = {"ExclusiveStartStreamArn": page["LastEvaluatedStreamArn"]}
    assert len(seen) == len(set(seen))
    everything = [s["StreamArn"] for s in streams.list_streams()["Streams"]]
    assert seen == everything
    for name in names:
        assert ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"] in seen


def test_list_streams_of_a_table_without_stream_is_empty(ddb, streams, table):
    assert streams.list_streams(TableName=table)["Streams"] == []


def test_iterator_types(ddb, streams):
    name, arn = stream_table(ddb)
    for n in range(3):
        ddb.put_item(TableName=name, Item=item(f"k{n}"))
    shard = only_shard(streams, arn)
    records, _ = read_shard(streams, arn, shard)
    numbers = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert len(numbers) == 3

    def first(kind, **extra):
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                              ShardIteratorType=kind, **extra)["ShardIterator"]
        return streams.get_records(ShardIterator=iterator)

    assert [r["dynamodb"]["SequenceNumber"] for r in first(
        "AT_SEQUENCE_NUMBER", SequenceNumber=numbers[1])["Records"]] == numbers[1:]
    assert [r["dynamodb"]["SequenceNumber"] for r in first(
        "AFTER_SEQUENCE_NUMBER", SequenceNumber=numbers[1])["Records"]] == numbers[2:]
    latest = first("LATEST")
    assert latest["Records"] == []
    ddb.put_item(TableName=name, Item=item("k3"))
    after = streams.get_records(ShardIterator=latest["NextShardIterator"])["Records"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in after] == ["k3"]


@pytest.mark.parametrize("kind", ["AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"])
def test_iterator_at_the_shards_starting_number_of_an_empty_stream(ddb, streams, kind):
    name, arn = stream_table(ddb)
    shard, = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    start = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                          ShardIteratorType=kind,
                                          SequenceNumber=start)["ShardIterator"]
    reply = streams.get_records(ShardIterator=iterator)
    assert reply["Records"] == [] and "NextShardIterator" in reply
    if kind == "AT_SEQUENCE_NUMBER":
        ddb.put_item(TableName=name, Item=item("a"))
        records = streams.get_records(ShardIterator=reply["NextShardIterator"])["Records"]
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == ["a"]


def test_iterator_at_the_shards_starting_number(ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a"))
    shard, = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    start = shard["SequenceNumberRange"]["StartingSequenceNumber"]
    for kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                   ShardIteratorType=kind, SequenceNumber=start)


def test_get_records_limit_and_next_iterator(ddb, streams):
    name, arn = stream_table(ddb)
    for n in range(5):
        ddb.put_item(TableName=name, Item=item(f"k{n}"))
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=only_shard(streams, arn),
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    keys = []
    for expected in (2, 2, 1, 0):
        reply = streams.get_records(ShardIterator=iterator, Limit=2)
        assert len(reply["Records"]) == expected
        keys += [r["dynamodb"]["Keys"]["pk"]["S"] for r in reply["Records"]]
        iterator = reply["NextShardIterator"]  # an open shard always gives one
    assert keys == [f"k{n}" for n in range(5)]


def test_disable_closes_the_shard_and_keeps_the_stream_readable(ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a"))
    shard = only_shard(streams, arn)
    ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    assert "StreamSpecification" not in ddb.describe_table(TableName=name)["Table"]
    ddb.put_item(TableName=name, Item=item("b"))  # no stream: no record anywhere
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert description["StreamStatus"] == "DISABLED"
    closed, = description["Shards"]
    assert closed["SequenceNumberRange"]["EndingSequenceNumber"] == \
        closed["SequenceNumberRange"]["StartingSequenceNumber"]
    records, following = read_shard(streams, arn, shard)
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in records] == ["a"]
    assert following is None  # a closed shard read to its end has no next iterator
    latest = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                        ShardIteratorType="LATEST")["ShardIterator"]
    reply = streams.get_records(ShardIterator=latest)
    assert reply["Records"] == [] and "NextShardIterator" not in reply


def test_reenabling_makes_a_new_stream(ddb, streams):
    name, old_arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("old"))
    ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
    ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": True,
                                                          "StreamViewType": "KEYS_ONLY"})
    new_arn = ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    assert new_arn != old_arn
    ddb.put_item(TableName=name, Item=item("new"))
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_all(streams, old_arn)] == ["old"]
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in read_all(streams, new_arn)] == ["new"]
    listed = streams.list_streams(TableName=name)["Streams"]
    assert sorted(s["StreamArn"] for s in listed) == sorted([old_arn, new_arn])


def test_view_type_cannot_change_while_enabled(ddb, streams):
    name, _ = stream_table(ddb)
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName=name, StreamSpecification={"StreamEnabled": True,
                                                              "StreamViewType": "KEYS_ONLY"})
    assert error_of(excinfo) == ("ValidationException",
                                 f"Table already has an enabled stream: TableName: {name}")


def test_deleted_table_leaves_a_disabled_readable_stream(ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a"))
    ddb.delete_table(TableName=name)
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == "DISABLED"
    assert [r["eventName"] for r in read_all(streams, arn)] == ["INSERT"]


def test_unknown_stream_and_shard(ddb, streams):
    name, arn = stream_table(ddb)
    # the table's stream, labelled as created in 2000: no such stream. (Changing the last
    # digits, the label's milliseconds, named the table's own stream once in 1,000 runs.)
    missing = arn.rpartition("/stream/")[0] + "/stream/2000-01-01T00:00:00.000"
    for call in (lambda: streams.describe_stream(StreamArn=missing),
                 lambda: streams.get_shard_iterator(StreamArn=missing, ShardId="shardId-" + "0" * 29,
                                                    ShardIteratorType="LATEST")):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == ("ResourceNotFoundException",
                                     f"Requested resource not found: Stream: {missing} not found")
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId="shardId-" + "0" * 29,
                                   ShardIteratorType="LATEST")
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 "Requested resource not found: Shard does not exist")
    # a shard of another stream is not one of this stream's
    other = only_shard(streams, stream_table(ddb)[1])
    with pytest.raises(ClientError) as excinfo:
        streams.get_shard_iterator(StreamArn=arn, ShardId=other, ShardIteratorType="LATEST")
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 "Requested resource not found: Shard does not exist")


def test_a_stream_arn_must_be_one(ddb, streams):
    """Not found is for a stream ARN naming no stream; anything else is invalid."""
    _, arn = stream_table(ddb)
    table_arn = arn.partition("/stream/")[0]
    for call in (lambda: streams.describe_stream(StreamArn=table_arn),
                 lambda: streams.get_shard_iterator(StreamArn="x" * 40, ShardId="shardId-" + "0" * 29,
                                                    ShardIteratorType="LATEST"),
                 lambda: streams.list_streams(ExclusiveStartStreamArn=table_arn)):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == ("ValidationException", "Invalid StreamArn")


def test_an_edited_or_forged_iterator_is_invalid(ddb, streams):
    """A shard iterator is sealed (core/sealed.py): one in an earlier okura's form (base64
    JSON of shard, position and issue time: a position of -2 was a 500, an issue time
    ahead made it never expire), one with a character changed, or one moved to another
    stream's ARN is refused before anything in it is used."""
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a"))
    shard = only_shard(streams, arn)
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    token = iterator.rpartition("|1|")[2]

    def unsealed(position: int, issued: float) -> str:
        raw = json.dumps([shard, position, issued]).encode()
        return f"{arn}|1|{base64.urlsafe_b64encode(raw).decode()}"

    edited = token[:10] + ("A" if token[10] != "A" else "B") + token[11:]
    forged = [unsealed(-2, time.time()), unsealed(0, time.time() + 10 ** 9),
              f"{arn}|1|{edited}", f"{stream_table(ddb)[1]}|1|{token}"]
    for text in forged:
        with pytest.raises(ClientError) as excinfo:
            streams.get_records(ShardIterator=text)
        assert error_of(excinfo) == ("ValidationException", "Invalid ShardIterator")
    assert len(streams.get_records(ShardIterator=iterator)["Records"]) == 1


def test_request_errors(ddb, streams):
    name, arn = stream_table(ddb)
    ddb.put_item(TableName=name, Item=item("a"))
    shard = only_shard(streams, arn)
    start = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0][
        "SequenceNumberRange"]["StartingSequenceNumber"]
    missing = arn.rpartition("/stream/")[0] + "/stream/2000-01-01T00:00:00.000"
    cases = [
        (lambda: streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                            ShardIteratorType="AT_SEQUENCE_NUMBER"),
         "Must specify SequenceNumber when ShardIteratorType is AT_SEQUENCE_NUMBER"),
        (lambda: streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                            ShardIteratorType="AFTER_SEQUENCE_NUMBER",
                                            SequenceNumber="9" * 25),
         f"Invalid SequenceNumber {'9' * 25} for shard {shard}"),
        *((lambda kind=kind: streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard, ShardIteratorType=kind, SequenceNumber=start),
           f"Must not specify SequenceNumber when ShardIteratorType is {kind}")
          for kind in ("TRIM_HORIZON", "LATEST")),
        # judged before the stream is looked for
        (lambda: streams.get_shard_iterator(StreamArn=missing, ShardId=shard,
                                            ShardIteratorType="AFTER_SEQUENCE_NUMBER"),
         "Must specify SequenceNumber when ShardIteratorType is AFTER_SEQUENCE_NUMBER"),
        (lambda: streams.get_records(ShardIterator="garbage"), "Invalid ShardIterator"),
        (lambda: streams.list_streams(Limit=101),
         "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: "
         "Member must have value less than or equal to 100"),
        (lambda: streams.describe_stream(StreamArn=arn, Limit=101),
         "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: "
         "Member must have value less than or equal to 100"),
    ]
    for call, message in cases:
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == ("ValidationException", message)
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard,
                                          ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    with pytest.raises(ClientError) as excinfo:
        streams.get_records(ShardIterator=iterator, Limit=1001)
    assert error_of(excinfo) == (
        "ValidationException", "1 validation error detected: Value '1001' at 'limit' failed to "
        "satisfy constraint: Member must have value less than or equal to 1000")


@pytest.mark.parametrize("shard_filter, message", [
    ({"ShardId": "shardId-00000001795617466137-e15a062a"},
     "1 validation error detected: Value null at 'shardFilter.type' failed to satisfy "
     "constraint: Member must not be null"),
    ({"Type": "CHILD_SHARDS"},
     "1 validation error detected: Value null at 'shardFilter.shardId' failed to satisfy "
     "constraint: Member must not be null"),
])
def test_shard_filter_needs_type_and_shard_id(ddb, streams, shard_filter, message):
    _, arn = stream_table(ddb)
    with pytest.raises(ClientError) as excinfo:
        streams.describe_stream(StreamArn=arn, ShardFilter=shard_filter)
    # a ValidationException (recorded); the wording unverified
    assert error_of(excinfo) == ("ValidationException", message)


def test_streams_api_model_validation(server):
    reply = server.post("DynamoDBStreams_20120810.DescribeStream", {"StreamArn": "short"})
    assert reply.status == 400
    assert reply.json["message"] == (
        "1 validation error detected: Value 'short' at 'streamArn' failed to satisfy "
        "constraint: Member must have length greater than or equal to 37")


def test_deleting_the_first_table_keeps_other_tables_streams(tmp_path):
    """Table ids start at 1, and a table's item-collection sizes live in row space
    -id: they must never share a row space with the stream directory."""
    from tests.conftest import Server

    fresh = Server(data_dir=str(tmp_path))
    try:
        ddb = fresh.client()
        schema = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                  "BillingMode": "PAY_PER_REQUEST"}
        ddb.create_table(TableName="first", **schema)  # id 1
        ddb.create_table(TableName="second", StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}, **schema)
        ddb.put_item(TableName="second", Item={"pk": {"S": "a"}})
        ddb.delete_table(TableName="first")
        streams = fresh.client("dynamodbstreams").list_streams(TableName="second")["Streams"]
        assert [s["TableName"] for s in streams] == ["second"]
    finally:
        fresh.stop()
