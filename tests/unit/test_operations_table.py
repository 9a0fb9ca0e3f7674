"""The one table of operations (server/router.py): every routed operation has its request
shape, checked at the gate, and an IAM demand, which a request of it gets."""
from __future__ import annotations

import asyncio

import pytest

from in_process import memory_app
from okura import shapes
from okura.access.actions import Asks, demands_of
from okura.core.context import Context
from okura.core.streams.read import Iterator
from okura.server.router import ROUTES

TABLE_ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/t"
STREAM_ARN = TABLE_ARN + "/stream/2026-01-01T00:00:00.000"
KEY = {"pk": {"S": "a"}}


def _request(seal) -> dict:
    """A request naming a resource in every member some operation takes one from."""
    return {
        "TableName": "t", "Key": KEY, "Item": KEY,
        "ResourceArn": TABLE_ARN, "StreamArn": STREAM_ARN, "TableArn": TABLE_ARN,
        "ExportArn": TABLE_ARN + "/export/1", "ImportArn": TABLE_ARN + "/import/1",
        "BackupArn": TABLE_ARN + "/backup/1", "SourceTableName": "t",
        "BulkOperationArn": TABLE_ARN + "/bulk-operation/1",
        "RequestItems": {"t": [{"PutRequest": {"Item": KEY}}]},
        "TransactItems": [{"Get": {"TableName": "t", "Key": KEY}}],
        "Statement": 'SELECT * FROM "t"', "Statements": [{"Statement": 'SELECT * FROM "t"'}],
        "TransactStatements": [{"Statement": 'SELECT * FROM "t"'}],
        "TableCreationParameters": {"TableName": "t"},
        "ShardIterator": Iterator(STREAM_ARN, "shard", 0, 0.0).encode(seal),
    }


@pytest.mark.parametrize("target", sorted(ROUTES))
def test_every_routed_operation_has_its_shape_and_an_iam_demand(target):
    op = ROUTES[target]
    assert target.endswith("." + op.name)
    assert isinstance(op.shape, shapes.Shape) and op.shape is shapes.of(op.name)
    assert isinstance(op.asks, Asks) and op.asks.action == op.name

    async def demanded():
        async with memory_app() as app:
            ctx = Context(app.db, op.name, "us-east-1")
            return await demands_of(ctx, op.asks, _request(app.db.seal))

    demands = asyncio.run(demanded())
    assert demands, f"{op.name} demands nothing of IAM"
    assert all(demand.action.startswith("dynamodb:") and demand.action != "dynamodb:"
               for demand in demands)


def test_every_operation_the_table_routes_is_one_the_model_describes():
    names = [op.name for op in ROUTES.values()]
    assert len(names) == len(set(names)) == 58
    assert set(names) <= shapes.OPERATIONS
