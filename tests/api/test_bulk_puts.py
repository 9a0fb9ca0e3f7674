"""StartBulkPutItems, DescribeBulkOperation, ListBulkOperations, CancelBulkOperation: DynamoDB
JSON and Ion objects (uncompressed, GZIP, ZSTD) from a local bucket directory written into
an existing table, bad lines and failed conditions reported to the output bucket, the
write rate held to MaxWriteRequestUnits on okura's clock, ClientToken, paging, a cancel,
a resume after a crash, and DynamoDB's errors."""
from __future__ import annotations

import gzip
import json
import time

import pytest
import zstandard

from conftest import unique_name
from items_common import fails
from test_clock import advance
from transfer_common import BUCKET, own_database, s3_server, wait_until  # noqa: F401

KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}
OUT = "bucket-out"
RATE = 1024  # the least MaxWriteRequestUnits


@pytest.fixture(scope="module")
def ddb(s3_server):
    (s3_server[1] / "s3" / OUT).mkdir(exist_ok=True)
    return s3_server[0].client()


def _put(root, key: str, data: bytes) -> None:
    path = root / "s3" / BUCKET / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _table(ddb) -> str:
    name = unique_name()
    ddb.create_table(TableName=name, **KEYS)
    return name


def _start(ddb, table: str, prefix: str, fmt: str = "DYNAMODB_JSON", compression: str = "NONE",
           types=("ERROR", "CONDITION_CHECK_FAILURE"), out_prefix: str | None = None,
           **extra) -> dict:
    output = {"S3Bucket": OUT, "OutputType": list(types)}
    if out_prefix:
        output["S3KeyPrefix"] = out_prefix
    return ddb.start_bulk_put_items(
        TableName=table, InputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": prefix,
                                               "InputFormat": fmt,
                                               "InputCompressionType": compression},
        OutputS3Configuration=output, **extra)["BulkOperationDescription"]


def _describe(ddb, arn: str) -> dict:
    return ddb.describe_bulk_operation(BulkOperationArn=arn)["BulkOperationDescription"]


def _done(ddb, arn: str) -> dict:
    return wait_until(lambda: _describe(ddb, arn), "BulkOperationStatus",
                      ("IN_PROGRESS", "CANCELLING"))


def _outputs(root, done: dict, kind: str) -> list[dict]:
    """The lines of the operation's output objects of one type, as its manifest lists them."""
    folder = root / "s3" / OUT
    prefix = done["OutputS3Configuration"].get("S3KeyPrefix")
    base = (prefix.rstrip("/") + "/" if prefix else "") + "AWSDynamoDB/" + done[
        "BulkOperationArn"].rpartition("/")[2] + "/"
    manifest = json.loads((folder / (base + "manifest-summary.json")).read_bytes())
    assert manifest["bulkOperationArn"] == done["BulkOperationArn"]
    assert manifest["status"] == done["BulkOperationStatus"]
    return [json.loads(line) for key in manifest["outputFiles"].get(kind, [])
            for line in (folder / key).read_bytes().splitlines()]


def _scan(ddb, table: str) -> dict[str, dict]:
    return {item["pk"]["S"]: item for item in ddb.scan(TableName=table)["Items"]}


def _json(record: dict) -> str:
    return json.dumps(record)


def test_bad_lines_and_failed_conditions_go_to_the_output_bucket(ddb, s3_server):
    root = s3_server[1]
    table = _table(ddb)
    ddb.put_item(TableName=table, Item={"pk": {"S": "old"}, "v": {"N": "1"}})
    prefix = unique_name("bulk") + "/"
    lines = [
        _json({"Item": {"pk": {"S": "a"}, "v": {"N": "1.50"}}}),
        "not json",
        _json({"Item": {"v": {"S": "no key"}}}),
        _json({"Item": {"pk": {"N": "1"}}}),                                 # wrong key type
        _json({"Item": {"pk": {"S": "old"}, "v": {"N": "2"}},               # condition false
               "ConditionExpression": "attribute_not_exists(pk)"}),
        _json({"Item": {"pk": {"S": "b"}}, "ConditionExpression": "attribute_not_exists(pk)"}),
        _json({"Item": {"pk": {"S": "c"}}, "ConditionExpression": "#v = :v",  # nothing there
               "ExpressionAttributeNames": {"#v": "v"},
               "ExpressionAttributeValues": {":v": {"N": "1"}}}),
        _json({"Item": {"pk": {"S": "d"}}, "ConditionExpression": "attribute_not_exists("}),
        "",
        _json({"Nope": {}}),
        _json({"Item": {"pk": {"S": "e"}}, "ConditionExpression": "attribute_exists(#a)",
               "ExpressionAttributeNames": {"#a": 1}}),
        _json({"Item": {"pk": {"S": "f"}}, "ConditionExpression": 7}),
        _json({"Item": {"pk": {"S": "g"}}, "ExpressionAttributeValues": {":v": {"N": "1"}}}),
    ]
    data = gzip.compress("\n".join(lines).encode())
    _put(root, prefix + "part-1.json.gz", data)
    started = _start(ddb, table, prefix, compression="GZIP", out_prefix="reports")
    assert started["BulkOperationStatus"] == "IN_PROGRESS"
    assert started["PerformanceTier"] == "STANDARD"
    assert started["TableDetails"][0]["TableName"] == table
    done = _done(ddb, started["BulkOperationArn"])
    assert done["BulkOperationStatus"] == "COMPLETED_WITH_ERRORS"
    assert (done["ProcessedItemCount"], done["FailedItemCount"]) == (12, 8)
    assert done["ProcessedInputBytes"] == done["TotalInputBytes"] == len(data)
    assert done["EndTime"] >= done["StartTime"]
    assert set(_scan(ddb, table)) == {"old", "a", "b"}
    assert _scan(ddb, table)["a"]["v"] == {"N": "1.5"}
    assert _scan(ddb, table)["old"]["v"] == {"N": "1"}  # its condition failed
    errors = _outputs(root, done, "ERROR")
    assert [entry["line"] for entry in errors] == [2, 3, 4, 8, 10, 11, 12, 13]
    assert {entry["s3Key"] for entry in errors} == {prefix + "part-1.json.gz"}
    assert errors[1]["errorMessage"] == (
        "One or more parameter values were invalid: Missing the key pk in the item")
    assert errors[1]["Item"] == {"v": {"S": "no key"}}
    assert errors[3]["errorMessage"].startswith("Invalid ConditionExpression: Syntax error")
    assert [entry["errorMessage"] for entry in errors[5:]] == [
        "Invalid ExpressionAttributeNames", "Invalid ConditionExpression",
        "ExpressionAttributeValues can only be specified when using expressions: "
        "ConditionExpression is null"]
    failed = _outputs(root, done, "CONDITION_CHECK_FAILURE")
    assert failed == [
        {"s3Key": prefix + "part-1.json.gz", "line": 5,
         "Item": {"pk": {"S": "old"}, "v": {"N": "2"}},
         "ExistingItem": {"pk": {"S": "old"}, "v": {"N": "1"}}},
        {"s3Key": prefix + "part-1.json.gz", "line": 7, "Item": {"pk": {"S": "c"}}}]


def test_ion_and_zstd_and_the_output_types_asked_for(ddb, s3_server):
    root = s3_server[1]
    table = _table(ddb)
    ddb.put_item(TableName=table, Item={"pk": {"S": "k"}})
    prefix = unique_name("ion") + "/"
    _put(root, prefix + "x.ion.zst", zstandard.ZstdCompressor().compress(
        b'$ion_1_0 {Item:{pk:"n",Authors:$dynamodb_SS::["A1","A2"],Id:103.,Blob:{{AAE=}}}}\n'
        b'{Item:{pk:"k"},ConditionExpression:"attribute_not_exists(pk)"}\n'
        b'{Item:{pk:"m",n:5},ConditionExpression:"attribute_not_exists(#p)",'
        b'ExpressionAttributeNames:{"#p":"pk"}}\n'))
    done = _done(ddb, _start(ddb, table, prefix, "ION", "ZSTD", types=["ERROR"])[
        "BulkOperationArn"])
    # a failed condition is no error: the operation completes without them
    assert (done["BulkOperationStatus"], done["ProcessedItemCount"], done["FailedItemCount"]) == (
        "COMPLETED", 3, 0)
    assert _scan(ddb, table) == {
        "k": {"pk": {"S": "k"}}, "m": {"pk": {"S": "m"}, "n": {"N": "5"}},
        "n": {"pk": {"S": "n"}, "Authors": {"SS": ["A1", "A2"]}, "Id": {"N": "103"},
              "Blob": {"B": b"\0\1"}}}
    assert _outputs(root, done, "CONDITION_CHECK_FAILURE") == []  # not asked for
    assert done["BulkOperationUsage"][0]["Table"]["BulkPutBytes"] > 0


def test_writes_no_faster_than_max_write_request_units(ddb, s3_server):
    """A bucket of one second's units, refilled on okura's clock: at any moment the units
    spent are at most one second's more than the clock allows since the start."""
    root = s3_server[1]
    table = _table(ddb)
    prefix = unique_name("paced") + "/"
    count = 2 * RATE  # one write unit each
    _put(root, prefix + "x.json", "\n".join(
        _json({"Item": {"pk": {"S": f"k{i}"}}}) for i in range(count)).encode())
    started = _start(ddb, table, prefix, MaxWriteRequestUnits=RATE)
    assert started["MaxWriteRequestUnits"] == RATE
    start = started["StartTime"].timestamp()
    deadline = time.monotonic() + 120  # far beyond a loaded machine's time: a safety net
    while True:
        seen = _describe(ddb, started["BulkOperationArn"])
        now = advance(s3_server[0], 0)  # the clock after the reading
        assert seen["ProcessedItemCount"] <= RATE * (now - start) + RATE + 1
        if seen["BulkOperationStatus"] != "IN_PROGRESS":
            break
        assert time.monotonic() < deadline, seen
        advance(s3_server[0], 0.25)
    assert (seen["BulkOperationStatus"], seen["ProcessedItemCount"]) == ("COMPLETED", count)
    assert (seen["EndTime"] - seen["StartTime"]).total_seconds() >= (count - RATE) / RATE - 0.01
    assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == count


def _many(root, count: int) -> str:
    prefix = unique_name("many") + "/"
    _put(root, prefix + "x.json", "\n".join(
        _json({"Item": {"pk": {"S": f"k{i}"}}}) for i in range(count)).encode())
    return prefix


def test_cancel_stops_the_operation(ddb, s3_server):
    table = _table(ddb)
    # 5000 units at 1024 a second take four seconds of the clock, which the test never moves
    started = _start(ddb, table, _many(s3_server[1], 5000), MaxWriteRequestUnits=RATE)
    arn = started["BulkOperationArn"]
    reply = ddb.cancel_bulk_operation(BulkOperationArn=arn)
    assert (reply["BulkOperationArn"], reply["BulkOperationStatus"]) == (arn, "CANCELLING")
    done = _done(ddb, arn)
    assert done["BulkOperationStatus"] == "CANCELLED" and "EndTime" in done
    assert done["ProcessedItemCount"] < 5000
    assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == done[
        "ProcessedItemCount"]
    code, message = fails(ddb.cancel_bulk_operation, BulkOperationArn=arn)
    assert (code, message) == ("ValidationException",
                               f"Bulk operation {arn} cannot be cancelled in status CANCELLED")
    missing = arn.rpartition("/")[0] + "/00000000000000-00000000"
    assert fails(ddb.cancel_bulk_operation, BulkOperationArn=missing) == (
        "ResourceNotFoundException",
        f"Requested resource not found: BulkOperationArn: {missing} not found")


def test_list_bulk_operations_pages_most_recent_first(ddb, s3_server):
    table = _table(ddb)
    prefix = _many(s3_server[1], 1)
    arns = [_start(ddb, table, prefix)["BulkOperationArn"] for _ in range(3)]
    listed, token, pages = [], None, 0
    while True:
        reply = ddb.list_bulk_operations(MaxResults=2, **({"NextToken": token} if token else {}))
        pages += 1
        listed.extend(reply["BulkOperationsSummaryList"])
        token = reply.get("NextToken")
        if token is None:
            break
        assert len(token) % 16 == 0 and int(token, 16) >= 0
    assert pages >= 2
    starts = [summary["StartTime"] for summary in listed]
    assert starts == sorted(starts, reverse=True)
    mine = [summary["BulkOperationArn"] for summary in listed
            if summary["BulkOperationArn"] in arns]
    assert mine == arns[::-1]
    assert set(listed[0]) >= {"BulkOperationArn", "BulkOperationStatus", "StartTime"}
    assert len(ddb.list_bulk_operations()["BulkOperationsSummaryList"]) <= 10
    assert fails(ddb.list_bulk_operations, NextToken="0" * 16)[0] == "ValidationException"


def test_client_token_returns_the_same_operation_for_eight_hours(ddb, s3_server):
    table = _table(ddb)
    prefix = _many(s3_server[1], 2)
    token = unique_name("token")
    first = _start(ddb, table, prefix, ClientToken=token)
    again = _start(ddb, table, prefix, ClientToken=token)
    assert again["BulkOperationArn"] == first["BulkOperationArn"]
    assert again["ClientToken"] == token
    code, _ = fails(ddb.start_bulk_put_items, TableName=table, ClientToken=token,
                    InputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": prefix,
                                          "InputFormat": "ION"},
                    OutputS3Configuration={"S3Bucket": OUT, "OutputType": ["ERROR"]})
    assert code == "IdempotentParameterMismatchException"
    _done(ddb, first["BulkOperationArn"])
    advance(s3_server[0], 8 * 3600 + 1)
    later = _start(ddb, table, prefix, ClientToken=token)
    assert later["BulkOperationArn"] != first["BulkOperationArn"]


def test_request_errors(ddb, s3_server):
    table = _table(ddb)
    source = {"S3Bucket": BUCKET, "InputFormat": "DYNAMODB_JSON"}
    output = {"S3Bucket": OUT, "OutputType": ["ERROR"]}
    reply = s3_server[0].post("DynamoDB_20120810.StartBulkPutItems", {  # boto3 checks it too
        "TableName": table, "InputS3Configuration": source, "OutputS3Configuration": output,
        "MaxWriteRequestUnits": 1000})
    assert (reply.status, reply.json) == (400, {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": "1 validation error detected: Value '1000' at 'maxWriteRequestUnits' failed "
                   "to satisfy constraint: Member must have value greater than or equal to 1024"})
    assert fails(ddb.start_bulk_put_items, TableName="nope-" + table,
                 InputS3Configuration=source, OutputS3Configuration=output) == (
        "ResourceNotFoundException",
        f"Requested resource not found: Table: nope-{table} not found")
    assert fails(ddb.start_bulk_put_items, TableName=table, InputS3Configuration=source,
                 OutputS3Configuration={"OutputType": ["ERROR"]}) == (
        "ValidationException", "OutputS3Configuration.S3Bucket must be specified")
    assert fails(ddb.start_bulk_put_items, TableName=table, InputS3Configuration=source,
                 OutputS3Configuration=dict(output, S3SseAlgorithm="AES256",
                                            S3SseKmsKeyId="k")) == (
        "ValidationException", "S3SseKmsKeyId can only be specified when S3SseAlgorithm is KMS")
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"] + "/bulk-operation/1"
    assert fails(ddb.describe_bulk_operation, BulkOperationArn=arn + "0" * 36) == (
        "ResourceNotFoundException",
        f"Requested resource not found: BulkOperationArn: {arn + '0' * 36} not found")
    # a missing input bucket fails the operation, not the request
    done = _done(ddb, ddb.start_bulk_put_items(
        TableName=table, InputS3Configuration=dict(source, S3Bucket="no-such-bucket"),
        OutputS3Configuration=output)["BulkOperationDescription"]["BulkOperationArn"])
    assert (done["BulkOperationStatus"], done["FailureCode"]) == ("FAILED", "S3NoSuchBucket")
