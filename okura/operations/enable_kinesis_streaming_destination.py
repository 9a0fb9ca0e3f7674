"""EnableKinesisStreamingDestination: start sending the table's changes to a Kinesis
data stream. The reply says ENABLING; the background task (okura/core/streams/kinesis_feeds.py)
then finds the stream, ACTIVE, or gives up, ENABLE_FAILED with a description, as
DynamoDB checks the stream only after answering. Changes made from now on are kept
for it in the table's change log."""
from __future__ import annotations

from okura.core import table_lookup
from okura.core.context import Context
from okura.core.streams import kinesis
from okura.operations.shared.kinesis_destinations import not_valid, reply, save


async def handle(ctx: Context, body: dict) -> dict:
    db = ctx.db
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    now = db.clock.now()
    if kinesis.live(table.doc, now) is not None:  # one at a time, this stream's or another
        raise not_valid("EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED "
                        "to perform ENABLE operation.")
    configuration = body.get("EnableKinesisStreamingConfiguration") or {}
    async with db.engine.reader() as unit:  # nothing is captured until the entry is saved
        start = await kinesis.log_end(unit, table)
    entry = {"StreamArn": body["StreamArn"], "State": kinesis.ENABLING, "Until": 0,
             "Enabled": now, "From": start}
    if "ApproximateCreationDateTimePrecision" in configuration:
        entry["Precision"] = configuration["ApproximateCreationDateTimePrecision"]
    table = await save(ctx, table, entry)
    async with db.engine.transaction() as unit:
        await kinesis.open_log(unit, table, now)
    return {**reply(table, entry, kinesis.ENABLING),
            "EnableKinesisStreamingConfiguration": configuration}
