"""ListStreams: the readable streams of a region, or of one table."""
from __future__ import annotations

from okura import shapes
from okura.core.context import Context
from okura.core.streams import read
from okura.operations.streams import check_arn, check_limit, horizon
from okura.core.resolve import table_name

MAX_LIMIT = 100


async def handle(ctx: Context, body: dict) -> dict:
    shapes.check("ListStreams", body)
    limit = check_limit(body, MAX_LIMIT)
    if body.get("ExclusiveStartStreamArn") is not None:
        check_arn(body["ExclusiveStartStreamArn"])
    name = body.get("TableName")
    streams, more = await read.listing(ctx.db, ctx.region,
                                       None if name is None else table_name(ctx, name),
                                       body.get("ExclusiveStartStreamArn"), limit,
                                       horizon(ctx))
    reply: dict = {"Streams": [{"StreamArn": s.arn, "TableName": s.doc["TableName"],
                          "StreamLabel": s.doc["Label"]} for s in streams]}
    if more:
        reply["LastEvaluatedStreamArn"] = streams[-1].arn
    return reply
