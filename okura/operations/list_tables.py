"""ListTables: the region's table names in ascending order, a page at a time."""
from __future__ import annotations

from bisect import bisect_right

from okura import shapes
from okura.core.context import Context

DEFAULT_LIMIT = 100


async def handle(ctx: Context, body: dict) -> dict:
    shapes.check("ListTables", body)
    names = await ctx.db.catalog.names(ctx.region)
    start = body.get("ExclusiveStartTableName")
    first = 0 if start is None else bisect_right(names, start)
    limit = body.get("Limit") or DEFAULT_LIMIT
    page = names[first:first + limit]
    reply: dict = {"TableNames": page}
    if first + limit < len(names):
        reply["LastEvaluatedTableName"] = page[-1]
    return reply
