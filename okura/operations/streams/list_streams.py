"""ListStreams: the readable streams of a region, or of one table."""
from __future__ import annotations

from okura import arns
from okura.core import paging
from okura.core.context import Context
from okura.core.streams import read
from okura.operations.streams import check_arn, check_limit, horizon
from okura.core.table_lookup import table_name

MAX_LIMIT = 100


async def handle(ctx: Context, body: dict) -> dict:
    limit = check_limit(body, MAX_LIMIT)
    start = body.get("ExclusiveStartStreamArn")
    if start is not None:
        check_arn(start)
    name = body.get("TableName")
    streams = await read.listing(ctx.db, ctx.region,
                                 None if name is None else table_name(ctx, name), horizon(ctx))
    # in (region, table name, label) order, as the directory rows sort
    places = [(ctx.region, s.doc["TableName"], s.doc["Label"]) for s in streams]
    chosen, last = paging.page(streams, limit, paging.after(
        places, None if start is None else arns.parse_stream(start)))
    reply: dict = {"Streams": [{"StreamArn": s.arn, "TableName": s.doc["TableName"],
                                "StreamLabel": s.doc["Label"]} for s in chosen]}
    if last is not None:
        reply["LastEvaluatedStreamArn"] = last.arn
    return reply
