"""Export and import jobs survive their server: killed mid-job (kill -9), a server
restarted on the same data resumes each from its last saved step and finishes it, once
the dead process's lease on the job has run out (the clock is moved past it)."""
from __future__ import annotations

import json
import signal

import pytest

from conftest import Server, unique_name
from items_common import NOT_FOUND, fails
from test_clock import advance
from transfer_common import (BUCKET, data_lines, export_files, own_database,  # noqa: F401
                             pitr, wait_export, wait_import)

LINES = 3000  # 3 import steps, 2 export steps (data files): a kill right after the reply
# lands mid-job
LEASE_TIME = 10  # seconds: core.transfer.jobs.LEASE_TIME
KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}


@pytest.fixture(params=["sqlite", "postgres"])
def restartable(request, tmp_path):
    """A function starting a server (again) on the same data and buckets."""
    (tmp_path / "s3" / BUCKET).mkdir(parents=True)
    extra = ["--s3-dir", str(tmp_path / "s3"), "--import-error-dir", str(tmp_path / "errors")]
    if request.param == "postgres":
        url = request.getfixturevalue("own_database")
        return lambda: Server("--postgres", url, *extra), tmp_path
    return lambda: Server(*extra, data_dir=str(tmp_path / "data")), tmp_path


def _restarted(start, server, paused, moved: float) -> Server:
    """Kill `server` mid-job and start another on its data: the job stays as it was
    (`paused(client)` checks it), its lease held by the dead process until the clock
    moves `moved` seconds on."""
    server.stop(signal.SIGKILL)
    server = start()
    paused(server.client())
    advance(server, moved)
    return server


def _importing(arn: str, name: str):
    def paused(ddb) -> None:
        assert ddb.describe_import(ImportArn=arn)["ImportTableDescription"][
            "ImportStatus"] == "IN_PROGRESS"
        # the table is CREATING, not served and not deletable, until its import ends
        assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "CREATING"
        assert fails(ddb.get_item, TableName=name, Key={"pk": {"S": "k1"}}) == NOT_FOUND
        assert fails(ddb.delete_table, TableName=name)[0] == "ResourceInUseException"
    return paused


def _exporting(arn: str):
    def paused(ddb) -> None:
        assert ddb.describe_export(ExportArn=arn)["ExportDescription"][
            "ExportStatus"] == "IN_PROGRESS"
    return paused


def test_jobs_resume_after_a_crash(restartable):
    start, root = restartable
    source = root / "s3" / BUCKET / "src" / "items.json"
    source.parent.mkdir()
    source.write_bytes(b"\n".join(json.dumps({"Item": {"pk": {"S": f"k{i}"}}}).encode()
                                  for i in range(LINES)))
    name = unique_name()
    server = start()
    try:
        ddb = server.client()
        arn = ddb.import_table(S3BucketSource={"S3Bucket": BUCKET, "S3KeyPrefix": "src/"},
                               InputFormat="DYNAMODB_JSON",
                               TableCreationParameters={"TableName": name, **KEYS}
                               )["ImportTableDescription"]["ImportArn"]
        server = _restarted(start, server, _importing(arn, name), LEASE_TIME + 1)
        ddb = server.client()
        done = wait_import(ddb, arn)
        assert (done["ImportStatus"], done["ProcessedItemCount"], done["ImportedItemCount"],
                done["ErrorCount"]) == ("COMPLETED", LINES, LINES, 0)
        table = ddb.describe_table(TableName=name)["Table"]
        assert table["TableStatus"] == "ACTIVE" and table["ItemCount"] == LINES
        pitr(ddb, name)
        export = ddb.export_table_to_point_in_time(TableArn=table["TableArn"], S3Bucket=BUCKET
                                                   )["ExportDescription"]["ExportArn"]
        # SQLite keeps no clock offset over a restart, and the killed server had moved
        # its clock: its lease runs out that much later
        server = _restarted(start, server, _exporting(export), 2 * (LEASE_TIME + 1))
        ddb = server.client()
        done = wait_export(ddb, export)
        assert (done["ExportStatus"], done["ItemCount"]) == ("COMPLETED", LINES)
        manifest = (export_files(root, done) / "manifest-files.json").read_bytes()
        assert len(manifest.splitlines()) == 2  # 2,000 items a data file
        lines = data_lines(root, done)
        assert len(lines) == LINES
        assert {json.loads(line)["Item"]["pk"]["S"] for line in lines} == {
            f"k{i}" for i in range(LINES)}
    finally:
        server.stop()
