"""GET /metrics: DynamoDB's CloudWatch metrics for the last complete one-minute
period of okura's clock, in Prometheus's text format, named as the Prometheus
CloudWatch exporter names them (okura/server/prometheus.py, okura/core/metrics.py).

Each test works in periods of its own: it moves the clock to just after the start of
a fresh period (and scrapes, which ends the period before it at once), does its
requests, then moves the clock 60 s on so that their period is the last complete
one, and scrapes. Tables have names of their own, and UserErrors (which has no
table) is read in a region of the test's own.
"""
from __future__ import annotations

import http.client
import json
import re
import socket
import time
import uuid

import pytest
from botocore.exceptions import ClientError
from conftest import Server, error_of, unique_name
from test_clock import admin, advance, clocked  # noqa: F401 - clocked is a fixture

STATISTICS = {"sum": "Sum", "sample_count": "SampleCount", "average": "Average",
              "minimum": "Minimum", "maximum": "Maximum"}
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
REGION = "us-east-1"
KEY = [{"AttributeName": "pk", "KeyType": "HASH"}]
PK = [{"AttributeName": "pk", "AttributeType": "S"}]


# --- servers --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def node(clocked):  # noqa: F811
    return clocked("--ttl-interval", "0.05")


@pytest.fixture(scope="module")
def ddb(node):
    return node.client()


@pytest.fixture(scope="module")
def delayed(clocked):  # noqa: F811
    """A server whose tables and index jobs wait 5 s of its clock before they start."""
    return clocked("--status-delay", "5")


def backend_of(request) -> str:
    return request.node.callspec.params["clocked"]


def settle(server) -> None:
    """Let the notifications of catalog changes reach the server. On PostgreSQL a
    change's notification drops the table from the node's catalog cache, sometimes
    after the change, sometimes before the node caches the new version: a test that
    needs the table held waits, then lists the tables (ListTables loads every table of
    the region, and names none: it is no traffic of any table)."""
    if "--postgres" in server.process.args:
        time.sleep(0.3)


# --- the exposition -------------------------------------------------------------------

_SAMPLE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{(.*)\} (\S+)")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
_HELP = re.compile(r"CloudWatch metric AWS/DynamoDB ([A-Za-z]+) Dimensions: \[([A-Za-z, ]*)\] "
                   r"Statistic: ([A-Za-z]+) Unit: ([A-Za-z]+)")


def parse_labels(text: str) -> list[tuple[str, str]]:
    """The labels of a sample, in order (the whole text must be labels)."""
    labels, position = [], 0
    while position < len(text):
        match = _LABEL.match(text, position)
        assert match, f"bad labels {text!r} at {position}"
        value = re.sub(r"\\(.)", lambda m: {"n": "\n"}.get(m.group(1), m.group(1)),
                       match.group(2))
        labels.append((match.group(1), value))
        position = match.end()
        if position < len(text):
            assert text[position] == ",", f"bad labels {text!r} at {position}"
            position += 1
    return labels


class Page:
    """A parsed exposition: HELP and TYPE per metric name, samples in order."""

    def __init__(self, text: str):
        self.text = text
        self.helps: dict[str, str] = {}
        self.types: dict[str, str] = {}
        self.samples: list[tuple[str, list[tuple[str, str]], float]] = []
        for line in text.splitlines():
            if line.startswith("# HELP "):
                name, _, help_text = line[len("# HELP "):].partition(" ")
                assert name not in self.helps, f"second HELP for {name}"
                self.helps[name] = help_text
            elif line.startswith("# TYPE "):
                name, _, kind = line[len("# TYPE "):].partition(" ")
                assert name not in self.types, f"second TYPE for {name}"
                self.types[name] = kind
            else:
                match = _SAMPLE.fullmatch(line)
                assert match, f"not a sample line: {line!r}"
                self.samples.append((match.group(1), parse_labels(match.group(2)),
                                     float(match.group(3))))

    def stats(self, metric: str, region: str = REGION, **dimensions: str) -> dict | None:
        """The five statistics of metric `metric` (snake case) for exactly these
        dimensions, or None if it has no series for them."""
        wanted = {"job": "aws_dynamodb", "instance": "", **dimensions, "region": region}
        found = {}
        for suffix in STATISTICS:
            values = [value for name, labels, value in self.samples
                      if name == f"aws_dynamodb_{metric}_{suffix}" and dict(labels) == wanted]
            assert len(values) <= 1, f"{metric}_{suffix} twice for {wanted}"
            if values:
                found[suffix] = values[0]
        if not found:
            return None
        assert set(found) == set(STATISTICS), f"{metric} lacks statistics: {found}"
        return found

    def values(self, metric: str, suffix: str, key: str, **dimensions: str) -> dict:
        """{label `key`'s value: value} of one statistic over the series that have
        these other labels."""
        out = {}
        for name, labels, value in self.samples:
            held = dict(labels)
            if name == f"aws_dynamodb_{metric}_{suffix}" and key in held and all(
                    held.get(k) == v for k, v in dimensions.items()):
                out[held[key]] = value
        return out

    def tables(self) -> set[str]:
        return {dict(labels).get("table_name") for _, labels, _ in self.samples} - {None}


def scrape(server, method: str = "GET") -> tuple[int, dict, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request(method, "/metrics")
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def page_of(server) -> Page:
    status, headers, body = scrape(server)
    assert status == 200
    assert headers["content-type"] == CONTENT_TYPE
    return Page(body.decode())


def fresh_period(server) -> None:
    """Move the clock to 1 s into the next period, and scrape: the scrape rolls the
    metrics over at once, so that the requests that follow count in this period."""
    now = admin(server, "GET")[1]["now"]
    advance(server, 60 - now % 60 + 1)
    page_of(server)


def completed(server) -> Page:
    """Make the current period the last complete one; the page then."""
    advance(server, 60)
    return page_of(server)


def stat_of(values: list[float]) -> dict:
    """The statistics CloudWatch keeps of these samples."""
    return {"sum": sum(values), "sample_count": float(len(values)),
            "average": sum(values) / len(values), "minimum": min(values),
            "maximum": max(values)}


def counted(count: int) -> dict:
    """A count metric's statistics (each event a sample of 1)."""
    return {"sum": float(count), "sample_count": float(count), "average": 1.0,
            "minimum": 1.0, "maximum": 1.0}


ZERO = {"sum": 0.0, "sample_count": 1.0, "average": 0.0, "minimum": 0.0, "maximum": 0.0}


def create(ddb, billing: str = "PAY_PER_REQUEST", sort: bool = False, **extra) -> str:
    name = unique_name("metrics")
    schema, attributes = list(KEY), list(PK)
    if sort:
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": "N"})
    attributes += extra.pop("more_attributes", [])
    if billing == "PROVISIONED":
        extra.setdefault("ProvisionedThroughput", {"ReadCapacityUnits": 5,
                                                   "WriteCapacityUnits": 7})
    ddb.create_table(TableName=name, KeySchema=schema, AttributeDefinitions=attributes,
                     BillingMode=billing, **extra)
    return name


def gsi(name: str, attribute: str, throughput: dict | None = None) -> dict:
    index = {"IndexName": name, "KeySchema": [{"AttributeName": attribute, "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}}
    if throughput:
        index["ProvisionedThroughput"] = throughput
    return index


# --- the format -----------------------------------------------------------------------

def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def test_format(node, ddb):
    table = create(ddb)
    provisioned = create(ddb, "PROVISIONED", more_attributes=[
        {"AttributeName": "g", "AttributeType": "S"}], GlobalSecondaryIndexes=[
        gsi("by_g", "g", {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})])
    settle(node)  # the put below then holds the table
    fresh_period(node)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})
    ddb.query(TableName=table, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "a"}})
    ddb.put_item(TableName=provisioned, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
    with pytest.raises(ClientError):
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}},
                     ConditionExpression="attribute_not_exists(pk)")
    with pytest.raises(ClientError):
        ddb.describe_table(TableName=unique_name("missing"))
    advance(node, 60)
    status, headers, body = scrape(node)
    assert status == 200
    assert headers["content-type"] == CONTENT_TYPE
    text = body.decode()
    assert text.endswith("\n")
    page = Page(text)

    # every sample belongs to a gauge family declared (HELP, then TYPE) just before it,
    # and a family's samples are together
    lines = text.splitlines()
    current, seen = None, set()
    for i, line in enumerate(lines):
        if line.startswith("# HELP "):
            current = line.split(" ")[2]
            assert current not in seen
            seen.add(current)
            assert lines[i + 1] == f"# TYPE {current} gauge"
        elif not line.startswith("#"):
            assert line.split("{")[0] == current, line
    assert set(page.types) == set(page.helps) == seen
    assert set(page.types.values()) == {"gauge"}
    names = {name for name, _, _ in page.samples}
    assert names == set(page.types)  # no family without samples either

    families = {}
    for name, help_text in page.helps.items():
        match = _HELP.fullmatch(help_text)
        assert match, help_text
        metric, dimensions, statistic, unit = match.groups()
        suffix = name.removeprefix(f"aws_dynamodb_{snake(metric)}_")
        assert STATISTICS[suffix] == statistic, name
        assert unit == {"SuccessfulRequestLatency": "Milliseconds",
                        "OnlineIndexPercentageProgress": "Percent"}.get(metric, "Count")
        families.setdefault(metric, set()).add(suffix)
        # the dimensions named are those of the family's series
        shapes = {", ".join({"table_name": "TableName", "operation": "Operation",
                             "global_secondary_index_name": "GlobalSecondaryIndexName"}[key]
                            for key, _ in labels[2:-1])
                  for sample, labels, _ in page.samples if sample == name}
        assert dimensions in shapes, (name, dimensions, shapes)
    assert all(suffixes == set(STATISTICS) for suffixes in families.values())
    assert {"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits",
            "SuccessfulRequestLatency", "ReturnedItemCount", "ThrottledRequests",
            "ReadThrottleEvents", "WriteThrottleEvents", "ConditionalCheckFailedRequests",
            "UserErrors", "ProvisionedReadCapacityUnits",
            "ProvisionedWriteCapacityUnits"} <= set(families)
    helps = {help_text.split(" Statistic:")[0] for help_text in page.helps.values()}
    assert {"CloudWatch metric AWS/DynamoDB UserErrors Dimensions: []",
            "CloudWatch metric AWS/DynamoDB SuccessfulRequestLatency Dimensions: "
            "[TableName, Operation]",
            "CloudWatch metric AWS/DynamoDB ConditionalCheckFailedRequests Dimensions: "
            "[TableName]"} <= helps

    # labels: job, instance, then the dimensions, then region
    for name, labels, value in page.samples:
        keys = [key for key, _ in labels]
        assert labels[:2] == [("job", "aws_dynamodb"), ("instance", "")]
        assert keys[-1] == "region"
        assert keys[2:-1] in ([], ["table_name"], ["table_name", "operation"],
                              ["table_name", "global_secondary_index_name"]), name
        assert (keys[2:-1] == []) == name.startswith("aws_dynamodb_user_errors_"), name
    assert page.stats("successful_request_latency", table_name=table,
                      operation="GetItem")["sample_count"] == 1.0

    # HEAD: the headers alone
    status, headers, body = scrape(node, "HEAD")
    assert (status, headers["content-type"], body) == (200, CONTENT_TYPE, b"")


# --- consumed capacity ----------------------------------------------------------------

BIG = "x" * 5000


def capacity_requests(ddb, table: str, rcc: bool) -> list[tuple[str, float | None]]:
    """A request of every kind that spends capacity on `table`; ("read" or "write", the
    units the reply reports for the table, None when not asked)."""
    extra = {"ReturnConsumedCapacity": "TOTAL"} if rcc else {}
    out = []

    def spent(kind: str, reply: dict) -> None:
        if not rcc:
            assert "ConsumedCapacity" not in reply
            out.append((kind, None))
            return
        consumed = reply["ConsumedCapacity"]
        if isinstance(consumed, dict):
            consumed = [consumed]
        assert [c["TableName"] for c in consumed] == [table]
        out.append((kind, consumed[0]["CapacityUnits"]))

    big, small = {"pk": {"S": "big"}}, {"pk": {"S": "small"}}
    spent("write", ddb.put_item(TableName=table, Item={**big, "v": {"S": BIG}}, **extra))
    spent("write", ddb.put_item(TableName=table, Item=small, **extra))
    spent("read", ddb.get_item(TableName=table, Key=big, **extra))
    spent("read", ddb.get_item(TableName=table, Key=big, ConsistentRead=True, **extra))
    spent("read", ddb.get_item(TableName=table, Key={"pk": {"S": "none"}}, **extra))
    spent("write", ddb.update_item(TableName=table, Key=small, UpdateExpression="SET n = :n",
                                   ExpressionAttributeValues={":n": {"N": "1"}}, **extra))
    spent("read", ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": {"S": "big"}}, **extra))
    spent("read", ddb.scan(TableName=table, ConsistentRead=True, **extra))
    spent("read", ddb.batch_get_item(RequestItems={table: {"Keys": [big, small]}}, **extra))
    spent("write", ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": {"pk": {"S": "b1"}}}},
        {"PutRequest": {"Item": {"pk": {"S": "b2"}, "v": {"S": BIG}}}}]}, **extra))
    spent("read", ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table,
                                                                 "Key": big}}], **extra))
    spent("write", ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": {"pk": {"S": "t1"}}}},
        {"Update": {"TableName": table, "Key": small, "UpdateExpression": "SET n = n + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}}], **extra))
    spent("read", ddb.execute_statement(Statement=f'SELECT * FROM "{table}" WHERE pk = ?',
                                        Parameters=[{"S": "big"}], **extra))
    spent("write", ddb.execute_statement(Statement=f"INSERT INTO \"{table}\" VALUE {{'pk': ?}}",
                                         Parameters=[{"S": "p1"}], **extra))
    spent("write", ddb.delete_item(TableName=table, Key=big, **extra))
    return out


def test_consumed_capacity_sums_what_requests_report(node, ddb):
    fresh_period(node)
    asked, silent = create(ddb), create(ddb)
    reported = capacity_requests(ddb, asked, rcc=True)
    unreported = capacity_requests(ddb, silent, rcc=False)
    page = completed(node)
    reads = [units for kind, units in reported if kind == "read"]
    writes = [units for kind, units in reported if kind == "write"]
    assert (len(reads), len(writes)) == (8, 7)
    assert min(reads) < max(reads) and min(writes) < max(writes)  # item sizes tell
    assert [kind for kind, _ in unreported] == [kind for kind, _ in reported]
    assert page.stats("consumed_read_capacity_units", table_name=asked) == stat_of(reads)
    assert page.stats("consumed_write_capacity_units", table_name=asked) == stat_of(writes)
    # capacity is spent (and counted) whether or not the request asks to hear of it
    assert page.stats("consumed_read_capacity_units", table_name=silent) == stat_of(reads)
    assert page.stats("consumed_write_capacity_units", table_name=silent) == stat_of(writes)


def test_consumed_capacity_of_a_global_secondary_index(node, ddb):
    fresh_period(node)
    table = create(ddb, more_attributes=[{"AttributeName": "g", "AttributeType": "S"}],
                   GlobalSecondaryIndexes=[gsi("by_g", "g")])
    replies = [
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "g": {"S": "x"}},
                     ReturnConsumedCapacity="INDEXES"),
        ddb.put_item(TableName=table, Item={"pk": {"S": "b"}}, ReturnConsumedCapacity="INDEXES"),
        ddb.update_item(TableName=table, Key={"pk": {"S": "b"}}, UpdateExpression="SET g = :g",
                        ExpressionAttributeValues={":g": {"S": "x"}},
                        ReturnConsumedCapacity="INDEXES"),
        ddb.put_item(TableName=table, Item={"pk": {"S": "c"}, "g": {"S": "y"},
                                            "v": {"S": BIG}}, ReturnConsumedCapacity="INDEXES")]
    query = ddb.query(TableName=table, IndexName="by_g", KeyConditionExpression="g = :g",
                      ExpressionAttributeValues={":g": {"S": "x"}},
                      ReturnConsumedCapacity="INDEXES")
    page = completed(node)
    consumed = [reply["ConsumedCapacity"] for reply in replies]
    on_index = [c["GlobalSecondaryIndexes"]["by_g"]["CapacityUnits"] for c in consumed
                if c.get("GlobalSecondaryIndexes", {}).get("by_g", {}).get("CapacityUnits")]
    assert len(on_index) == 3  # the put of "b" has no g: nothing to write in the index
    assert page.stats("consumed_write_capacity_units", table_name=table) == stat_of(
        [c["Table"]["CapacityUnits"] for c in consumed])
    assert page.stats("consumed_write_capacity_units", table_name=table,
                      global_secondary_index_name="by_g") == stat_of(on_index)
    index_read = query["ConsumedCapacity"]["GlobalSecondaryIndexes"]["by_g"]["CapacityUnits"]
    assert query["Count"] == 2 and index_read > 0
    assert page.stats("consumed_read_capacity_units", table_name=table,
                      global_secondary_index_name="by_g") == stat_of([index_read])
    # the query read the index alone
    assert page.stats("consumed_read_capacity_units", table_name=table) is None
    assert page.values("successful_request_latency", "sample_count", "operation",
                       table_name=table) == {"PutItem": 3.0, "UpdateItem": 1.0, "Query": 1.0}


# --- latency, returned items, throttling ---------------------------------------------

def test_successful_request_latency_by_operation(node, ddb):
    fresh_period(node)
    table = create(ddb)
    started = time.perf_counter()
    for n in range(3):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"k{n}"}})
    for n in range(2):
        ddb.get_item(TableName=table, Key={"pk": {"S": f"k{n}"}})
    ddb.query(TableName=table, KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "k0"}})
    ddb.describe_table(TableName=table)  # not a data-plane operation: no latency
    elapsed_ms = (time.perf_counter() - started) * 1000
    with pytest.raises(ClientError):  # failed requests have no SuccessfulRequestLatency
        ddb.put_item(TableName=table, Item={"pk": {"S": "k0"}},
                     ConditionExpression="attribute_not_exists(pk)")
    page = completed(node)
    counts = page.values("successful_request_latency", "sample_count", "operation",
                         table_name=table)
    assert counts == {"PutItem": 3.0, "GetItem": 2.0, "Query": 1.0}
    for operation, count in counts.items():
        latency = page.stats("successful_request_latency", table_name=table,
                             operation=operation)
        assert 0 < latency["minimum"] <= latency["average"] <= latency["maximum"] < elapsed_ms
        assert latency["average"] == latency["sum"] / count
        assert latency["sum"] <= elapsed_ms


def test_no_throttling_where_there_is_traffic(node, ddb):
    fresh_period(node)
    table = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})
    page = completed(node)
    for operation in ("PutItem", "GetItem"):
        assert page.stats("throttled_requests", table_name=table, operation=operation) == ZERO
    assert set(page.values("throttled_requests", "sum", "operation", table_name=table)) == {
        "PutItem", "GetItem"}
    assert page.stats("read_throttle_events", table_name=table) == ZERO
    assert page.stats("write_throttle_events", table_name=table) == ZERO


def test_returned_item_count_after_filters(node, ddb):
    fresh_period(node)
    table = create(ddb, sort=True)
    for n in range(1, 6):
        ddb.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": str(n)},
                                            "n": {"N": str(n)}})
    key = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p"}}}
    filtered = ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                         FilterExpression="n > :two",
                         ExpressionAttributeValues={":p": {"S": "p"}, ":two": {"N": "2"}})
    assert (filtered["Count"], filtered["ScannedCount"]) == (3, 5)
    assert ddb.query(TableName=table, Limit=2, **key)["Count"] == 2
    assert ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": {"S": "none"}})["Count"] == 0
    assert ddb.scan(TableName=table, FilterExpression="n <= :one",
                    ExpressionAttributeValues={":one": {"N": "1"}})["Count"] == 1
    assert ddb.scan(TableName=table)["Count"] == 5
    assert len(ddb.execute_statement(
        Statement=f"SELECT * FROM \"{table}\" WHERE pk = 'p' AND sk > 3")["Items"]) == 2
    ddb.get_item(TableName=table, Key={"pk": {"S": "p"}, "sk": {"N": "1"}})
    page = completed(node)
    assert page.stats("returned_item_count", table_name=table, operation="Query") == stat_of(
        [3, 2, 0])
    assert page.stats("returned_item_count", table_name=table, operation="Scan") == stat_of(
        [1, 5])
    assert page.stats("returned_item_count", table_name=table,
                      operation="ExecuteStatement") == stat_of([2])
    assert set(page.values("returned_item_count", "sum", "operation", table_name=table)) == {
        "Query", "Scan", "ExecuteStatement"}


# --- errors ---------------------------------------------------------------------------

def test_user_errors_and_failed_conditions(node):
    region = f"mx-{uuid.uuid4().hex[:8]}"  # UserErrors counts per region: one of its own
    ddb = node.client(region=region)
    fresh_period(node)
    table = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.describe_table(TableName=unique_name("missing"))
    assert error_of(excinfo)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        ddb.get_item(TableName=unique_name("missing"), Key={"pk": {"S": "a"}})
    assert error_of(excinfo)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"other": {"S": "a"}})
    assert error_of(excinfo)[0] == "ValidationException"
    for _ in range(2):
        with pytest.raises(ClientError) as excinfo:
            ddb.put_item(TableName=table, Item={"pk": {"S": "a"}},
                         ConditionExpression="attribute_not_exists(pk)")
        assert error_of(excinfo)[0] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError) as excinfo:
        ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}},
                        ConditionExpression="attribute_exists(nothing)")
    assert error_of(excinfo)[0] == "ConditionalCheckFailedException"
    page = completed(node)
    # 400s but failed conditions; UserErrors has no table
    assert page.stats("user_errors", region=region) == counted(3)
    assert {tuple(key for key, _ in labels) for name, labels, _ in page.samples
            if name.startswith("aws_dynamodb_user_errors_")} == {("job", "instance", "region")}
    assert page.stats("conditional_check_failed_requests", region=region,
                      table_name=table) == counted(3)
    # a failed conditional write still consumes write capacity (1 unit: a small item)
    assert page.stats("consumed_write_capacity_units", region=region,
                      table_name=table) == stat_of([1.0] * 4)
    assert page.values("successful_request_latency", "sample_count", "operation",
                       table_name=table) == {"PutItem": 1.0}
    # nothing of it in another region's series
    assert page.stats("conditional_check_failed_requests", table_name=table) is None
    # (TransactionConflict needs two transactions racing for an item on PostgreSQL:
    # not provoked here)


def test_unknown_operation_is_a_user_error_of_its_region(node):
    region = f"mx-{uuid.uuid4().hex[:8]}"
    fresh_period(node)
    reply = node.post("DynamoDB_20120810.NoSuchOperation", {}, region=region)
    assert reply.status == 400
    assert reply.json["__type"] == "com.amazon.coral.service#UnknownOperationException"
    page = completed(node)
    assert page.stats("user_errors", region=region) == counted(1)


def test_control_plane_requests_are_no_traffic(node, ddb):
    table = create(ddb)
    fresh_period(node)
    ddb.describe_table(TableName=table)
    ddb.describe_time_to_live(TableName=table)
    page = completed(node)
    assert {name for name, labels, _ in page.samples
            if dict(labels).get("table_name") == table} == set()


# --- TTL ------------------------------------------------------------------------------

def test_time_to_live_deleted_item_count(node, ddb):
    fresh_period(node)
    table = create(ddb)
    ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    now = int(admin(node, "GET")[1]["now"])
    for key, when in (("gone1", now - 10), ("gone2", now - 20), ("kept", now + 3600)):
        ddb.put_item(TableName=table, Item={"pk": {"S": key}, "expires": {"N": str(when)}})
    deadline = time.monotonic() + 5
    while [i["pk"]["S"] for i in ddb.scan(TableName=table, ConsistentRead=True)["Items"]] != [
            "kept"]:
        assert time.monotonic() < deadline, "the sweeper did not get there in time"
        time.sleep(0.02)
    page = completed(node)
    assert page.stats("time_to_live_deleted_item_count", table_name=table) == counted(2)
    # TTL deletes are free: the three puts are all the table's writes
    assert page.stats("consumed_write_capacity_units", table_name=table)[
        "sample_count"] == 3.0


# --- settings: provisioned capacity, index progress -----------------------------------

def test_provisioned_capacity_from_the_catalog(node, ddb):
    fresh_period(node)
    provisioned = create(ddb, "PROVISIONED", more_attributes=[
        {"AttributeName": "g", "AttributeType": "S"}], GlobalSecondaryIndexes=[
        gsi("by_g", "g", {"ReadCapacityUnits": 3, "WriteCapacityUnits": 4})])
    on_demand = create(ddb, more_attributes=[{"AttributeName": "g", "AttributeType": "S"}],
                       GlobalSecondaryIndexes=[gsi("by_g", "g")])
    settle(node)
    ddb.list_tables()
    page = completed(node)  # no request that spends on either table

    def settings(page, kind, **dimensions):
        return page.stats(f"provisioned_{kind}_capacity_units", **dimensions)

    assert settings(page, "read", table_name=provisioned) == stat_of([5.0])
    assert settings(page, "write", table_name=provisioned) == stat_of([7.0])
    assert settings(page, "read", table_name=provisioned,
                    global_secondary_index_name="by_g") == stat_of([3.0])
    assert settings(page, "write", table_name=provisioned,
                    global_secondary_index_name="by_g") == stat_of([4.0])
    assert on_demand not in page.tables()
    assert {name for name, labels, _ in page.samples
            if dict(labels).get("table_name") == provisioned} == {
        f"aws_dynamodb_provisioned_{kind}_capacity_units_{suffix}"
        for kind in ("read", "write") for suffix in STATISTICS}

    ddb.update_table(TableName=provisioned, ProvisionedThroughput={
        "ReadCapacityUnits": 10, "WriteCapacityUnits": 11})
    settle(node)
    ddb.list_tables()
    page = page_of(node)  # settings are read as they are now
    assert settings(page, "read", table_name=provisioned) == stat_of([10.0])
    assert settings(page, "write", table_name=provisioned) == stat_of([11.0])
    assert settings(page, "read", table_name=provisioned,
                    global_secondary_index_name="by_g") == stat_of([3.0])

    ddb.delete_table(TableName=provisioned)
    assert provisioned not in page_of(node).tables()


def test_a_deleted_table_has_no_provisioned_capacity(delayed):
    ddb = delayed.client()
    table = create(ddb, "PROVISIONED")
    advance(delayed, 6)  # ACTIVE
    assert page_of(delayed).stats("provisioned_read_capacity_units",
                                  table_name=table) == stat_of([5.0])
    ddb.delete_table(TableName=table)
    settle(delayed)
    assert table in ddb.list_tables()["TableNames"]  # DELETING
    advance(delayed, 6)  # the deletion is over: DynamoDB no longer knows the table
    page = page_of(delayed)
    assert table not in page.tables()


def test_provisioned_capacity_stays_after_a_change_on_another_node(
        request, clocked):  # noqa: F811
    if backend_of(request) != "postgres":
        pytest.skip("nodes share a database on PostgreSQL only")
    first = clocked()
    second = Server("--postgres", first.process.args[first.process.args.index("--postgres") + 1])
    try:
        ddb = first.client()
        table = create(ddb, "PROVISIONED")
        settle(first)
        arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
        assert page_of(first).stats("provisioned_read_capacity_units",
                                    table_name=table) == stat_of([5.0])
        second.client().tag_resource(ResourceArn=arn, Tags=[{"Key": "k", "Value": "v"}])
        settle(first)
        # the table's settings are unchanged: its provisioned capacity still stands
        assert page_of(first).stats("provisioned_read_capacity_units",
                                    table_name=table) == stat_of([5.0])
    finally:
        second.stop()


def test_online_index_percentage_progress(delayed):
    ddb = delayed.client()
    table = create(ddb)
    advance(delayed, 6)  # ACTIVE
    for n in range(3):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"k{n}"}, "g": {"S": "x"}})
    assert page_of(delayed).values("online_index_percentage_progress", "sum",
                                   "global_secondary_index_name", table_name=table) == {}
    ddb.update_table(TableName=table, AttributeDefinitions=[
        *PK, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": gsi("by_g", "g")}])
    settle(delayed)
    ddb.list_tables()
    # the backfill waits for the status delay: it has not begun
    page = page_of(delayed)
    assert page.stats("online_index_percentage_progress", table_name=table,
                      global_secondary_index_name="by_g") == stat_of([0.0])
    assert "Unit: Percent" in page.helps["aws_dynamodb_online_index_percentage_progress_sum"]
    advance(delayed, 6)
    deadline = time.monotonic() + 5
    while ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0][
            "IndexStatus"] != "ACTIVE":
        assert time.monotonic() < deadline, "the backfill did not finish in time"
        time.sleep(0.02)
    settle(delayed)
    ddb.list_tables()
    # built: no progress to report
    assert page_of(delayed).values("online_index_percentage_progress", "sum",
                                   "global_secondary_index_name", table_name=table) == {}


# --- periods --------------------------------------------------------------------------

def test_a_period_without_requests_is_empty(node, ddb):
    region = f"mx-{uuid.uuid4().hex[:8]}"
    regional = node.client(region=region)
    fresh_period(node)
    table = create(ddb)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    with pytest.raises(ClientError):
        regional.describe_table(TableName=unique_name("missing"))
    page = completed(node)
    assert page.stats("consumed_write_capacity_units", table_name=table) == stat_of([1.0])
    assert page.stats("user_errors", region=region) == counted(1)
    page = completed(node)  # the last complete period saw nothing
    assert table not in page.tables()
    assert page.stats("user_errors", region=region) is None

    fresh_period(node)
    ddb.put_item(TableName=table, Item={"pk": {"S": "b"}})
    with pytest.raises(ClientError):
        regional.describe_table(TableName=unique_name("missing"))
    advance(node, 120)  # two minutes on: the requests' period is not the last one
    page = page_of(node)
    assert table not in page.tables()
    assert page.stats("user_errors", region=region) is None


def pipelined(server, *requests: bytes) -> list[bytes]:
    """Send HTTP requests on one connection at once (the server runs them in order,
    the second as soon as the first is done); their replies' bodies."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as connection:
        connection.sendall(b"".join(requests))
        buffer, bodies = b"", []
        while len(bodies) < len(requests):
            head, found, rest = buffer.partition(b"\r\n\r\n")
            if found:
                length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
                if len(rest) >= length:
                    bodies.append(rest[:length])
                    buffer = rest[length:]
                    continue
            chunk = connection.recv(65536)
            assert chunk, "the connection closed early"
            buffer += chunk
        return bodies


def http_post(path: str, body: bytes, headers: dict[str, str]) -> bytes:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return (f"POST {path} HTTP/1.1\r\nHost: localhost\r\n{head}Content-Length: {len(body)}\r\n\r\n"
            .encode() + body)


def test_requests_right_after_a_clock_move_count_in_the_new_period(request, node, ddb):
    if backend_of(request) != "memory":
        # only in memory is the request sure to be counted before the next roll
        pytest.skip("timing made deterministic on the memory backend only")
    table = create(ddb)
    page_of(node)  # roll over now: the next roll is about a second away
    move = http_post("/okura/clock", json.dumps({"advance": 60}).encode(),
                     {"Content-Type": "application/json"})
    put = http_post("/", json.dumps({"TableName": table, "Item": {"pk": {"S": "a"}}}).encode(), {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810.PutItem", "X-Amz-Date": "20260101T000000Z",
        "Authorization": f"AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/{REGION}/"
                         "dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc"})
    moved, put_reply = pipelined(node, move, put)
    assert "now" in json.loads(moved) and json.loads(put_reply) == {}
    page = completed(node)  # the put's period is the last complete one
    assert page.stats("consumed_write_capacity_units", table_name=table) == stat_of([1.0])


# --- GET /okura/metrics: a table's periods, for the console ------------------------------

def test_a_tables_periods_over_the_last_hour(node, ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=KEY, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=PK + [{"AttributeName": "g", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{"IndexName": "by-g", "Projection": {
                         "ProjectionType": "KEYS_ONLY"}, "KeySchema": [
                         {"AttributeName": "g", "KeyType": "HASH"}]}])
    settle(node)
    for n in range(3):
        ddb.put_item(TableName=name, Item={"pk": {"S": f"k{n}"}, "g": {"S": "x"}})
    advance(node, 60)  # ends the period: the next put is in another
    ddb.put_item(TableName=name, Item={"pk": {"S": "k3"}, "g": {"S": "x"}})
    status, reply = admin(node, "GET", path=f"/okura/metrics?table={name}&region={REGION}")
    assert status == 200 and reply["table"] == name and reply["period"] == 60
    points = reply["points"]
    starts = [point["start"] for point in points]
    assert starts == sorted(set(starts)) and all(start % 60 == 0 for start in starts)
    assert 0 < points[-1]["seconds"] <= 60 and points[-1]["start"] <= reply["now"]
    mine = [point for point in points if point["consumed"]]
    assert len(mine) >= 2  # the clock's move parted them
    assert sum(p["consumed"][""]["write"] for p in mine) == 4
    assert sum(p["consumed"]["by-g"]["write"] for p in mine) == 4
    assert sum(p["operations"]["PutItem"]["requests"] for p in mine) == 4
    assert all(p["operations"]["PutItem"]["ms"] > 0 for p in mine)
    assert admin(node, "GET", path="/okura/metrics")[0] == 400
    assert admin(node, "POST", b"{}", path=f"/okura/metrics?table={name}")[0] == 405
