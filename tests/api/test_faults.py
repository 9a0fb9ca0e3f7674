"""Fault injection (docs/admin.md, "Fault injection"): /okura/faults rules make chosen
requests fail as DynamoDB's do, and clients' retries recover. The rules live in the
serving node's memory, whatever the backend: one in-memory server of this module's own
(its rules and clock touch no other test)."""
from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time
import urllib.request

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError, ConnectionClosedError
from conftest import Server, error_of, unique_name

_ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/"


@pytest.fixture(scope="module")
def node():
    instance = Server()
    yield instance
    instance.stop()


@pytest.fixture(scope="module")
def ddb(node):
    return node.client()


def _admin(node, method: str, body=None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", node.port, timeout=10)
    try:
        connection.request(method, "/okura/faults",
                           None if body is None else json.dumps(body).encode(),
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def _inject(node, rule) -> list[dict]:
    status, reply = _admin(node, "POST", rule)
    assert status == 200, reply
    return reply["rules"]


@pytest.fixture
def table(node, ddb):
    """A new table keyed by pk (S), with a GSI on g; no rules before or after."""
    _admin(node, "DELETE")
    name = unique_name("faults")
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "g", "AttributeType": "S"}],
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "by_g", "KeySchema": [{"AttributeName": "g",
                                                             "KeyType": "HASH"}],
                         "Projection": {"ProjectionType": "ALL"}}])
    yield name
    _admin(node, "DELETE")


def _put(ddb, table: str, pk: str) -> str | None:
    """The error code of a PutItem, None if it succeeded."""
    try:
        ddb.put_item(TableName=table, Item={"pk": {"S": pk}, "g": {"S": "x"}})
    except ClientError as error:
        return error.response["Error"]["Code"]
    return None


def test_rules_are_listed_and_cleared(node, table):
    added = _inject(node, [{"operation": "PutItem", "table": table, "error":
                            "InternalServerError", "count": 3},
                           {"operation": "GetItem", "latency": 0.01, "every": 5}])
    assert [rule["id"] for rule in added] == [added[0]["id"], added[0]["id"] + 1]
    status, listed = _admin(node, "GET")
    assert status == 200
    assert [(r["operation"], r["matched"], r["fired"]) for r in listed["rules"]] == [
        ("PutItem", 0, 0), ("GetItem", 0, 0)]
    assert _admin(node, "DELETE") == (200, {"cleared": 2})
    assert _admin(node, "GET") == (200, {"rules": []})


@pytest.mark.parametrize("rule, message", [
    ({"error": "Nope"}, '"error" must be one of'),
    ({"operation": "PutItems", "error": "InternalServerError"}, "no operation 'PutItems'"),
    ({"operation": "PutItem"}, 'a rule injects one of'),
    ({"error": "InternalServerError", "drop_connection": True}, "a rule injects one of"),
    ({"error": "InternalServerError", "probability": 2}, '"probability" must be a number'),
    ({"error": "InternalServerError", "every": 0}, '"every" must be a whole number'),
    ({"error": "InternalServerError", "every": 2, "probability": 0.5}, "not both"),
    ({"unprocessed": 0.5, "operation": "PutItem"}, '"unprocessed" needs'),
    ({"error": "InternalServerError", "reason": "AccountLimitExceeded"}, '"reason" goes'),
    ({"error": "InternalServerError", "colour": "red"}, "unknown rule field 'colour'"),
    ([{"error": "InternalServerError"}, 5], "rule 2: a rule must be a JSON object"),
])
def test_bad_rules_are_refused(node, table, rule, message):
    status, reply = _admin(node, "POST", rule)
    assert status == 400 and message in reply["error"], reply
    assert _admin(node, "GET") == (200, {"rules": []})  # none of a bad list is added


def test_a_seeded_rule_fires_on_the_same_requests_every_time(node, ddb, table):
    rule = {"operation": "PutItem", "table": table, "error":
            "ProvisionedThroughputExceededException", "probability": 0.5, "count": 10,
            "seed": 7}
    runs = []
    for _ in range(2):
        _inject(node, rule)
        runs.append([_put(ddb, table, f"k{n}") for n in range(40)])
        _admin(node, "DELETE")
    assert runs[0] == runs[1]
    assert runs[0].count("ProvisionedThroughputExceededException") == 10  # then it is spent
    assert set(runs[0]) == {None, "ProvisionedThroughputExceededException"}


def test_throttling_errors_name_their_table_or_index(node, ddb, table):
    _inject(node, {"operation": "PutItem", "table": table, "every": 2,
                   "error": "ProvisionedThroughputExceededException"})
    assert [_put(ddb, table, f"k{n}") for n in range(4)] == [
        None, "ProvisionedThroughputExceededException"] * 2
    _admin(node, "DELETE")
    _inject(node, {"operation": "Query", "index": "by_g", "error": "ThrottlingException",
                   "reason": "MaxOnDemandThroughputExceeded", "count": 1})
    reply = node.post("Query", {"TableName": table, "IndexName": "by_g",
                                "KeyConditionExpression": "g = :g",
                                "ExpressionAttributeValues": {":g": {"S": "x"}}})
    assert reply.status == 400
    assert reply.json["__type"] == "com.amazon.coral.availability#ThrottlingException"
    assert reply.json["throttlingReasons"] == [{
        "reason": "IndexReadMaxOnDemandThroughputExceeded",
        "resource": f"{_ARN}{table}/index/by_g"}]
    _inject(node, {"operation": "GetItem", "error": "RequestLimitExceeded", "count": 1})
    reply = node.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "k"}}})
    assert reply.json["__type"] == "com.amazonaws.dynamodb.v20120810#RequestLimitExceeded"
    assert reply.json["ThrottlingReasons"] == [{"reason": "TableReadAccountLimitExceeded",
                                                "resource": _ARN + table}]


def test_key_prefix_picks_the_hot_keys(node, ddb, table):
    _inject(node, {"table": table, "key_prefix": "hot#", "error":
                   "ProvisionedThroughputExceededException"})
    assert _put(ddb, table, "hot#1") == "ProvisionedThroughputExceededException"
    assert _put(ddb, table, "cold#1") is None
    with pytest.raises(ClientError) as raised:
        ddb.get_item(TableName=table, Key={"pk": {"S": "hot#2"}})
    assert error_of(raised)[0] == "ProvisionedThroughputExceededException"
    ddb.get_item(TableName=table, Key={"pk": {"S": "cold#1"}})


def test_standard_retries_recover_from_injected_throttles(node, table):
    retrying = boto3.client("dynamodb", endpoint_url=node.url, region_name="us-east-1",
                            aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
                            config=Config(retries={"mode": "standard", "max_attempts": 5}))
    _inject(node, {"operation": "PutItem", "table": table, "count": 2,
                   "error": "ThrottlingException"})
    reply = retrying.put_item(TableName=table, Item={"pk": {"S": "a"}})
    assert reply["ResponseMetadata"]["RetryAttempts"] == 2
    assert _admin(node, "GET") == (200, {"rules": []})  # spent, so dropped
    assert retrying.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"]


def test_server_errors(node, table):
    _inject(node, {"operation": "GetItem", "error": "InternalServerError", "count": 1})
    reply = node.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "k"}}})
    assert (reply.status, reply.json) == (500, {
        "__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
        "message": "Internal server error"})
    _inject(node, {"operation": "GetItem", "error": "ServiceUnavailable", "count": 1})
    reply = node.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "k"}}})
    assert reply.status == 503
    assert reply.json["__type"] == "com.amazon.coral.service#ServiceUnavailable"
    assert node.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "k"}}}).status == 200


def test_transaction_conflicts(node, ddb, table):
    _inject(node, {"table": table, "key_prefix": "b", "error": "TransactionConflict",
                   "count": 2})
    with pytest.raises(ClientError) as raised:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": table, "Item": {"pk": {"S": "a"}}}},
            {"Put": {"TableName": table, "Item": {"pk": {"S": "b"}}}}])
    assert error_of(raised)[0] == "TransactionCanceledException"
    assert raised.value.response["CancellationReasons"] == [
        {"Code": "None"},
        {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}]
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})
    with pytest.raises(ClientError) as raised:  # outside a transaction
        ddb.put_item(TableName=table, Item={"pk": {"S": "b"}})
    assert error_of(raised)[0] == "TransactionConflictException"


def test_batches_leave_some_items_unprocessed(node, ddb, table):
    _inject(node, {"operation": "BatchWriteItem", "unprocessed": 0.5, "count": 1, "seed": 3})
    writes = [{"PutRequest": {"Item": {"pk": {"S": f"w{n}"}}}} for n in range(6)]
    reply = ddb.batch_write_item(RequestItems={table: writes},
                                 ReturnConsumedCapacity="TOTAL")
    left = reply["UnprocessedItems"][table]
    assert len(left) == 3 and all(write in writes for write in left)
    # only the writes made are charged (these items have no GSI key)
    assert reply["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 3.0}]
    stored = {n for n in range(6) if "Item" in ddb.get_item(
        TableName=table, Key={"pk": {"S": f"w{n}"}})}
    assert {f"w{n}" for n in stored} == {
        write["PutRequest"]["Item"]["pk"]["S"] for write in writes if write not in left}
    # asked again, they are written
    assert ddb.batch_write_item(RequestItems={table: left})["UnprocessedItems"] == {}

    _inject(node, {"operation": "BatchGetItem", "unprocessed": 1, "count": 1})
    keys = [{"pk": {"S": f"w{n}"}} for n in range(4)]
    reply = ddb.batch_get_item(RequestItems={table: {"Keys": keys, "ConsistentRead": True}})
    assert reply["Responses"] == {table: []}
    assert reply["UnprocessedKeys"] == {table: {"Keys": keys, "ConsistentRead": True}}
    reply = ddb.batch_get_item(RequestItems={table: {"Keys": keys}})
    assert len(reply["Responses"][table]) == 4 and reply["UnprocessedKeys"] == {}


def test_latency_and_dropped_connections(node, ddb, table):
    _inject(node, {"operation": "GetItem", "latency": 0.3, "count": 1})
    started = time.monotonic()
    ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})
    assert time.monotonic() - started >= 0.3
    _inject(node, {"operation": "GetItem", "drop_connection": True, "count": 1})
    with pytest.raises(ConnectionClosedError):
        ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})
    ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})  # a new connection is served


def test_a_rule_lasts_its_duration_on_okuras_clock(node, ddb, table):
    _inject(node, {"operation": "PutItem", "table": table, "duration": 60,
                   "error": "InternalServerError"})
    assert _put(ddb, table, "a") == "InternalServerError"
    urllib.request.urlopen(urllib.request.Request(
        node.url + "/okura/clock", data=b'{"advance": 61}', method="POST",
        headers={"Content-Type": "application/json"}))
    assert _put(ddb, table, "a") is None
    assert _admin(node, "GET") == (200, {"rules": []})


def test_injected_faults_are_counted_in_the_metrics(node, ddb, table):
    _inject(node, {"operation": "DeleteItem", "table": table, "error": "ThrottlingException",
                   "count": 2})
    for _ in range(2):
        with pytest.raises(ClientError):
            ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    with urllib.request.urlopen(node.url + "/metrics") as reply:
        page = reply.read().decode()
    assert (f'okura_injected_faults_total{{operation="DeleteItem",table_name="{table}",'
            'fault="ThrottlingException"} 2') in page


def test_rules_load_from_okura_toml(tmp_path):
    (tmp_path / "okura.toml").write_text(
        '[[faults]]\noperation = "ListTables"\nerror = "ServiceUnavailable"\ncount = 1\n')
    instance = Server("--config", str(tmp_path / "okura.toml"))
    try:
        assert instance.post("ListTables", {}).status == 503
        assert instance.post("ListTables", {}).status == 200
    finally:
        instance.stop()
    (tmp_path / "okura.toml").write_text('[[faults]]\nerror = "Nope"\n')
    started = subprocess.run([sys.executable, "-m", "okura", "serve", "--memory", "--port", "0",
                              "--config", str(tmp_path / "okura.toml")],
                             capture_output=True, text=True, timeout=30)
    assert started.returncode != 0
    assert "faults: \"error\" must be one of" in started.stderr
