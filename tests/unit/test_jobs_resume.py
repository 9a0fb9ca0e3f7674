"""A background job survives a restart: a backup interrupted after its first step goes
on from its saved state when a server opens the same storage again (SQLite,
PostgreSQL), and still holds the table as of its start (a write made after the
restart included); a point-in-time restore goes on from the page it reached. A
backup still being created or restored from cannot be deleted (BackupInUseException),
nor restored into a table being created (TableInUseException)."""
from __future__ import annotations

import asyncio

import orjson
import pytest
from conftest import new_database

from in_process import app_on, memory_app
from okura.config import Settings
from okura.core import history, jobs, restores, snapshots
from okura.core.jobs import Runner
from okura.server import prometheus
from okura.server.http import Request
from test_index_jobs import SIGNED, call

TABLE = "tab"
COUNT = 2 * snapshots.CHUNK + 10


async def filled_table(app, count: int = COUNT) -> None:
    """TABLE with `count` items k0000, k0001, ... (v = 0)."""
    await call(app, "CreateTable", {
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
    for start in range(0, count, 25):
        await call(app, "BatchWriteItem", {"RequestItems": {TABLE: [
            {"PutRequest": {"Item": {"pk": {"S": f"k{n:04}"}, "v": {"N": "0"}}}}
            for n in range(start, min(start + 25, count))]}})


def request(app, operation: str) -> Request:
    headers = dict(SIGNED, **{"x-amz-target": f"DynamoDB_20120810.{operation}"})
    return Request(app.db, headers, b"RID", None)


@pytest.fixture(params=["sqlite", "postgres"])
def settings(request, tmp_path):
    """Settings of a server on a storage of this test's own, which outlives a restart."""
    if request.param == "sqlite":
        yield Settings(data_dir=str(tmp_path))
        return
    with new_database() as url:
        yield Settings(postgres=url)


def test_a_backup_resumes_after_a_restart(settings):

    async def scenario():
        async with app_on(settings) as app:
            await filled_table(app)
            arn = (await call(app, "CreateBackup", {"TableName": TABLE, "BackupName": "bkp"}))[
                "BackupDetails"]["BackupArn"]
            assert await app.db.features[Runner].round()  # one step, then the server stops
            [job] = await jobs.pending(app.db)
            assert job["Kind"] == "backup" and job["State"]["Done"] == snapshots.CHUNK
        async with app_on(settings) as app:  # started again on the same file
            [resumed] = await jobs.pending(app.db)
            assert resumed == job
            described = await call(app, "DescribeBackup", {"BackupArn": arn})
            assert described["BackupDescription"]["BackupDetails"]["BackupStatus"] == "CREATING"
            last = f"k{COUNT - 1:04}"  # not copied yet: a write must preserve it
            await call(app, "PutItem", {"TableName": TABLE,
                                        "Item": {"pk": {"S": last}, "v": {"N": "1"}}})
            while await app.db.features[Runner].round():
                pass
            assert await jobs.pending(app.db) == []
            described = (await call(app, "DescribeBackup", {"BackupArn": arn}))[
                "BackupDescription"]
            assert described["BackupDetails"]["BackupStatus"] == "AVAILABLE"
            assert described["SourceTableDetails"]["ItemCount"] == COUNT
            await call(app, "RestoreTableFromBackup", {"BackupArn": arn,
                                                       "TargetTableName": "copy"})
            while await app.db.features[Runner].round():
                pass
            item = await call(app, "GetItem", {"TableName": "copy",
                                               "Key": {"pk": {"S": last}}})
            assert item["Item"]["v"] == {"N": "0"}
            table = await call(app, "DescribeTable", {"TableName": "copy"})
            assert table["Table"]["ItemCount"] == COUNT

    asyncio.run(scenario())


def test_a_backup_being_created_is_in_use():
    async def scenario():
        async with memory_app() as app:
            await call(app, "CreateTable", {
                "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
            arn = (await call(app, "CreateBackup", {"TableName": TABLE, "BackupName": "bkp"}))[
                "BackupDetails"]["BackupArn"]
            # the job has not run: the backup is CREATING, its progress published
            [job] = await jobs.pending(app.db)
            assert f'okura_job_done{{kind="backup",job="{job["Id"]}"}} 0.0\n' in (
                await prometheus.page(app.db)).decode()
            for operation, body in (("DeleteBackup", {"BackupArn": arn}),
                                    ("RestoreTableFromBackup", {"BackupArn": arn,
                                                                "TargetTableName": "copy"})):
                status, reply = await app.dispatch(request(app, operation), orjson.dumps(body))
                assert status == 400
                assert orjson.loads(reply)["__type"].endswith("#BackupInUseException")
            while await app.db.features[Runner].round():
                pass
            restore = {"BackupArn": arn, "TargetTableName": "copy"}
            await call(app, "RestoreTableFromBackup", restore)
            # its target is being created, and the backup is being restored from
            for operation, body in (("RestoreTableFromBackup", restore),
                                    ("DeleteBackup", {"BackupArn": arn})):
                status, reply = await app.dispatch(request(app, operation), orjson.dumps(body))
                assert status == 400
                assert orjson.loads(reply)["__type"].endswith(
                    "#TableInUseException" if operation == "RestoreTableFromBackup"
                    else "#BackupInUseException")
            while await app.db.features[Runner].round():
                pass
            await call(app, "DeleteBackup", {"BackupArn": arn})

    asyncio.run(scenario())


def test_a_point_in_time_restore_resumes_after_a_restart(settings):
    async def scenario():
        async with app_on(settings) as app:
            await filled_table(app)
            await call(app, "UpdateContinuousBackups", {
                "TableName": TABLE,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            while await app.db.features[Runner].round():
                pass
            last = f"k{COUNT - 1:04}"
            await call(app, "PutItem", {"TableName": TABLE,
                                        "Item": {"pk": {"S": last}, "v": {"N": "1"}}})
            await call(app, "DeleteItem", {"TableName": TABLE, "Key": {"pk": {"S": "k0000"}}})
            await app.db.clock.advance(400)
            await call(app, "RestoreTableToPointInTime", {
                "SourceTableName": TABLE, "TargetTableName": "back",
                "UseLatestRestorableTime": True})
            assert await app.db.features[Runner].round()  # one page, then the server stops
            [job] = await jobs.pending(app.db)
            assert job["Kind"] == "restore" and job["State"]["Done"] == restores.CHUNK
        restores._written.clear()  # what the stopped process had read of the log
        async with app_on(settings) as app:
            while await app.db.features[Runner].round():
                pass
            table = (await call(app, "DescribeTable", {"TableName": "back"}))["Table"]
            assert table["TableStatus"] == "ACTIVE" and table["ItemCount"] == COUNT - 1
            item = await call(app, "GetItem", {"TableName": "back", "Key": {"pk": {"S": last}}})
            assert item["Item"]["v"] == {"N": "1"}

    asyncio.run(scenario())


def test_disabling_recovery_does_not_cut_a_restore_short():
    async def scenario():
        async with memory_app() as app:
            db = app.db
            await filled_table(app)
            await call(app, "UpdateContinuousBackups", {
                "TableName": TABLE,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            while await db.features[Runner].round():
                pass
            table = await db.catalog.get("us-east-1", TABLE)
            found = await history.of_table(db, table)
            await call(app, "RestoreTableToPointInTime", {
                "SourceTableName": TABLE, "TargetTableName": "back",
                "UseLatestRestorableTime": True})
            assert await db.features[Runner].round()  # the restore's first page
            await call(app, "UpdateContinuousBackups", {
                "TableName": TABLE,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": False}})
            while await db.features[Runner].round():
                pass
            back = (await call(app, "DescribeTable", {"TableName": "back"}))["Table"]
            assert back["TableStatus"] == "ACTIVE" and back["ItemCount"] == COUNT
            async with db.engine.reader() as unit:  # then the history went
                assert await unit.table_stats(found.base) == (0, 0)

    asyncio.run(scenario())
