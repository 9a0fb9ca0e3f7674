"""An import and a bulk put survive their server: killed (kill -9) mid-job, a server
restarted on the same data resumes it from its last saved step, once the dead process's
lease on it has run out (the clock is moved past it), and every count comes out exact.
The job is stopped at a known place: its second object is a named pipe, whose read blocks
until the test puts a file there. (A module of its own: any other node on its database
would work its jobs too.)"""
from __future__ import annotations

import json
import os
import signal
import time

from conftest import unique_name
from items_common import NOT_FOUND, fails
from test_clock import advance
from transfer_common import (BUCKET, own_database, restartable, wait_import,  # noqa: F401
                             wait_until)

HALF = 600  # lines of each of the two objects (the first is imported in one step)
LEASE_TIME = 10  # seconds: core.jobs.LEASE_TIME
KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}


def _lines(first: int) -> bytes:
    return b"\n".join(json.dumps({"Item": {"pk": {"S": f"k{i}"}}}).encode()
                      for i in range(first, first + HALF))


def _restarted(server, start, source, processed):
    """Once the job has read its first object (`processed(client)` reaches HALF: it then
    waits on the pipe), the server killed, the second object put in the pipe's place, and
    a server started again on the same data."""
    ddb = server.client()
    deadline = time.monotonic() + 30
    while processed(ddb) < HALF:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    server.stop(signal.SIGKILL)
    os.unlink(source / "b.json")
    (source / "b.json").write_bytes(_lines(HALF))
    return start()


def test_an_import_resumes_after_a_crash(restartable):
    start, root, shared = restartable
    source = root / "s3" / BUCKET / "src"
    source.mkdir()
    (source / "a.json").write_bytes(_lines(0))
    os.mkfifo(source / "b.json")
    name = unique_name()
    server = start()
    try:
        ddb = server.client()
        arn = ddb.import_table(S3BucketSource={"S3Bucket": BUCKET, "S3KeyPrefix": "src/"},
                               InputFormat="DYNAMODB_JSON",
                               TableCreationParameters={"TableName": name, **KEYS}
                               )["ImportTableDescription"]["ImportArn"]
        server = _restarted(server, start, source, lambda ddb: ddb.describe_import(
            ImportArn=arn)["ImportTableDescription"]["ProcessedItemCount"])
        ddb = server.client()
        if shared:  # held by the dead node's lease until it runs out
            paused = ddb.describe_import(ImportArn=arn)["ImportTableDescription"]
            assert (paused["ImportStatus"], paused["ProcessedItemCount"]) == (
                "IN_PROGRESS", HALF)
            # the table is CREATING, not served and not deletable, until its import ends
            assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "CREATING"
            assert fails(ddb.get_item, TableName=name, Key={"pk": {"S": "k1"}}) == NOT_FOUND
            assert fails(ddb.delete_table, TableName=name)[0] == "ResourceInUseException"
            advance(server, LEASE_TIME + 1)
        done = wait_import(ddb, arn)
        assert (done["ImportStatus"], done["ProcessedItemCount"], done["ImportedItemCount"],
                done["ErrorCount"]) == ("COMPLETED", 2 * HALF, 2 * HALF, 0)
        assert done["ProcessedSizeBytes"] == len(_lines(0)) + len(_lines(HALF))
        table = ddb.describe_table(TableName=name)["Table"]
        assert table["TableStatus"] == "ACTIVE" and table["ItemCount"] == 2 * HALF
    finally:
        server.stop()


def _describe(ddb, arn: str) -> dict:
    return ddb.describe_bulk_operation(BulkOperationArn=arn)["BulkOperationDescription"]


def test_a_bulk_put_resumes_after_a_crash(restartable):
    """Killed (kill -9) while its second object (a named pipe) blocks its read, a bulk put
    resumes on the restarted server from its last saved step, with exact counts."""
    start, root, shared = restartable
    source = root / "s3" / BUCKET / "src"
    source.mkdir()
    (source / "a.json").write_bytes(_lines(0))
    os.mkfifo(source / "b.json")
    server = start()
    try:
        ddb = server.client()
        table = unique_name()
        ddb.create_table(TableName=table, **KEYS)
        arn = ddb.start_bulk_put_items(
            TableName=table, InputS3Configuration={"S3Bucket": BUCKET, "S3KeyPrefix": "src/",
                                                   "InputFormat": "DYNAMODB_JSON"},
            OutputS3Configuration={"S3Bucket": BUCKET, "OutputType": ["ERROR"]},
        )["BulkOperationDescription"]["BulkOperationArn"]
        server = _restarted(server, start, source,
                            lambda ddb: _describe(ddb, arn)["ProcessedItemCount"])
        ddb = server.client()
        if shared:  # held by the dead node's lease until it runs out
            paused = _describe(ddb, arn)
            assert (paused["BulkOperationStatus"], paused["ProcessedItemCount"]) == (
                "IN_PROGRESS", HALF)
            advance(server, LEASE_TIME + 1)
        done = wait_until(lambda: _describe(ddb, arn), "BulkOperationStatus")
        assert (done["BulkOperationStatus"], done["ProcessedItemCount"],
                done["FailedItemCount"]) == ("COMPLETED", 2 * HALF, 0)
        assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == 2 * HALF
    finally:
        server.stop()
