"""DescribeTable: the whole TableDescription of one table."""
from __future__ import annotations

from okura.operations.shared.table_description import describe
from okura.core import table_lookup
from okura.core.context import Context


async def handle(ctx: Context, body: dict) -> dict:
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    return {"Table": await describe(ctx.db, table)}
