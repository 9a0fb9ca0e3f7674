"""Kinesis streaming destinations: the four operations with DynamoDB's statuses and
messages, and change records delivered in DynamoDB's Kinesis record format to a
Kinesis-compatible server (kinesalite, installed in kinesalite/ with `npm ci` from the
committed package-lock.json; skipped when node or npm is missing, a failure with
OKURA_REQUIRE_TOOLS=1).

DynamoDB's behaviour relied on (recorded against DynamoDB, ack-api-quirks findings
DDB-TABLE-299..304, 318, 319, 442): Enable answers ENABLING and checks the stream after
("User does not have a permission to use kinesis stream" for one it cannot use); at most
one destination is ENABLING, ACTIVE, UPDATING or DISABLING; DISABLED and ENABLE_FAILED
entries stay listed and a new Enable of their stream replaces them; a destination shows
ApproximateCreationDateTimePrecision only once one was given (none means MILLISECOND)."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import (BACKENDS, Server, error_of, free_port, new_database, unavailable,
                      unique_name)

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kinesalite")
NOT_VALID = "Table is not in a valid state to enable Kinesis Streaming Destination: "
NOT_FOUND = "User does not have a permission to use kinesis stream"
KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}


def stream_arn(name: str, region: str = "us-east-1") -> str:
    return f"arn:aws:kinesis:{region}:000000000000:stream/{name}"


def destinations(ddb, table: str) -> list[dict]:
    return ddb.describe_kinesis_streaming_destination(
        TableName=table)["KinesisDataStreamDestinations"]


def settled(ddb, table: str, deadline: float = 20.0) -> dict:
    """The table's newest destination once it is no longer ENABLING (the background
    task checks the stream every trigger interval)."""
    until = time.monotonic() + deadline
    while True:
        newest = destinations(ddb, table)[0]
        if newest["DestinationStatus"] != "ENABLING" or time.monotonic() > until:
            return newest
        time.sleep(0.05)


# ---------------------------------------------------------------- without Kinesis

def test_a_new_table_has_no_destination_and_describe_table_shows_none(ddb, table):
    assert ddb.describe_kinesis_streaming_destination(TableName=table)[
        "KinesisDataStreamDestinations"] == []
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=stream_arn("s"))
    assert not [m for m in ddb.describe_table(TableName=table)["Table"] if "Kinesis" in m]


def test_a_missing_table(ddb):
    name = unique_name()
    for call in (lambda: ddb.describe_kinesis_streaming_destination(TableName=name),
                 lambda: ddb.enable_kinesis_streaming_destination(
                     TableName=name, StreamArn=stream_arn("s"))):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert error_of(excinfo) == ("ResourceNotFoundException",
                                     f"Requested resource not found: Table: {name} not found")


@pytest.mark.parametrize("arn, description", [
    (stream_arn("nowhere", "eu-west-1"), "The kinesis Arn used to enable kinesis replication "
                                         "belongs to a stream which is not in the current region"),
    ("arn:aws:dynamodb:us-east-1:000000000000:table/not-a-stream", NOT_FOUND),
    # without --kinesis-endpoint okura can use no stream (okura's description)
    (stream_arn("anything"), "okura has no Kinesis endpoint to send records to "
                             "(--kinesis-endpoint)"),
])
def test_enable_answers_enabling_and_fails_later(ddb, table, arn, description):
    reply = ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    reply.pop("ResponseMetadata")
    assert reply == {"TableName": table, "StreamArn": arn, "DestinationStatus": "ENABLING",
                     "EnableKinesisStreamingConfiguration": {}}
    assert settled(ddb, table) == {"StreamArn": arn, "DestinationStatus": "ENABLE_FAILED",
                                   "DestinationStatusDescription": description}


def test_failed_entries_stay_listed_and_enabling_one_again_replaces_it(ddb, table):
    first, second = stream_arn("one"), stream_arn("two")
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=first)
    with pytest.raises(ClientError) as excinfo:  # one destination ENABLING at a time
        ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=second)
    assert error_of(excinfo) == ("ValidationException", NOT_VALID + (
        "EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform "
        "ENABLE operation."))
    settled(ddb, table)
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=second)
    settled(ddb, table)
    ddb.enable_kinesis_streaming_destination(
        TableName=table, StreamArn=first,
        EnableKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision": "MICROSECOND"})
    assert [(d["StreamArn"], d["DestinationStatus"]) for d in destinations(ddb, table)] == [
        (first, "ENABLING"), (second, "ENABLE_FAILED")]
    assert settled(ddb, table)["ApproximateCreationDateTimePrecision"] == "MICROSECOND"


def test_what_only_an_active_destination_allows(ddb, table):
    arn = stream_arn("failed")
    cases = [
        (ddb.disable_kinesis_streaming_destination, {},
         NOT_VALID + "KinesisStreamingDestination must be ACTIVE to perform DISABLE operation."),
        (ddb.update_kinesis_streaming_destination,
         {"UpdateKinesisStreamingConfiguration": {"ApproximateCreationDateTimePrecision":
                                                  "MICROSECOND"}},
         NOT_VALID + f"No streaming destination with streamArn: {arn}"),
    ]
    for call, extra, message in cases:  # never enabled
        with pytest.raises(ClientError) as excinfo:
            call(TableName=table, StreamArn=arn, **extra)
        assert error_of(excinfo) == ("ValidationException", message)
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert settled(ddb, table)["DestinationStatus"] == "ENABLE_FAILED"
    cases[1] = (cases[1][0], cases[1][1], NOT_VALID + (
        "Kinesis streaming is not in ACTIVE state. Updates are only allowed in ACTIVE state. "
        f"TableName: {table}, kdsArn: {arn}"))
    for call, extra, message in cases:
        with pytest.raises(ClientError) as excinfo:
            call(TableName=table, StreamArn=arn, **extra)
        assert error_of(excinfo) == ("ValidationException", message)


def test_parameters_disable_and_update_refuse(ddb, table):
    arn = stream_arn("params")
    with pytest.raises(ClientError) as excinfo:
        ddb.disable_kinesis_streaming_destination(
            TableName=table, StreamArn=arn,
            EnableKinesisStreamingConfiguration={"ApproximateCreationDateTimePrecision":
                                                 "MICROSECOND"})
    assert error_of(excinfo) == ("ValidationException", "Stream cannot be disabled using "
                                 "EnableKinesisStreamingConfiguration parameters")
    for configuration in ({}, None):
        extra = {} if configuration is None else {
            "UpdateKinesisStreamingConfiguration": configuration}
        with pytest.raises(ClientError) as excinfo:
            ddb.update_kinesis_streaming_destination(TableName=table, StreamArn=arn, **extra)
        assert error_of(excinfo) == ("ValidationException", (
            "Streaming destination cannot be updated with given parameters: "
            "UpdateKinesisStreamingConfiguration cannot be null or contain only null values"))


def test_a_stream_arn_shorter_than_37_characters(server, table):
    reply = server.post("EnableKinesisStreamingDestination",
                        {"TableName": table, "StreamArn": "arn:short"})
    assert reply.status == 400 and reply.json["message"] == (
        "1 validation error detected: Value 'arn:short' at 'streamArn' failed to satisfy "
        "constraint: Member must have length greater than or equal to 37")


# ---------------------------------------------------------------- with kinesalite

@pytest.fixture(scope="module")
def kinesalite_url():
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        unavailable("node or npm is not installed: no Kinesis-compatible server to test with")
    if not os.path.isdir(os.path.join(HERE, "node_modules", "kinesalite")):
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            unavailable(f"npm ci could not install kinesalite (registry unreachable?): {last}")
    port = free_port()
    process = subprocess.Popen(
        [node, os.path.join(HERE, "node_modules", "kinesalite", "cli.js"), "--port", str(port),
         "--createStreamMs", "0", "--deleteStreamMs", "0", "--updateStreamMs", "0",
         "--shardLimit", "1000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    client = kinesis_client(url)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.list_streams()
            break
        except Exception:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("kinesalite did not start")
            time.sleep(0.05)
    yield url
    process.terminate()
    process.wait(10)


def kinesis_client(url: str):
    return boto3.client("kinesis", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id="okura", aws_secret_access_key="okura",
                        config=Config(retries={"max_attempts": 2}))


@pytest.fixture(scope="module")
def kinesis(kinesalite_url):
    return kinesis_client(kinesalite_url)


@pytest.fixture(scope="module", params=BACKENDS)
def streaming(request, kinesalite_url, tmp_path_factory):
    """An okura server sending to kinesalite. On PostgreSQL in a database of its own:
    the session's other servers, with no Kinesis endpoint, would fail its destinations."""
    extra = ("--kinesis-endpoint", kinesalite_url)
    with contextlib.ExitStack() as database:
        if request.param == "postgres":
            instance = Server(*extra, "--postgres", database.enter_context(new_database()))
        elif request.param == "memory":
            instance = Server(*extra)
        else:
            instance = Server(*extra, data_dir=str(tmp_path_factory.mktemp("kinesis")))
        yield instance
        instance.stop()


def enabled(ddb, kinesis) -> tuple[str, str, str]:
    """A new table streaming to a new Kinesis stream (ENABLING): the table's name, the
    stream's name and its ARN."""
    name = unique_name("s")
    kinesis.create_stream(StreamName=name, ShardCount=2)
    arn = kinesis.describe_stream_summary(StreamName=name)["StreamDescriptionSummary"][
        "StreamARN"]
    table = unique_name()
    ddb.create_table(TableName=table, **KEYS)
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    return table, name, arn


def records(kinesis, name: str, want: int, deadline: float = 20.0) -> list[tuple[str, dict]]:
    """(partition key, decoded data) of the stream's records, shard by shard, once it holds
    `want` of them."""
    until = time.monotonic() + deadline
    while True:
        found = []
        for shard in kinesis.list_shards(StreamName=name)["Shards"]:
            iterator = kinesis.get_shard_iterator(
                StreamName=name, ShardId=shard["ShardId"],
                ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            found += [(r["PartitionKey"], json.loads(r["Data"]))
                      for r in kinesis.get_records(ShardIterator=iterator)["Records"]]
        if len(found) >= want or time.monotonic() > until:
            return found
        time.sleep(0.05)


@pytest.mark.slow  # npm and node (README.md, Tests)
def test_changes_reach_the_stream_in_dynamodbs_record_format(streaming, kinesis):
    ddb = streaming.client()
    table, name, arn = enabled(ddb, kinesis)
    ddb.put_item(TableName=table, Item={"pk": {"S": "early"}})  # made while ENABLING
    assert settled(ddb, table) == {"StreamArn": arn, "DestinationStatus": "ACTIVE"}
    before = time.time()
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    ddb.update_item(TableName=table, Key={"pk": {"S": "a"}}, UpdateExpression="SET n = :n",
                    ExpressionAttributeValues={":n": {"N": "2"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "2"}})  # no change
    ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"pk": {"S": f"b{i}"}}}} for i in range(5)]})
    ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    found = records(kinesis, name, 9)
    assert len(found) == 9
    of_a = [data for _, data in found if data["dynamodb"]["Keys"] == {"pk": {"S": "a"}}]
    assert [data["eventName"] for data in of_a] == ["INSERT", "MODIFY", "REMOVE"]
    assert len({key for key, data in found if data in of_a}) == 1  # one partition key per item
    modify = of_a[1]
    assert set(modify) == {"awsRegion", "eventID", "eventName", "userIdentity", "recordFormat",
                           "tableName", "dynamodb", "eventSource"}
    assert (modify["awsRegion"], modify["userIdentity"], modify["recordFormat"],
            modify["tableName"], modify["eventSource"]) == (
        "us-east-1", None, "application/json", table, "aws:dynamodb")
    data = modify["dynamodb"]
    assert (data["Keys"], data["NewImage"], data["OldImage"]) == (
        {"pk": {"S": "a"}}, {"pk": {"S": "a"}, "n": {"N": "2"}},
        {"pk": {"S": "a"}, "n": {"N": "1"}})
    assert data["SizeBytes"] > 0
    # milliseconds by default
    assert before * 1000 - 5000 <= data["ApproximateCreationDateTime"] <= time.time() * 1000
    assert "NewImage" not in of_a[2]["dynamodb"] and "OldImage" not in of_a[0]["dynamodb"]
    assert sum(1 for _, d in found if d["dynamodb"]["Keys"] == {"pk": {"S": "early"}}) == 1


@pytest.mark.slow  # npm and node (README.md, Tests)
def test_precision_update_and_disable(streaming, kinesis):
    ddb = streaming.client()
    table, name, arn = enabled(ddb, kinesis)
    assert settled(ddb, table)["DestinationStatus"] == "ACTIVE"
    micro = {"ApproximateCreationDateTimePrecision": "MICROSECOND"}
    reply = ddb.update_kinesis_streaming_destination(
        TableName=table, StreamArn=arn, UpdateKinesisStreamingConfiguration=micro)
    reply.pop("ResponseMetadata")
    assert reply == {"TableName": table, "StreamArn": arn, "DestinationStatus": "UPDATING",
                     "UpdateKinesisStreamingConfiguration": micro}
    # the server's status delay is 0: UPDATING has already ended
    assert destinations(ddb, table) == [{"StreamArn": arn, "DestinationStatus": "ACTIVE",
                                         "ApproximateCreationDateTimePrecision": "MICROSECOND"}]
    with pytest.raises(ClientError) as excinfo:
        ddb.update_kinesis_streaming_destination(
            TableName=table, StreamArn=arn, UpdateKinesisStreamingConfiguration=micro)
    table_id = ddb.describe_table(TableName=table)["Table"]["TableId"]
    assert error_of(excinfo) == ("ValidationException", (
        "Invalid Request: Precision is already set to the desired value of MICROSECOND for "
        f"tableId: {table_id}, kdsArn: {arn}"))
    before = time.time()
    ddb.put_item(TableName=table, Item={"pk": {"S": "micro"}})
    [(_, data)] = records(kinesis, name, 1)
    assert before * 1e6 - 5e6 <= data["dynamodb"]["ApproximateCreationDateTime"] <= time.time() * 1e6
    reply = ddb.disable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert reply["DestinationStatus"] == "DISABLING"
    assert destinations(ddb, table)[0]["DestinationStatus"] == "DISABLED"
    ddb.put_item(TableName=table, Item={"pk": {"S": "after"}})
    # enabled again: the precision is gone, and only changes made since are sent
    ddb.enable_kinesis_streaming_destination(TableName=table, StreamArn=arn)
    assert settled(ddb, table) == {"StreamArn": arn, "DestinationStatus": "ACTIVE"}
    ddb.put_item(TableName=table, Item={"pk": {"S": "again"}})
    found = records(kinesis, name, 2)
    assert [data["dynamodb"]["Keys"]["pk"]["S"] for _, data in found] == ["micro", "again"]
