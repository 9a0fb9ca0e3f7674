"""A node's exchanges of its throughput budgets with the database (core/shared_budgets.py),
run by hand on one node so that what falls between two exchanges is chosen, not raced."""
from __future__ import annotations

import asyncio

import orjson

from in_process import app_on
from okura.config import Settings
from okura.core.shared_budgets import Sharing
from okura.core.throughput import Throughput
from okura.server.http import Request

AUTH = ("AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=x")


async def _call(app, operation: str, body: dict) -> tuple[int, dict]:
    headers = {"x-amz-target": f"DynamoDB_20120810.{operation}", "x-amz-date": "20260101T000000Z",
               "authorization": AUTH}
    status, reply = await app.dispatch(Request(app.db, headers, b"RID", None),
                                       orjson.dumps(body))
    return status, orjson.loads(reply)


def _put(value: str) -> dict:
    return {"TableName": "budgets", "Item": {"pk": {"S": value[:8]}, "v": {"S": value}}}


def test_a_write_before_a_clock_move_is_charged_when_it_was_made():
    """The bucket is full at one exchange; before the next, a write overdraws it and the
    clock moves 600 s on. The write spent at its own time: the 600 s refill it again,
    the next exchange must not charge it after them (CI saw a node throttled ~90 s)."""
    async def scenario():
        async with app_on(Settings(memory=True)) as app:
            db = app.db
            throughput = db.features[Throughput]
            throughput.throttle("enforce")
            throughput.shared = True  # as over PostgreSQL: budgets count what they spend
            status, _ = await _call(app, "CreateTable", {
                "TableName": "budgets", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}})
            assert status == 200
            sharing = Sharing(db)
            assert (await _call(app, "PutItem", _put("small")))[0] == 200
            await sharing.exchange()  # the database's row: the burst, less one unit
            # 390 units against the 299 left: overdrawn by 91, then throttled
            assert (await _call(app, "PutItem", _put("x" * 399_000)))[0] == 200
            status, reply = await _call(app, "PutItem", _put("refused"))
            assert (status, reply["__type"].rsplit("#")[-1]) == (
                400, "ProvisionedThroughputExceededException")
            await db.clock.advance(600)  # far more than the 91 s that pay the debt back
            await sharing.exchange()
            return await _call(app, "PutItem", _put("after"))

    status, reply = asyncio.run(scenario())
    assert status == 200, reply
