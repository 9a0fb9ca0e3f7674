"""`okura export` and `okura import`: ExportTableToPointInTime and ImportTable of a running
okura (or any DynamoDB endpoint) from the command line, through boto3, waiting for the
job to finish if asked."""
from __future__ import annotations

from datetime import datetime
from typing import Callable

from okura import arns
from okura.backup_commands import client, show, wait_for


def _report(description: dict, describe: Callable[[], dict], status: str, wait: bool,
            timeout: float) -> None:
    """Print the job's description: with `wait`, once it is no longer IN_PROGRESS."""
    if wait:
        def ended() -> bool:
            nonlocal description
            description = describe()
            return description[status] != "IN_PROGRESS"
        wait_for(ended, timeout)
    show(description)


def export_table(endpoint: str, region: str, table: str, bucket: str, prefix: str | None,
                 fmt: str, when: str | None, since: str | None, until: str | None,
                 view: str, wait: bool, timeout: float) -> None:
    ddb = client(endpoint, region)
    arn = table if table.startswith(arns.PREFIX) else \
        ddb.describe_table(TableName=table)["Table"]["TableArn"]
    request: dict = {"TableArn": arn, "S3Bucket": bucket, "ExportFormat": fmt}
    if prefix:
        request["S3Prefix"] = prefix
    if since is not None:
        window: dict = {"ExportFromTime": datetime.fromisoformat(since), "ExportViewType": view}
        if until is not None:
            window["ExportToTime"] = datetime.fromisoformat(until)
        request.update(ExportType="INCREMENTAL_EXPORT", IncrementalExportSpecification=window)
    elif when is not None:
        request["ExportTime"] = datetime.fromisoformat(when)
    description = ddb.export_table_to_point_in_time(**request)["ExportDescription"]
    _report(description, lambda: ddb.describe_export(
        ExportArn=description["ExportArn"])["ExportDescription"], "ExportStatus", wait, timeout)


def _attribute(spec: str) -> tuple[str, str]:
    name, _, kind = spec.rpartition(":")
    if not name or kind not in ("S", "N", "B"):
        raise SystemExit(f"expected NAME:TYPE with TYPE S, N or B, not {spec}")
    return name, kind


def import_table(endpoint: str, region: str, table: str, bucket: str, prefix: str | None,
                 fmt: str, compression: str, key: str, sort: str | None,
                 delimiter: str | None, wait: bool, timeout: float) -> None:
    ddb = client(endpoint, region)
    keys = [(_attribute(key), "HASH")] + ([(_attribute(sort), "RANGE")] if sort else [])
    source = {"S3Bucket": bucket, **({"S3KeyPrefix": prefix} if prefix else {})}
    options = {"InputFormatOptions": {"Csv": {"Delimiter": delimiter}}} if delimiter else {}
    description = ddb.import_table(
        S3BucketSource=source, InputFormat=fmt, InputCompressionType=compression, **options,
        TableCreationParameters={
            "TableName": table, "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": name, "KeyType": role}
                          for (name, _), role in keys],
            "AttributeDefinitions": [{"AttributeName": name, "AttributeType": kind}
                                     for (name, kind), _ in keys]})["ImportTableDescription"]
    _report(description, lambda: ddb.describe_import(
        ImportArn=description["ImportArn"])["ImportTableDescription"], "ImportStatus", wait,
        timeout)
