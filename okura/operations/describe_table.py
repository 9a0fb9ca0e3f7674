"""DescribeTable: the whole TableDescription of one table."""
from __future__ import annotations

from okura import shapes
from okura.operations.table_description import describe
from okura.operations.table_rules import existing_table


async def handle(request, body: dict) -> dict:
    shapes.check("DescribeTable", body)
    table = await existing_table(request, body["TableName"])
    return {"Table": await describe(request.app.db, table)}
