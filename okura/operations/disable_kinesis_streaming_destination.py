"""DisableKinesisStreamingDestination: stop sending the table's changes to an ACTIVE
destination. It is DISABLING for the server's status delay, then DISABLED, and stays
listed; what was captured before is still delivered."""
from __future__ import annotations

from okura import errors
from okura.core import table_lookup
from okura.core.context import Context
from okura.core.streams import kinesis
from okura.operations.shared.kinesis_destinations import entry_of, not_valid, reply, save


async def handle(ctx: Context, body: dict) -> dict:
    db = ctx.db
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    if body.get("EnableKinesisStreamingConfiguration"):
        raise errors.validation(
            "Stream cannot be disabled using EnableKinesisStreamingConfiguration parameters")
    now = db.clock.now()
    entry = entry_of(table, body["StreamArn"])
    status = None if entry is None else kinesis.status(entry, now)
    if entry is None or status not in (kinesis.ACTIVE, kinesis.DISABLING):
        raise not_valid("KinesisStreamingDestination must be ACTIVE to perform DISABLE "
                        "operation.")
    if status == kinesis.ACTIVE:
        entry = {**entry, "State": kinesis.DISABLING, "Until": db.status_until(now)}
        await save(ctx, table, entry)
    return reply(table, entry, kinesis.DISABLING)
