"""`okura backup` and `okura restore`: the backup operations of a running okura (or
any DynamoDB endpoint) from the command line, through boto3, waiting for the job to
finish if asked."""
from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timezone

import boto3
from botocore.config import Config

from okura import arns

POLL = 0.2  # seconds between looks at a job being waited for


def client(endpoint: str, region: str):
    # okura does not check signatures unless told to: any key pair works by default;
    # the usual AWS variables, when set, are used.
    session = boto3.session.Session()
    credentials = session.get_credentials()
    keys = {} if credentials is not None else {"aws_access_key_id": "okura",
                                               "aws_secret_access_key": "okura"}
    return session.client("dynamodb", endpoint_url=endpoint, region_name=region,
                          config=Config(retries={"max_attempts": 3}), **keys)


def wait_for(check, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting; the job goes on in the server")
        time.sleep(POLL)


def show(document: dict) -> None:
    json.dump(document, sys.stdout, indent=2, default=str)
    sys.stdout.write("\n")


def backup(endpoint: str, region: str, table: str, name: str | None, wait: bool,
           timeout: float) -> None:
    ddb = client(endpoint, region)
    name = name or f"{table}-{datetime.now(timezone.utc):%Y%m%d%H%M%S}"
    details = ddb.create_backup(TableName=table, BackupName=name)["BackupDetails"]
    arn = details["BackupArn"]
    if wait:
        def available() -> bool:
            nonlocal details
            details = ddb.describe_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"]
            return details["BackupStatus"] == "AVAILABLE"
        wait_for(available, timeout)
    show(details)


def restore(endpoint: str, region: str, target: str, backup_arn: str | None,
            table: str | None, when: str | None, wait: bool, timeout: float) -> None:
    ddb = client(endpoint, region)
    if backup_arn is not None:
        reply = ddb.restore_table_from_backup(TargetTableName=target, BackupArn=backup_arn)
    else:
        timing = {"UseLatestRestorableTime": True} if when is None else {
            "RestoreDateTime": datetime.fromisoformat(when)}
        source = {"SourceTableArn": table} if table and table.startswith(arns.PREFIX) else {
            "SourceTableName": table}
        reply = ddb.restore_table_to_point_in_time(TargetTableName=target, **source, **timing)
    description = reply["TableDescription"]
    if wait:
        def active() -> bool:
            nonlocal description
            description = ddb.describe_table(TableName=target)["Table"]
            return description["TableStatus"] == "ACTIVE"
        wait_for(active, timeout)
    show({"TableName": description["TableName"], "TableStatus": description["TableStatus"],
            "ItemCount": description.get("ItemCount", 0),
            "RestoreSummary": description.get("RestoreSummary")})
