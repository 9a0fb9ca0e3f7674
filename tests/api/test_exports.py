"""ExportTableToPointInTime, DescribeExport, ListExports: AWS's export layout in a local
bucket directory, both formats, failures and DynamoDB's errors; exports read the
point-in-time history: a full export holds the table as of ExportTime, an incremental
export exactly the changes of its window, once per item, in AWS's incremental layout (the
clock is moved to make the windows)."""
from __future__ import annotations

import base64
import gzip
import hashlib
import json
from decimal import Decimal

import pytest
from amazon.ion import simpleion

from conftest import unique_name
from items_common import fails
from test_clock import advance
from transfer_common import (BUCKET, data_lines, export_files, own_database,  # noqa: F401
                             pitr, s3_server, wait_export)

ITEMS = [
    {"pk": {"S": "a"}, "n": {"N": "600"}, "d": {"N": "-1.5"}, "s": {"S": "text"},
     "b": {"B": "AAEC"}, "t": {"BOOL": True}, "z": {"NULL": True},
     "ss": {"SS": ["x", "y"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": ["AQ=="]},
     "l": {"L": [{"S": "q"}, {"N": "3"}]}, "m": {"M": {"k": {"BOOL": False}}}},
    {"pk": {"S": "b"}, "n": {"N": "1"}},
]


@pytest.fixture(scope="module")
def ddb(s3_server):
    return s3_server[0].client()


def _table(ddb, server, items=ITEMS) -> str:
    """A new table holding `items` (in wire JSON, put raw so that B stays as written)."""
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    for item in items:
        assert server.post("PutItem", {"TableName": name, "Item": item}).status == 200
    pitr(ddb, name)
    return ddb.describe_table(TableName=name)["Table"]["TableArn"]


def _export(ddb, arn: str, **extra) -> dict:
    started = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET, **extra)
    description = started["ExportDescription"]
    assert description["ExportStatus"] == "IN_PROGRESS"
    return wait_export(ddb, description["ExportArn"])


def test_full_export_in_dynamodb_json_has_aws_layout(ddb, s3_server):
    root = s3_server[1]
    arn = _table(ddb, s3_server[0])
    done = _export(ddb, arn, S3Prefix="daily/run")
    export_id = done["ExportArn"].rpartition("/")[2]
    assert done["ExportArn"] == f"{arn}/export/{export_id}"
    assert len(export_id) == 23 and export_id[14] == "-"
    assert done["ExportStatus"] == "COMPLETED"
    assert done["ExportFormat"] == "DYNAMODB_JSON" and done["ExportType"] == "FULL_EXPORT"
    assert done["ItemCount"] == 2
    size = ddb.describe_table(TableName=arn.rpartition("/")[2])["Table"]["TableSizeBytes"]
    assert done["BilledSizeBytes"] == size
    base = f"daily/run/AWSDynamoDB/{export_id}/"
    assert done["ExportManifest"] == base + "manifest-summary.json"
    folder = export_files(root, done)
    assert (folder / "_started").read_bytes() == b""
    summary_raw = (folder / "manifest-summary.json").read_bytes()
    assert (folder / "manifest-summary.checksum").read_text() == hashlib.md5(
        summary_raw).hexdigest()
    summary = json.loads(summary_raw)
    assert summary["version"] == "2020-06-30"
    assert summary["exportArn"] == done["ExportArn"] and summary["tableArn"] == arn
    assert summary["s3Bucket"] == BUCKET and summary["s3Prefix"] == "daily/run"
    assert summary["manifestFilesS3Key"] == base + "manifest-files.json"
    assert summary["itemCount"] == 2 and summary["billedSizeBytes"] == size
    assert summary["outputFormat"] == "DYNAMODB_JSON"
    assert summary["startTime"].endswith("Z") and len(summary["startTime"]) == 24
    files_raw = (folder / "manifest-files.json").read_bytes()
    assert (folder / "manifest-files.checksum").read_text() == hashlib.md5(files_raw).hexdigest()
    entries = [json.loads(line) for line in files_raw.splitlines()]
    assert sum(entry["itemCount"] for entry in entries) == 2
    for entry in entries:
        assert entry["dataFileS3Key"].startswith(base + "data/")
        assert entry["dataFileS3Key"].endswith(".json.gz")
        data = (root / "s3" / BUCKET / entry["dataFileS3Key"]).read_bytes()
        assert entry["md5Checksum"] == base64.b64encode(hashlib.md5(data).digest()).decode()
        assert entry["etag"] == hashlib.md5(data).hexdigest()
    exported = sorted((json.loads(line) for line in data_lines(root, done)),
                      key=lambda line: line["Item"]["pk"]["S"])
    assert exported == [{"Item": item} for item in ITEMS]


def test_full_export_in_ion(ddb, s3_server):
    root = s3_server[1]
    done = _export(ddb, _table(ddb, s3_server[0]), ExportFormat="ION")
    assert done["ExportStatus"] == "COMPLETED" and done["ExportFormat"] == "ION"
    lines = data_lines(root, done)
    assert all(line.startswith(b"$ion_1_0 {Item:") for line in lines)
    items = {str(value["Item"]["pk"]): value["Item"]
             for value in (simpleion.loads(line.decode()) for line in lines)}
    first = items["a"]
    assert first["n"] == Decimal(600) and first["d"] == Decimal("-1.5")
    assert bytes(first["b"]) == b"\0\1\2" and first["s"] == "text"
    assert bool(first["t"]) is True and first["z"] is not None and first["z"].ion_type == 0
    for member, annotation, values in (("ss", "$dynamodb_SS", ["x", "y"]),
                                       ("ns", "$dynamodb_NS", [Decimal(1), Decimal("2.5")]),
                                       ("bs", "$dynamodb_BS", [b"\1"])):
        assert [token.text for token in first[member].ion_annotations] == [annotation]
        assert [bytes(v) if isinstance(v, bytes) else v for v in first[member]] == values
    assert list(first["l"]) == ["q", Decimal(3)] and first["m"]["k"] == 0
    assert set(items) == {"a", "b"}


def test_export_of_an_empty_table_writes_one_empty_data_file(ddb, s3_server):
    done = _export(ddb, _table(ddb, s3_server[0], items=[]))
    assert done["ExportStatus"] == "COMPLETED" and done["ItemCount"] == 0
    folder = export_files(s3_server[1], done)
    entries = (folder / "manifest-files.json").read_bytes().splitlines()
    assert [json.loads(entry)["itemCount"] for entry in entries] == [0]
    assert data_lines(s3_server[1], done) == []


def test_export_to_a_missing_bucket_fails(ddb, s3_server):
    started = ddb.export_table_to_point_in_time(TableArn=_table(ddb, s3_server[0]),
                                                S3Bucket="no-such-bucket")
    done = wait_export(ddb, started["ExportDescription"]["ExportArn"])
    assert done["ExportStatus"] == "FAILED"
    assert done["FailureCode"] == "S3NoSuchBucket"
    assert "no-such-bucket" in done["FailureMessage"]
    assert "EndTime" in done


def test_export_to_a_bucket_that_cannot_be_written_fails(ddb, s3_server):
    root = s3_server[1]
    # an object key that would need a directory where a file is: the write fails
    (root / "s3" / BUCKET / "blocked").write_bytes(b"")
    started = ddb.export_table_to_point_in_time(TableArn=_table(ddb, s3_server[0]),
                                                S3Bucket=BUCKET, S3Prefix="blocked")
    done = wait_export(ddb, started["ExportDescription"]["ExportArn"])
    assert done["ExportStatus"] == "FAILED" and done["FailureCode"] == "S3AccessDenied"


def test_export_errors(ddb, s3_server):
    server = s3_server[0]
    arn = _table(ddb, s3_server[0])
    missing = arn.rpartition("/")[0] + "/no-such-table"
    assert fails(ddb.export_table_to_point_in_time, TableArn=missing, S3Bucket=BUCKET) == (
        "TableNotFoundException", "Table not found: no-such-table")
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    assert fails(ddb.export_table_to_point_in_time, TableArn=arn.rpartition("/")[0] + "/" + name,
                 S3Bucket=BUCKET) == ("PointInTimeRecoveryUnavailableException",
                                      f"Point in time recovery is not enabled for table '{name}'")
    code, _ = fails(ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket=BUCKET,
                    ExportTime=1000000000)  # long before point-in-time recovery was enabled
    assert code == "InvalidExportTimeException"
    code, message = fails(ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket=BUCKET,
                           ExportTime=4102444800)
    assert code == "InvalidExportTimeException"
    reply = server.post("ExportTableToPointInTime", {"TableArn": arn, "S3Bucket": "-bad-"})
    assert reply.status == 400 and reply.json["message"] == (
        "1 validation error detected: Value '-bad-' at 's3Bucket' failed to satisfy "
        "constraint: Member must satisfy regular expression pattern: "
        "^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$")
    bad = arn.rpartition("/")[0] + "/export/01234567890123-abcdef12"
    assert fails(ddb.describe_export, ExportArn=bad) == (
        "ExportNotFoundException", f"Export not found: {bad}")


def test_client_token_makes_export_idempotent(ddb, s3_server):
    arn = _table(ddb, s3_server[0])
    token = unique_name("token")
    first = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET,
                                              ClientToken=token)["ExportDescription"]
    again = ddb.export_table_to_point_in_time(TableArn=arn, S3Bucket=BUCKET,
                                              ClientToken=token)["ExportDescription"]
    assert again["ExportArn"] == first["ExportArn"]
    assert fails(ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket=BUCKET,
                  ClientToken=token, ExportFormat="ION")[0] == "ExportConflictException"
    wait_export(ddb, first["ExportArn"])


def test_list_exports_pages_and_filters_by_table(ddb, s3_server):
    arn = _table(ddb, s3_server[0])
    arns = [_export(ddb, arn)["ExportArn"] for _ in range(3)]
    page = ddb.list_exports(TableArn=arn, MaxResults=2)
    assert [s["ExportArn"] for s in page["ExportSummaries"]] == arns[:2]
    assert page["ExportSummaries"][0] == {"ExportArn": arns[0], "ExportStatus": "COMPLETED",
                                          "ExportType": "FULL_EXPORT"}
    rest = ddb.list_exports(TableArn=arn, MaxResults=2, NextToken=page["NextToken"])
    assert [s["ExportArn"] for s in rest["ExportSummaries"]] == arns[2:]
    assert "NextToken" not in rest
    # tokens are sealed: an ARN (what an earlier okura's token was) is not one
    assert fails(ddb.list_exports, TableArn=arn, NextToken=arns[0]) == (
        "ValidationException", "Invalid NextToken")
    everything = [s["ExportArn"] for s in ddb.list_exports()["ExportSummaries"]]
    assert set(arns) <= set(everything) or len(everything) == 25


def _item(key: str, version: int) -> dict:
    return {"pk": {"S": key}, "v": {"N": str(version)}}


def test_full_export_holds_the_table_as_of_export_time(s3_server):
    server, root = s3_server
    ddb = server.client()
    arn = _table(ddb, server, [_item("a", 1), _item("gone", 1)])
    name = arn.rpartition("/")[2]
    at = advance(server, 60)
    ddb.put_item(TableName=name, Item=_item("a", 2))
    ddb.put_item(TableName=name, Item=_item("new", 1))
    ddb.delete_item(TableName=name, Key={"pk": {"S": "gone"}})
    advance(server, 60)
    done = wait_export(ddb, ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=BUCKET, ExportTime=at)["ExportDescription"]["ExportArn"])
    assert (done["ExportStatus"], done["ItemCount"]) == ("COMPLETED", 2)
    lines = sorted(json.loads(line)["Item"]["pk"]["S"] + "=" + json.loads(line)["Item"]["v"]["N"]
                   for line in data_lines(root, done))
    assert lines == ["a=1", "gone=1"]
    now = wait_export(ddb, ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=BUCKET)["ExportDescription"]["ExportArn"])
    assert sorted(json.loads(line)["Item"]["pk"]["S"] for line in data_lines(root, now)) == [
        "a", "new"]


def test_incremental_export_holds_exactly_the_changes_of_its_window(s3_server):
    server, root = s3_server
    ddb = server.client()
    arn = _table(ddb, server, [_item("a", 1), _item("b", 1), _item("c", 1)])
    name = arn.rpartition("/")[2]
    start = advance(server, 60)
    ddb.put_item(TableName=name, Item=_item("a", 2))         # updated
    ddb.delete_item(TableName=name, Key={"pk": {"S": "b"}})  # deleted
    ddb.put_item(TableName=name, Item=_item("d", 1))         # created
    ddb.put_item(TableName=name, Item=_item("e", 1))         # created and deleted
    ddb.delete_item(TableName=name, Key={"pk": {"S": "e"}})
    end = advance(server, 20 * 60)
    ddb.put_item(TableName=name, Item=_item("c", 2))         # after the window
    ddb.put_item(TableName=name, Item=_item("f", 1))
    advance(server, 60)

    def export(view: str, fmt: str = "DYNAMODB_JSON") -> dict:
        return wait_export(ddb, ddb.export_table_to_point_in_time(
            TableArn=arn, S3Bucket=BUCKET, S3Prefix="inc", ExportFormat=fmt,
            ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification={
                "ExportFromTime": start, "ExportToTime": end, "ExportViewType": view})
            ["ExportDescription"]["ExportArn"])

    done = export("NEW_AND_OLD_IMAGES")
    assert (done["ExportStatus"], done["ExportType"], done["ItemCount"]) == (
        "COMPLETED", "INCREMENTAL_EXPORT", 3)
    spec = done["IncrementalExportSpecification"]
    assert spec["ExportViewType"] == "NEW_AND_OLD_IMAGES"
    records = {record["Keys"]["pk"]["S"]: record
               for record in map(json.loads, data_lines(root, done))}
    assert set(records) == {"a", "b", "d"}
    assert {k: v for k, v in records["a"].items() if k != "Metadata"} == {
        "Keys": {"pk": {"S": "a"}}, "NewImage": _item("a", 2), "OldImage": _item("a", 1)}
    assert {k: v for k, v in records["b"].items() if k != "Metadata"} == {
        "Keys": {"pk": {"S": "b"}}, "OldImage": _item("b", 1)}
    assert {k: v for k, v in records["d"].items() if k != "Metadata"} == {
        "Keys": {"pk": {"S": "d"}}, "NewImage": _item("d", 1)}
    for record in records.values():
        written = int(record["Metadata"]["WriteTimestampMicros"]["N"])
        assert start * 1e6 - 1e6 <= written < end * 1e6
    folder = export_files(root, done)
    assert folder.name == done["ExportArn"].rpartition("/")[2]
    for line in (folder / "manifest-files.json").read_bytes().splitlines():
        assert json.loads(line)["dataFileS3Key"].startswith("inc/AWSDynamoDB/data/")
    summary = json.loads((folder / "manifest-summary.json").read_bytes())
    assert (summary["exportType"], summary["outputView"], summary["itemCount"]) == (
        "INCREMENTAL_EXPORT", "NEW_AND_OLD_IMAGES", 3)
    assert summary["exportFromTime"].endswith("Z") and summary["exportToTime"].endswith("Z")

    new_only = {record["Keys"]["pk"]["S"]: record
                for record in map(json.loads, data_lines(root, export("NEW_IMAGE")))}
    assert sorted(new_only) == ["a", "b", "d"]
    assert "OldImage" not in new_only["a"] and new_only["a"]["NewImage"] == _item("a", 2)
    assert set(new_only["b"]) == {"Metadata", "Keys"}
    ion = [simpleion.loads(line.decode()) for line in data_lines(root, export("NEW_IMAGE", "ION"))]
    assert sorted(str(record["Keys"]["pk"]) for record in ion) == ["a", "b", "d"]


def test_incremental_export_errors(s3_server):
    server, _ = s3_server
    ddb = server.client()
    arn = _table(ddb, server, [])
    now = advance(server, 3600)

    def refused(**spec) -> tuple[str, str]:
        extra = spec.pop("extra", {})
        return fails(ddb.export_table_to_point_in_time, TableArn=arn, S3Bucket=BUCKET,
                     ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification=spec,
                     **extra)

    assert refused(ExportToTime=now)[0] == "ValidationException"
    assert refused(ExportFromTime=now - 600, ExportToTime=now) == (
        "ValidationException", "The incremental export period must be at least 15 minutes")
    assert refused(ExportFromTime=now - 1800, ExportToTime=now,
                   extra={"ExportTime": now})[0] == "ValidationException"
    assert refused(ExportFromTime=now - 7200, ExportToTime=now)[0] == (
        "InvalidExportTimeException")  # before point-in-time recovery was enabled
    assert refused(ExportFromTime=now - 1800, ExportToTime=now + 600)[0] == (
        "InvalidExportTimeException")
