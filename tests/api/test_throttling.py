"""Throughput that bites (docs/throttling.md): provisioned capacity with its burst,
partition limits, GSIs short of write capacity, batches and transactions, the modes and
their admin endpoint, and the metrics; time moves with okura's clock."""
from __future__ import annotations

import json
import time

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from conftest import unique_name
from test_clock import admin, advance, clocked  # noqa: F401 (clocked: a fixture)
from test_metrics import completed, fresh_period

KB = "x" * 1000  # with its key, an item of a little under 1 KB: one write unit


@pytest.fixture(scope="module")
def enforcing(clocked):  # noqa: F811
    return clocked("--throttling", "enforce")


def _table(ddb, provisioned: tuple[int, int] | None = None, gsi: tuple[int, int] | None = None):
    name = unique_name("thr")
    extra: dict = {"BillingMode": "PAY_PER_REQUEST"}
    if provisioned is not None:
        extra = {"ProvisionedThroughput": {"ReadCapacityUnits": provisioned[0],
                                           "WriteCapacityUnits": provisioned[1]}}
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}]
    if gsi is not None:
        attributes.append({"AttributeName": "g", "AttributeType": "S"})
        extra["GlobalSecondaryIndexes"] = [{
            "IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": gsi[0], "WriteCapacityUnits": gsi[1]}}]
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=attributes, **extra)
    return name, ddb.describe_table(TableName=name)["Table"]["TableArn"]


def _throttled(excinfo) -> tuple[str, list]:
    response = excinfo.value.response
    return response["Error"]["Code"], response.get("ThrottlingReasons") or response.get(
        "throttlingReasons")


def _put_until_throttled(ddb, table: str, limit: int, **item) -> tuple[int, pytest.ExceptionInfo]:
    for n in range(limit):
        try:
            ddb.put_item(TableName=table, Item={"pk": {"S": f"k{n}"}, "v": {"S": KB},
                                                **item})
        except ClientError as error:
            if error.response["Error"]["Code"] != "ProvisionedThroughputExceededException":
                raise
            with pytest.raises(ClientError) as excinfo:
                raise error
            return n, excinfo
    raise AssertionError(f"no throttling after {limit} writes")


def test_a_provisioned_table_spends_its_burst_then_about_a_unit_per_second(enforcing):
    ddb = enforcing.client()
    table, arn = _table(ddb, provisioned=(5, 1))
    started = time.monotonic()
    written, excinfo = _put_until_throttled(ddb, table, 400)
    elapsed = time.monotonic() - started
    # 300 seconds of 1 WCU kept as burst, and what real time refilled meanwhile
    assert 300 <= written <= 300 + elapsed + 2
    assert _throttled(excinfo) == ("ProvisionedThroughputExceededException", [
        {"reason": "TableWriteProvisionedThroughputExceeded", "resource": arn}])
    assert excinfo.value.response["Error"]["Message"] == (
        "The level of configured provisioned throughput for the table was exceeded. Consider "
        "increasing your provisioning level with the UpdateTable API.")
    # the throttled write spent nothing and wrote nothing
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": f"k{written}"}})
    advance(enforcing, 1)  # one more second: one more unit
    ddb.put_item(TableName=table, Item={"pk": {"S": "after"}, "v": {"S": KB}})
    # then throttled again (one more may pass on what real time refilled meanwhile)
    more, _ = _put_until_throttled(ddb, table, 3)
    assert more <= 1
    # UpdateTable applies at once
    ddb.update_table(TableName=table, ProvisionedThroughput={"ReadCapacityUnits": 5,
                                                             "WriteCapacityUnits": 1000})
    advance(enforcing, 10)  # 10,000 units: more than this client can spend at once
    for n in range(20):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"more{n}"}, "v": {"S": KB}})


def test_an_update_table_s_rate_applies_from_the_update_on_not_from_the_next_request(
        enforcing):
    ddb = enforcing.client()
    table, _ = _table(ddb, provisioned=(5, 1))
    # one item of 390 units: the 300 units of burst overdrawn by 90
    ddb.put_item(TableName=table, Item={"pk": {"S": "big"}, "v": {"S": "x" * 399_000}})
    ddb.update_table(TableName=table, ProvisionedThroughput={"ReadCapacityUnits": 5,
                                                             "WriteCapacityUnits": 90})
    advance(enforcing, 1.5)  # with no request meanwhile: 135 units at the new rate
    ddb.put_item(TableName=table, Item={"pk": {"S": "after"}, "v": {"S": KB}})


def test_an_on_demand_hot_key_is_throttled_while_other_keys_pass(enforcing):
    ddb = enforcing.client()
    table, arn = _table(ddb)
    big = "y" * 399_000  # 390 write units a write: 1,000 a second on one partition key
    with pytest.raises(ClientError) as excinfo:
        for _ in range(50):
            ddb.put_item(TableName=table, Item={"pk": {"S": "hot"}, "v": {"S": big}})
    assert _throttled(excinfo) == ("ProvisionedThroughputExceededException", [
        {"reason": "TableWriteKeyRangeThroughputExceeded", "resource": arn}])
    ddb.put_item(TableName=table, Item={"pk": {"S": "cold"}, "v": {"S": big}})


def test_a_key_overdrawn_for_seconds_stays_throttled_while_its_memory_turns_over(enforcing):
    # A partition key's bucket outlives the second it was spent in: okura forgets keys a
    # second's worth at a time (core/throughput.py, _Keys), never one still overdrawn.
    ddb = enforcing.client()
    table = unique_name("thr")
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "S"}])
    big = "z" * 399_000  # 390 write units an item: 24 of them, 9.4 seconds of one key
    unprocessed = ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"pk": {"S": "hot"}, "sk": {"S": f"{n}"}, "v": {"S": big}}}}
        for n in range(24)]})["UnprocessedItems"]
    assert unprocessed == {}
    for other in ("a", "b", "c"):  # three turns of the keys' memory, other keys written
        advance(enforcing, 2.0)
        ddb.put_item(TableName=table, Item={"pk": {"S": other}, "sk": {"S": "0"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"pk": {"S": "hot"}, "sk": {"S": "again"}})
    assert _throttled(excinfo)[0] == "ProvisionedThroughputExceededException"
    advance(enforcing, 4.0)
    ddb.put_item(TableName=table, Item={"pk": {"S": "hot"}, "sk": {"S": "again"}})


def _overdrawn(ddb) -> str:
    """A provisioned table of 1 read and 1 write unit a second whose budgets are
    overdrawn by about 90 units each: throttled for some 90 seconds of real time."""
    table, _ = _table(ddb, provisioned=(1, 1))
    big = {"pk": {"S": "big"}, "v": {"S": "w" * 399_000}}  # 390 write units, 98 read units
    ddb.put_item(TableName=table, Item=big)  # 300 units of burst, less 390
    with pytest.raises(ClientError):
        for _ in range(5):  # 300 units of burst, 98 a read
            ddb.get_item(TableName=table, Key={"pk": {"S": "big"}}, ConsistentRead=True)
    return table


def test_batches_leave_what_is_throttled_unprocessed_and_fail_whole_only_if_all_is(enforcing):
    ddb = enforcing.client()
    throttled, free = _overdrawn(ddb), _table(ddb)[0]
    reply = ddb.batch_write_item(RequestItems={
        throttled: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}},
                    {"DeleteRequest": {"Key": {"pk": {"S": "b"}}}}],
        free: [{"PutRequest": {"Item": {"pk": {"S": "c"}}}}]})
    assert reply["UnprocessedItems"] == {throttled: [
        {"PutRequest": {"Item": {"pk": {"S": "a"}}}}, {"DeleteRequest": {"Key": {"pk": {"S": "b"}}}}]}
    assert ddb.get_item(TableName=free, Key={"pk": {"S": "c"}})["Item"] == {"pk": {"S": "c"}}
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(RequestItems={throttled: [
            {"PutRequest": {"Item": {"pk": {"S": "a"}}}}]})
    assert _throttled(excinfo)[0] == "ProvisionedThroughputExceededException"
    reply = ddb.batch_get_item(RequestItems={throttled: {"Keys": [{"pk": {"S": "big"}}]},
                                             free: {"Keys": [{"pk": {"S": "c"}}]}})
    assert reply["Responses"] == {throttled: [], free: [{"pk": {"S": "c"}}]}
    assert reply["UnprocessedKeys"] == {throttled: {"Keys": [{"pk": {"S": "big"}}]}}
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_get_item(RequestItems={throttled: {"Keys": [{"pk": {"S": "big"}}]}})
    assert _throttled(excinfo)[0] == "ProvisionedThroughputExceededException"


def test_a_transaction_is_throttled_whole(enforcing):
    ddb = enforcing.client()
    throttled, free = _overdrawn(ddb), _table(ddb)[0]
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": free, "Item": {"pk": {"S": "c"}}}},
            {"Put": {"TableName": throttled, "Item": {"pk": {"S": "a"}}}}])
    assert excinfo.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [reason["Code"] for reason in excinfo.value.response["CancellationReasons"]] == [
        "None", "ThrottlingError"]
    assert "Item" not in ddb.get_item(TableName=free, Key={"pk": {"S": "c"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_get_items(TransactItems=[
            {"Get": {"TableName": throttled, "Key": {"pk": {"S": "big"}}}}])
    assert [reason["Code"] for reason in excinfo.value.response["CancellationReasons"]] == [
        "ThrottlingError"]


def test_a_gsi_short_of_write_capacity_throttles_the_table_s_writes(enforcing):
    ddb = enforcing.client()
    table, arn = _table(ddb, provisioned=(5, 1000), gsi=(5, 1))
    written, excinfo = _put_until_throttled(ddb, table, 400, g={"S": "same"})
    assert 300 <= written <= 320
    assert _throttled(excinfo) == ("ProvisionedThroughputExceededException", [
        {"reason": "IndexWriteProvisionedThroughputExceeded", "resource": arn + "/index/byg"}])


def test_boto3_s_standard_retries_recover(enforcing):
    table, _ = _table(enforcing.client(), provisioned=(5, 1))
    # one item of 390 units: the burst overdrawn by 90, which real time will not refill
    enforcing.client().put_item(TableName=table, Item={"pk": {"S": "big"},
                                                       "v": {"S": "x" * 399_000}})
    client = boto3.client("dynamodb", endpoint_url=enforcing.url, region_name="us-east-1",
                          aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
                          config=Config(retries={"mode": "standard", "max_attempts": 10}))
    refused = []

    def refill_once_refused(response, **_):
        # botocore asks whether to retry each attempt: once one is throttled, the clock
        # moves past the debt, so a retry after botocore's backoff succeeds
        if not refused and response is not None and response[0].status_code == 400:
            refused.append(response[1]["Error"]["Code"])
            advance(enforcing, 600)

    client.meta.events.register("needs-retry.dynamodb.PutItem", refill_once_refused)
    reply = client.put_item(TableName=table, Item={"pk": {"S": "retried"}, "v": {"S": KB}})
    assert refused == ["ProvisionedThroughputExceededException"]
    assert reply["ResponseMetadata"]["RetryAttempts"] >= 1


def test_shadow_lets_everything_through_and_counts_what_it_would_throttle(clocked):  # noqa: F811
    server = clocked()  # shadow is the default
    ddb = server.client()
    table, _ = _table(ddb, provisioned=(5, 1))
    # 390 units against 300 of burst: overdrawn for some 90 seconds of real time
    ddb.put_item(TableName=table, Item={"pk": {"S": "big"}, "v": {"S": "w" * 399_000}})
    fresh_period(server)  # the writes below count in one period, whatever the minute
    for n in range(10):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"k{n}"}, "v": {"S": KB}})
    assert len(ddb.scan(TableName=table)["Items"]) == 11  # nothing was refused
    lines = completed(server).text.splitlines()
    for metric, also in (("throttled_requests", 'operation="PutItem"'),
                         ("write_throttle_events", "")):
        assert [float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith(
            f"aws_dynamodb_{metric}_sum") and f'table_name="{table}"' in line
            and also in line] == [10.0]
    assert server.log_text().count("would be throttled") == 1  # at most once a minute


def test_a_table_s_mode_is_set_through_the_admin_endpoint(clocked):  # noqa: F811
    server = clocked("--throttling", "off")
    ddb = server.client()
    table, _ = _table(ddb, provisioned=(5, 1))
    status, reply = admin(server, "POST", json.dumps({"table": table, "mode": "enforce"}).encode(),
                          "/okura/throttling")
    assert (status, reply) == (200, {"mode": "off", "tables": {table: "enforce"}})
    _put_until_throttled(ddb, table, 400)
    status, reply = admin(server, "POST", json.dumps({"table": table, "mode": None}).encode(),
                          "/okura/throttling")
    assert (status, reply) == (200, {"mode": "off", "tables": {}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "free"}, "v": {"S": KB}})
    status, reply = admin(server, "POST", json.dumps({"mode": "sometimes"}).encode(),
                          "/okura/throttling")
    assert (status, reply) == (400, {"error": '"mode" must be one of off, shadow, enforce'})
