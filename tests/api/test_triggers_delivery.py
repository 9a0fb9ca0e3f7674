"""Stream triggers deliver with Lambda's semantics: every record, in order per key, in
batches no larger than BatchSize; failures bisected, retried and sent to the
on-failure destination; ReportBatchItemFailures; filters; batching and tumbling
windows and record ages on okura's movable clock; command and HTTP functions."""
from __future__ import annotations

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_clock import admin, advance, clocked  # noqa: F401 - a fixture
from test_metrics import completed, fresh_period
from test_streams import stream_table
from triggers_common import (config, events, failure_files, keys_delivered, put_many,
                             wait_for)


class InvokeApi(BaseHTTPRequestHandler):
    """A small server speaking Lambda's Invoke API: records each event, answers null."""
    received: list[tuple[str, dict]] = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        arn = body["Records"][0]["eventSourceARN"]
        throttle = "/throttled/" in self.path and not any(
            path == self.path and seen["Records"][0]["eventSourceARN"] == arn
            for path, seen in self.received)
        self.received.append((self.path, body))
        if throttle:  # the first call of function "throttled" for a stream is refused
            self.send_response(429)
            self.end_headers()
            self.wfile.write(b'{"message": "Rate exceeded"}')
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"fine": true}')

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def invoke_api():
    server = ThreadingHTTPServer(("127.0.0.1", 0), InvokeApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def out(clocked, tmp_path_factory):  # noqa: F811 - one directory per backend
    return str(tmp_path_factory.mktemp("trigger-out"))


@pytest.fixture(scope="module")
def node(clocked, tmp_path_factory, out, invoke_api):  # noqa: F811
    extra = "".join(f'\n[functions.{name}]\nurl = "http://127.0.0.1:{invoke_api.server_port}"\n'
                    "timeout = 10\n" for name in ("remote", "throttled"))
    path = config(tmp_path_factory.mktemp("trigger-config"), out, extra)
    return clocked("--config", path, "--trigger-interval", "0.05", "--log-level", "info",
                   "--ttl-interval", "0.05")


@pytest.fixture(scope="module")
def ddb(node):
    return node.client()


@pytest.fixture(scope="module")
def lam(node):
    return node.client("lambda")


# What happens on the function's side of delivery (batching, bisecting, filters, windows,
# kinds of functions, logs, metrics) is the same whatever the storage: tested in memory.
# The storage's part (stream reads, checkpoints, trimming, mapping documents, failure
# items) is tested on every backend.
function_side = pytest.mark.parametrize("clocked", ["memory"], indirect=True)


def mapped(ddb, lam, function: str, **settings) -> tuple[str, str]:
    """A new streamed table and a mapping of it to `function`: (table, mapping UUID)."""
    table, arn = stream_table(ddb)
    settings.setdefault("StartingPosition", "TRIM_HORIZON")
    made = lam.create_event_source_mapping(FunctionName=function, EventSourceArn=arn, **settings)
    return table, made["UUID"]


def test_every_record_in_order_per_key_in_batches(ddb, lam, out):
    # 300 writes, delivered while they are made: steps of up to 4 x 25 records
    table, _ = mapped(ddb, lam, "collect", BatchSize=25, ParallelizationFactor=4)
    keys, versions = 10, 30
    for version in range(versions):
        put_many(ddb, table, [{"pk": {"S": f"k{key}"}, "n": {"N": str(version)}}
                              for key in range(keys)])
    wait_for(lambda: len(keys_delivered(out, table)) >= keys * versions)
    delivered = events(out, table)
    assert all(1 <= len(event["Records"]) <= 25 for event in delivered)
    seen: dict[str, list[int]] = {}
    for event in delivered:
        for record in event["Records"]:
            assert record["eventSource"] == "aws:dynamodb" and record["eventVersion"]
            assert record["eventSourceARN"].endswith(record["eventSourceARN"].split("/")[-1])
            image = record["dynamodb"]["NewImage"]
            seen.setdefault(image["pk"]["S"], []).append(int(image["n"]["N"]))
    assert seen == {f"k{key}": list(range(versions)) for key in range(keys)}
    first = delivered[0]["Records"][0]
    assert set(first) == {"awsRegion", "dynamodb", "eventID", "eventName", "eventSource",
                          "eventVersion", "eventSourceARN"}
    assert first["eventName"] == "INSERT" and first["awsRegion"] == "us-east-1"


@function_side
def test_failing_record_is_bisected_retried_and_sent_to_the_destination(
        node, ddb, lam, out, tmp_path):
    failures = str(tmp_path / "failures")
    table, _ = mapped(ddb, lam, "fail_on_bad", BatchSize=10, BisectBatchOnFunctionError=True,
                      MaximumRetryAttempts=1, MaximumBatchingWindowInSeconds=300,
                      DestinationConfig={"OnFailure": {"Destination": "file://" + failures}})
    items = [{"pk": {"S": f"k{i}"}} for i in range(10)]
    items[6]["fail"] = {"S": "always"}
    put_many(ddb, table, items)
    advance(node, 301)  # the batching window gathered all ten into one batch
    files = wait_for(lambda: failure_files(failures), what="the failure record")
    assert os.listdir(failures) == files  # nothing left half-written
    with open(os.path.join(failures, files[0])) as handle:
        record = json.load(handle)
    sizes = [len(event["Records"]) for event in events(out, table)]
    assert sizes[0] == 10 and sizes.count(1) >= 2  # bisected down to the one record, retried
    bad = [e for e in events(out, table)
           if [r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"]] == ["k6"]]
    assert len(bad) == 2  # one attempt and MaximumRetryAttempts retries
    sequence = bad[0]["Records"][0]["dynamodb"]["SequenceNumber"]
    info = record["DDBStreamBatchInfo"]
    assert (info["startSequenceNumber"], info["endSequenceNumber"], info["batchSize"]) == (
        sequence, sequence, 1)
    assert info["streamArn"] == bad[0]["Records"][0]["eventSourceARN"]
    assert info["shardId"].startswith("shardId-")
    assert record["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 2
    assert record["requestContext"]["functionArn"].endswith(":function:fail_on_bad")
    assert record["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST",
                                         "functionError": "Unhandled"}
    assert record["version"] == "1.0" and record["timestamp"].endswith("Z")
    assert record["payload"]["Records"] == bad[0]["Records"]
    # the nine others go through, in batches that succeed (the halves after the bad
    # record's are delivered after it is given up on)
    def passed() -> set[str]:
        return {r["dynamodb"]["Keys"]["pk"]["S"] for e in events(out, table)
                if not any("fail" in r["dynamodb"]["NewImage"] for r in e["Records"])
                for r in e["Records"]}

    others = {f"k{i}" for i in range(10)} - {"k6"}
    wait_for(lambda: passed() >= others, what="the other records")
    assert passed() == others


def test_failure_record_into_an_okura_table(ddb, lam, out):
    destination, _ = stream_table(ddb)
    described = ddb.describe_table(TableName=destination)["Table"]
    table, _ = mapped(ddb, lam, "fail_on_bad", MaximumRetryAttempts=0, DestinationConfig={
        "OnFailure": {"Destination": described["TableArn"]}})
    put_many(ddb, table, [{"pk": {"S": "only"}, "fail": {"S": "always"}}])
    items = wait_for(lambda: ddb.scan(TableName=destination)["Items"], what="the failure item")
    item = items[0]
    assert item["pk"] == {"S": item["requestContext"]["M"]["requestId"]["S"]}
    assert item["requestContext"]["M"]["condition"] == {"S": "RetryAttemptsExhausted"}
    assert item["DDBStreamBatchInfo"]["M"]["batchSize"] == {"N": "1"}


def test_failure_record_into_a_table_of_another_partition(node, out):
    # an aws-cn table's ARN names a table (it was taken for a directory's name)
    ddb, lam = node.client(region="cn-north-1"), node.client("lambda", region="cn-north-1")
    destination, _ = stream_table(ddb)
    arn = ddb.describe_table(TableName=destination)["Table"]["TableArn"]
    assert arn.startswith("arn:aws-cn:dynamodb:cn-north-1:")
    table, mapping_uuid = mapped(ddb, lam, "fail_on_bad", MaximumRetryAttempts=0,
                                 DestinationConfig={"OnFailure": {"Destination": arn}})
    assert lam.get_event_source_mapping(UUID=mapping_uuid)["FunctionArn"] == \
        "arn:aws-cn:lambda:cn-north-1:000000000000:function:fail_on_bad"
    put_many(ddb, table, [{"pk": {"S": "only"}, "fail": {"S": "always"}}])
    items = wait_for(lambda: ddb.scan(TableName=destination)["Items"], what="the failure item")
    assert items[0]["requestContext"]["M"]["condition"] == {"S": "RetryAttemptsExhausted"}


@function_side
def test_report_batch_item_failures_redelivers_from_the_failed_item(node, ddb, lam, out):
    table, _ = mapped(ddb, lam, "partial", BatchSize=10, MaximumBatchingWindowInSeconds=300,
                      FunctionResponseTypes=["ReportBatchItemFailures"])
    items = [{"pk": {"S": f"k{i}"}} for i in range(10)]
    items[4]["fail"] = {"N": "1"}  # fails its first delivery only
    put_many(ddb, table, items)
    advance(node, 301)
    wait_for(lambda: len(events(out, table)) >= 2)
    first, second = [[r["dynamodb"]["Keys"]["pk"]["S"] for r in e["Records"]]
                     for e in events(out, table)[:2]]
    assert sorted(first) == sorted(f"k{i}" for i in range(10))
    assert second == first[first.index("k4"):]  # from the failed record on, in stream order


FILTER = {"dynamodb": {"NewImage": {
    "color": {"S": [{"prefix": "bl"}, {"equals-ignore-case": "RED"}]},
    "size": {"N": [{"numeric": [">", 5, "<=", 10]}]},
    "gone": [{"exists": False}]}},
    "eventName": [{"anything-but": "REMOVE"}]}


@function_side
def test_filters_drop_what_they_should_and_move_on(ddb, lam, out):
    table, mapping_uuid = mapped(ddb, lam, "collect", FilterCriteria={"Filters": [
        {"Pattern": json.dumps(FILTER)}, {"Pattern": json.dumps(
            {"dynamodb": {"Keys": {"pk": {"S": [{"suffix": "-vip"}]}}}})}]})
    cases = {"blue-6": ("blue", "6", False), "red-10": ("red", "10", False),
             "green-6": ("green", "6", False), "blue-11": ("blue", "11", False),
             "blue-gone": ("blue", "7", True), "black-5": ("black", "5", False),
             "anything-vip": ("white", "1", True)}
    put_many(ddb, table, [{"pk": {"S": key}, "color": {"S": color}, "size": {"N": size},
                           **({"gone": {"S": "x"}} if gone else {})}
                          for key, (color, size, gone) in cases.items()])
    ddb.delete_item(TableName=table, Key={"pk": {"S": "blue-6"}})
    # "Blue" starts with "Bl", not "bl": "last" passes neither filter; "final-vip" does
    put_many(ddb, table, [{"pk": {"S": key}, "color": {"S": "Blue"}, "size": {"N": "9"}}
                          for key in ("last", "final-vip")])
    wait_for(lambda: "final-vip" in keys_delivered(out, table))
    assert sorted(keys_delivered(out, table)) == ["anything-vip", "blue-6", "final-vip", "red-10"]
    wait_for(lambda: lam.get_event_source_mapping(UUID=mapping_uuid)[
        "LastProcessingResult"] == "OK")


@function_side
def test_batching_window_follows_the_clock(node, ddb, lam, out):
    table, _ = mapped(ddb, lam, "collect", BatchSize=100, MaximumBatchingWindowInSeconds=300)
    put_many(ddb, table, [{"pk": {"S": f"k{i}"}} for i in range(3)])
    time.sleep(0.3)  # six polls (every 0.05 s) find the window still open
    assert events(out, table) == []
    advance(node, 301)
    wait_for(lambda: events(out, table))
    assert [len(e["Records"]) for e in events(out, table)] == [3]
    # the window runs from the records' creation: moved past at once, before any poll
    # may have seen them, it releases them all the same
    put_many(ddb, table, [{"pk": {"S": f"k{i}"}} for i in range(3, 5)])
    advance(node, 301)
    wait_for(lambda: len(events(out, table)) == 2)
    assert [len(e["Records"]) for e in events(out, table)] == [3, 2]


@function_side
def test_tumbling_window_carries_state_to_its_final_invocation(node, ddb, lam, out):
    table, _ = mapped(ddb, lam, "windowed", TumblingWindowInSeconds=60)
    now = admin(node, "GET")[1]["now"]
    advance(node, 60 - now % 60 + 1)  # 1 s into a window: the three records share it
    put_many(ddb, table, [{"pk": {"S": f"k{i}"}} for i in range(3)])
    wait_for(lambda: len(keys_delivered(out, table)) == 3)
    advance(node, 120)
    finals = wait_for(lambda: [e for e in events(out, table) if e["isFinalInvokeForWindow"]],
                      what="the final invocation")
    assert finals[0]["Records"] == [] and finals[0]["state"] == {"count": 3}
    first = events(out, table)[0]
    assert first["state"] == {} and first["isWindowTerminatedEarly"] is False
    assert first["shardId"].startswith("shardId-") and first["window"]["end"].endswith("Z")


def test_records_past_their_age_are_not_delivered(node, ddb, lam, out, tmp_path):
    failures = str(tmp_path / "aged")
    table, mapping_uuid = mapped(ddb, lam, "collect", Enabled=False,
                                 MaximumRecordAgeInSeconds=60, DestinationConfig={
                                     "OnFailure": {"Destination": failures}})
    put_many(ddb, table, [{"pk": {"S": "old"}}])
    advance(node, 120)
    put_many(ddb, table, [{"pk": {"S": "new"}}])
    lam.update_event_source_mapping(UUID=mapping_uuid, Enabled=True)
    wait_for(lambda: keys_delivered(out, table))
    assert keys_delivered(out, table) == ["new"]
    files = wait_for(lambda: failure_files(failures), what="the failure record")
    with open(os.path.join(failures, files[0])) as handle:
        record = json.load(handle)
    assert record["requestContext"]["condition"] == "RecordAgeExceeded"
    assert record["requestContext"]["approximateInvokeCount"] == 0
    assert "responseContext" not in record


@function_side
def test_http_and_command_functions_get_the_same_events(node, ddb, lam, out, invoke_api):
    table, arn = stream_table(ddb)
    for function in ("remote", "command", "throttled"):
        lam.create_event_source_mapping(FunctionName=function, EventSourceArn=arn,
                                        StartingPosition="TRIM_HORIZON")
    fresh_period(node)  # the throttle counts in a period of this test's own
    put_many(ddb, table, [{"pk": {"S": f"k{i}"}} for i in range(5)])
    wait_for(lambda: len(keys_delivered(out, table)) == 5)
    by_command = [r for e in events(out, table) for r in e["Records"]]

    def calls(function: str) -> list[list[dict]]:
        """The records of each call the Invoke API server got for this stream."""
        return [body["Records"] for path, body in list(InvokeApi.received)
                if path == f"/2015-03-31/functions/{function}/invocations"
                and body["Records"][0]["eventSourceARN"] == arn]

    def records(made: list[list[dict]]) -> list[dict]:
        return [record for call in made for record in call]

    # (the five records may come in more than one call: wait for every one)
    remote = wait_for(lambda: len(records(calls("remote"))) >= 5 and calls("remote"))
    assert records(remote) == by_command
    # a throttled call is made again, and is no attempt: the records still arrive
    throttled = wait_for(lambda: len(records(calls("throttled")[1:])) >= 5
                         and calls("throttled"))
    assert throttled[1] == throttled[0]  # the refused batch, made again
    assert records(throttled[1:]) == by_command
    assert 'aws_lambda_throttles_sum{job="aws_lambda",instance="",function_name="throttled",' \
           'region="us-east-1"} 1.0' in completed(node).text


@function_side
def test_ttl_deletions_carry_lambdas_user_identity(node, ddb, lam, out):
    table, _ = mapped(ddb, lam, "collect")
    ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    now = advance(node, 0)
    put_many(ddb, table, [{"pk": {"S": "brief"}, "expires": {"N": str(int(now) + 5)}}])
    advance(node, 10)
    removed = wait_for(lambda: [r for e in events(out, table) for r in e["Records"]
                                if r["eventName"] == "REMOVE"], what="the TTL deletion")
    assert removed[0]["userIdentity"] == {"type": "Service",
                                          "principalId": "dynamodb.amazonaws.com"}


@function_side
def test_timeouts_logs_and_metrics(node, ddb, lam, tmp_path):
    failures = str(tmp_path / "late")
    table, arn = stream_table(ddb)
    sleepy = lam.create_event_source_mapping(
        FunctionName="sleepy", EventSourceArn=arn, StartingPosition="TRIM_HORIZON",
        MaximumRetryAttempts=0, DestinationConfig={"OnFailure": {"Destination": failures}})
    lam.create_event_source_mapping(FunctionName="collect", EventSourceArn=arn,
                                    StartingPosition="TRIM_HORIZON")
    fresh_period(node)  # the invocations count in a period of this test's own
    put_many(ddb, table, [{"pk": {"S": "slow"}}])
    wait_for(lambda: failure_files(failures), what="the failure record")
    # the invocation's line is logged before the failure is sent
    assert [line.split(", ")[-1] for line in node.log_text().splitlines()
            if f"sleepy (mapping {sleepy['UUID']}): 1 records" in line] == [
        "Sandbox.Timedout: Task timed out after 0.20 seconds"]
    # the function's own output: okura reads it from the worker apart from the replies,
    # so it may reach the log a moment after the call's outcome
    wait_for(lambda: f"okura.function.collect: collect got 1 records of {table}\n"
             in node.log_text(), what="collect's output in the log")
    text = completed(node).text
    assert 'aws_lambda_errors_sum{job="aws_lambda",instance="",function_name="sleepy",' \
           'region="us-east-1"} 1.0' in text
    assert "aws_lambda_iterator_age_maximum" in text


def test_latest_starts_after_the_mapping_and_deletion_stops_delivery(ddb, lam, out):
    table, arn = stream_table(ddb)
    put_many(ddb, table, [{"pk": {"S": f"before{i}"}} for i in range(3)])
    made = lam.create_event_source_mapping(FunctionName="collect", EventSourceArn=arn,
                                           StartingPosition="LATEST")
    put_many(ddb, table, [{"pk": {"S": f"after{i}"}} for i in range(2)])
    wait_for(lambda: len(keys_delivered(out, table)) == 2)
    assert sorted(keys_delivered(out, table)) == ["after0", "after1"]
    lam.delete_event_source_mapping(UUID=made["UUID"])
    wait_for(lambda: not lam.list_event_source_mappings(EventSourceArn=arn)[
        "EventSourceMappings"], what="the deletion")
    put_many(ddb, table, [{"pk": {"S": "later"}}])
    time.sleep(0.3)  # six polls (every 0.05 s) of a mapping that is gone
    assert sorted(keys_delivered(out, table)) == ["after0", "after1"]


def test_endless_retries_end_when_the_record_leaves_the_stream(node, ddb, lam, out):
    table, mapping_uuid = mapped(ddb, lam, "fail_on_bad")  # MaximumRetryAttempts -1
    put_many(ddb, table, [{"pk": {"S": "poison"}, "fail": {"S": "always"}}])
    wait_for(lambda: len(events(out, table)) >= 2, what="retries")
    assert lam.get_event_source_mapping(UUID=mapping_uuid)["LastProcessingResult"] == \
        "PROBLEM: Function call failed"
    advance(node, 86400 + 1)  # past the stream's retention: the record is gone
    put_many(ddb, table, [{"pk": {"S": "next"}}])
    wait_for(lambda: "next" in keys_delivered(out, table))


@function_side
def test_long_responses_and_output_lines(ddb, lam, out):
    table, mapping_uuid = mapped(ddb, lam, "big")
    put_many(ddb, table, [{"pk": {"S": "one"}}])
    wait_for(lambda: lam.get_event_source_mapping(UUID=mapping_uuid)[
        "LastProcessingResult"] == "OK")
    assert keys_delivered(out, table) == ["one"]
