"""A bulk put's steps in process (the memory backend), where the test decides when they
run: its progress on GET /metrics once its objects are listed; a step's save never
overwrites the CANCELLING a cancel saved meanwhile, and the next step ends it CANCELLED
with its manifest."""
from __future__ import annotations

import asyncio
import json

from in_process import memory_app
from okura.core.jobs import Runner
from okura.core.transfer import bulk, job_records
from okura.core.transfer.objects import LocalStore
from okura.server import prometheus
from test_index_jobs import call

COUNT = 3 * bulk.CHUNK  # three steps' lines, when nothing else bounds a step


def test_progress_metrics_and_a_cancel_between_steps(tmp_path):
    (tmp_path / "s3" / "in").mkdir(parents=True)
    (tmp_path / "s3" / "out").mkdir()
    data = "\n".join(json.dumps({"Item": {"pk": {"S": f"k{i}"}}}) for i in range(COUNT))
    (tmp_path / "s3" / "in" / "x.json").write_text(data)

    async def scenario():
        async with memory_app() as app:
            db = app.db
            transfers = db.features[job_records.Transfers]
            transfers.store, transfers.error_logs = LocalStore(str(tmp_path / "s3")), str(tmp_path)
            jobs = db.features[Runner]
            await call(app, "CreateTable", {
                "TableName": "tab", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
            arn = (await call(app, "StartBulkPutItems", {
                "TableName": "tab",
                "InputS3Configuration": {"S3Bucket": "in", "InputFormat": "DYNAMODB_JSON"},
                "OutputS3Configuration": {"S3Bucket": "out", "OutputType": ["ERROR"]}}))[
                "BulkOperationDescription"]["BulkOperationArn"]
            assert await jobs.round()  # the listing
            page = (await prometheus.page(db)).decode()
            total = [line for line in page.splitlines()
                     if line.startswith('okura_job_total{kind="bulk-put"')]
            assert len(total) == 1 and total[0].endswith(f" {float(len(data))}")
            assert await jobs.round()  # the first chunk
            stale = await job_records.load(db, bulk.SPACE, arn)
            assert stale["Description"]["ProcessedItemCount"] == bulk.CHUNK
            reply = await call(app, "CancelBulkOperation", {"BulkOperationArn": arn})
            assert reply["BulkOperationStatus"] == "CANCELLING"
            await bulk._save(db, stale)  # a step that loaded the record before the cancel
            kept = await job_records.load(db, bulk.SPACE, arn)
            assert kept["Description"]["BulkOperationStatus"] == "CANCELLING"
            assert await jobs.round()  # ends it
            assert not await jobs.round()
            return (await call(app, "DescribeBulkOperation", {"BulkOperationArn": arn}))[
                "BulkOperationDescription"]

    done = asyncio.run(scenario())
    assert (done["BulkOperationStatus"], done["ProcessedItemCount"]) == ("CANCELLED", bulk.CHUNK)
    manifest = tmp_path / "s3" / "out" / bulk.folder(done) / "manifest-summary.json"
    assert json.loads(manifest.read_bytes())["status"] == "CANCELLED"
