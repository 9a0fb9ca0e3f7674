"""An export's steps in process, where the test decides when they run: each step writes
one data file and saves the key it reached; a step whose record was not saved (its node
died after the work) is done again and rewrites the same object; the export ends with
every item once."""
from __future__ import annotations

import asyncio
import gzip
import json

from in_process import memory_app
from okura.core import spaces
from okura.core.jobs import Runner
from okura.core.transfer import exporter, job_records
from okura.core.transfer.objects import LocalStore
from test_history import run_jobs
from test_index_jobs import call

COUNT = 2 * exporter.FILE_ITEMS + 500  # three data files


def test_export_steps_resume_from_their_saved_key(tmp_path):
    async def scenario():
        async with memory_app() as app:
            db = app.db
            (tmp_path / "s3" / "bucket").mkdir(parents=True)
            transfers = db.features[job_records.Transfers]
            transfers.store, transfers.error_logs = LocalStore(str(tmp_path / "s3")), str(tmp_path)
            await call(app, "CreateTable", {
                "TableName": "tab", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
            for start in range(0, COUNT, 25):
                await call(app, "BatchWriteItem", {"RequestItems": {"tab": [
                    {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}}}}
                    for i in range(start, min(start + 25, COUNT))]}})
            await call(app, "UpdateContinuousBackups", {
                "TableName": "tab",
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            await run_jobs(db)  # the history's base snapshot
            arn = (await call(app, "ExportTableToPointInTime", {
                "TableArn": "arn:aws:dynamodb:us-east-1:000000000000:table/tab",
                "S3Bucket": "bucket"}))["ExportDescription"]["ExportArn"]
            assert await db.features[Runner].round()
            first = await job_records.load(db, spaces.EXPORTS, arn)
            assert first["Description"]["ExportStatus"] == "IN_PROGRESS"
            assert len(first["Files"]) == 1 and first["After"] is not None
            assert await db.features[Runner].round()
            second = await job_records.load(db, spaces.EXPORTS, arn)
            assert len(second["Files"]) == 2 and second["After"] > first["After"]
            await job_records.save(db, spaces.EXPORTS, first)  # the second step's save was lost
            await run_jobs(db)
            return await job_records.load(db, spaces.EXPORTS, arn)

    done = asyncio.run(scenario())
    description = done["Description"]
    assert (description["ExportStatus"], description["ItemCount"]) == ("COMPLETED", COUNT)
    bucket = tmp_path / "s3" / "bucket"
    folder = bucket / exporter.folder(description)
    entries = [json.loads(line) for line in (folder / "manifest-files.json").read_bytes()
               .splitlines()]
    assert [entry["itemCount"] for entry in entries] == [exporter.FILE_ITEMS,
                                                         exporter.FILE_ITEMS, 500]
    assert len(list((folder / "data").iterdir())) == 3  # the repeated step rewrote its file
    keys = [json.loads(line)["Item"]["pk"]["S"] for entry in entries
            for line in gzip.decompress((bucket / entry["dataFileS3Key"]).read_bytes())
            .splitlines()]
    assert sorted(keys) == sorted(f"k{i}" for i in range(COUNT))
