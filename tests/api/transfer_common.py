"""What the export and import tests share: servers whose S3 buckets are directories of
a test's own, and waiting for a job to end."""
from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

import pytest

from conftest import Server, new_database

BUCKET = "bucket-one"


@pytest.fixture(scope="module")
def own_database():
    """A PostgreSQL database of the module's own: every node on a database works its
    export and import jobs, so one with other buckets must not share it."""
    with new_database() as url:
        yield url


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def s3_server(request, tmp_path_factory):
    """(server, its bucket directory root): a server per backend keeping S3 buckets under
    a directory of its own, with bucket BUCKET made. The memory backend's export steps
    are tested in process (tests/unit/test_transfer_steps.py): the suite's time is
    better spent on the two that keep data."""
    root = tmp_path_factory.mktemp(f"s3-{request.param}")
    (root / "s3" / BUCKET).mkdir(parents=True)
    extra = ("--s3-dir", str(root / "s3"), "--import-error-dir", str(root / "errors"))
    if request.param == "postgres":
        instance = Server("--postgres", request.getfixturevalue("own_database"), *extra)
    else:
        instance = Server(*extra, data_dir=str(root / "data"))
    yield instance, root
    instance.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def restartable(request, tmp_path):
    """A function starting a server (again) on the same data and buckets, the root of
    those, and whether the storage is shared (a restarted node then waits for the dead
    one's job lease; a SQLite data directory has one node, which resumes at once)."""
    (tmp_path / "s3" / BUCKET).mkdir(parents=True)
    extra = ["--s3-dir", str(tmp_path / "s3"), "--import-error-dir", str(tmp_path / "errors")]
    if request.param == "postgres":
        url = request.getfixturevalue("own_database")
        return lambda: Server("--postgres", url, *extra), tmp_path, True
    return lambda: Server(*extra, data_dir=str(tmp_path / "data")), tmp_path, False


def pitr(ddb, table: str) -> None:
    """Turn point-in-time recovery on (exports read the table's history)."""
    ddb.update_continuous_backups(TableName=table, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})


def wait_until(describe, status: str, going=("IN_PROGRESS",), timeout: float = 30.0) -> dict:
    """The description once the job's `status` is none of `going` (a background job:
    there is no clock to move, so this polls)."""
    deadline = time.monotonic() + timeout
    while True:
        description = describe()
        if description[status] not in going or time.monotonic() > deadline:
            return description
        time.sleep(0.02)


def wait_export(ddb, arn: str, timeout: float = 30.0) -> dict:
    return wait_until(lambda: ddb.describe_export(ExportArn=arn)["ExportDescription"],
                      "ExportStatus", timeout=timeout)


def wait_import(ddb, arn: str, timeout: float = 30.0) -> dict:
    return wait_until(lambda: ddb.describe_import(ImportArn=arn)["ImportTableDescription"],
                      "ImportStatus", timeout=timeout)


def export_files(root: Path, description: dict) -> Path:
    """The directory of an export's own objects."""
    return root / "s3" / description["S3Bucket"] / description["ExportManifest"].rpartition("/")[0]


def data_lines(root: Path, description: dict) -> list[bytes]:
    """Every line of an export's data files, as listed in its manifest."""
    folder = export_files(root, description)
    found = []
    for line in (folder / "manifest-files.json").read_bytes().splitlines():
        entry = json.loads(line)
        data = gzip.decompress((root / "s3" / description["S3Bucket"]
                                / entry["dataFileS3Key"]).read_bytes())
        found.extend(data.splitlines())
    return found
