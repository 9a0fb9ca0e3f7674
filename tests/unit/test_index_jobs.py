"""Index jobs against a changed catalog: a backfill chunk planned with a table document
that is no longer current writes nothing (a Delete may have ended the job, and its drop
would never see rows written after it)."""
from __future__ import annotations

import asyncio

import orjson
import pytest

from in_process import memory_app
from okura.core.catalog import CatalogChanged
from okura.core.index_jobs import IndexJobs
from okura.server.app import App
from okura.server.http import Request

SIGNED = {"x-amz-date": "20260101T000000Z",
          "authorization": "AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/"
                           "aws4_request, SignedHeaders=host, Signature=x"}


async def call(app: App, operation: str, body: dict) -> dict:
    headers = dict(SIGNED, **{"x-amz-target": f"DynamoDB_20120810.{operation}"})
    status, reply = await app.dispatch(Request(app.db, headers, b"RID", None), orjson.dumps(body))
    assert status == 200, reply
    return orjson.loads(reply)


def test_a_backfill_chunk_on_a_stale_document_writes_nothing():
    async def scenario():
        async with memory_app() as app:
            db = app.db
            await call(app, "CreateTable", {
                "TableName": "tab", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
            for i in range(10):
                await call(app, "PutItem", {"TableName": "tab", "Item": {
                    "pk": {"S": str(i)}, "g": {"S": "x"}}})
            await call(app, "UpdateTable", {
                "TableName": "tab", "AttributeDefinitions": [{"AttributeName": "g",
                                                            "AttributeType": "S"}],
                "GlobalSecondaryIndexUpdates": [{"Create": {
                    "IndexName": "byg", "Projection": {"ProjectionType": "KEYS_ONLY"},
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}]}}]})
            # nothing has yielded to the loop yet: the job has not run
            stale = await db.catalog.get("us-east-1", "tab")
            await call(app, "UpdateTable", {"TableName": "tab", "DeletionProtectionEnabled": True})
            with pytest.raises(CatalogChanged):
                await db.features[IndexJobs]._backfill(stale, "byg", stale.doc["IndexJobs"]["byg"])
            index = next(index for index in stale.indexes if index.name == "byg")
            async with db.engine.reader() as unit:
                return await unit.scan(index.id, None, None, None, 100)

    assert asyncio.run(scenario()) == []
