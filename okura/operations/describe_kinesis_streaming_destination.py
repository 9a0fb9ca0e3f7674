"""DescribeKinesisStreamingDestination: every Kinesis destination of a table, the
DISABLED and ENABLE_FAILED ones included, newest first."""
from __future__ import annotations

from okura.core import table_lookup
from okura.core.context import Context
from okura.core.streams import kinesis
from okura.operations.shared.kinesis_destinations import described


async def handle(ctx: Context, body: dict) -> dict:
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    now = ctx.clock.now()
    return {"TableName": table.name,
            "KinesisDataStreamDestinations": [described(e, now)
                                              for e in kinesis.entries(table.doc)]}
