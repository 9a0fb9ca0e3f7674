"""ListTables: the region's table names in ascending order, a page at a time."""
from __future__ import annotations

from okura.core import paging
from okura.core.context import Context

DEFAULT_LIMIT = 100


async def handle(ctx: Context, body: dict) -> dict:
    names = await ctx.db.catalog.names(ctx.region)
    page, last = paging.page(names, body.get("Limit") or DEFAULT_LIMIT,
                             paging.after(names, body.get("ExclusiveStartTableName")))
    reply: dict = {"TableNames": page}
    if last is not None:
        reply["LastEvaluatedTableName"] = last
    return reply
