"""Exports read the point-in-time history: a full export holds the table as of
ExportTime; an incremental export holds exactly the changes of its window, once per
item, in AWS's incremental layout. The clock is moved to make the windows."""
from __future__ import annotations

import json

from amazon.ion import simpleion

from conftest import unique_name
from items_common import fails
from test_clock import advance
from transfer_common import (BUCKET, data_lines, export_files, own_database,  # noqa: F401
                             pitr, s3_server, wait_export)

KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}


def _item(key: str, version: int) -> dict:
    return {"pk": {"S": key}, "v": {"N": str(version)}}


def _table(ddb, *items: dict) -> tuple[str, str]:
    name = unique_name()
    ddb.create_table(TableName=name, **KEYS)
    for item in items:
        ddb.put_item(TableName=name, Item=item)
    pitr(ddb, name)
    return name, ddb.describe_table(TableName=name)["Table"]["TableArn"]


def test_full_export_holds_the_table_as_of_export_time(s3_server):
    server, root = s3_server
    ddb = server.client()
    name, arn = _table(ddb, _item("a", 1), _item("gone", 1))
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
    name, arn = _table(ddb, _item("a", 1), _item("b", 1), _item("c", 1))
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
    _, arn = _table(ddb)
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
