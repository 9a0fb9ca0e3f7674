"""DescribeTable: the whole TableDescription of one table."""
from __future__ import annotations

from okura.operations.shared.table_description import describe
from okura.core import resolve
from okura.core.context import Context


async def handle(ctx: Context, body: dict) -> dict:
    table = await resolve.existing(ctx, body["TableName"])
    return {"Table": await describe(ctx.db, table)}
