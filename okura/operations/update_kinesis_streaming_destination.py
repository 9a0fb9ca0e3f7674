"""UpdateKinesisStreamingDestination: change an ACTIVE destination's timestamp
precision. It is UPDATING (already with the new precision) for the server's status
delay, and delivers on meanwhile."""
from __future__ import annotations

from okura import errors
from okura.core import table_lookup
from okura.core.context import Context
from okura.core.streams import kinesis
from okura.operations.shared.kinesis_destinations import entry_of, not_valid, reply, save

_DEFAULT = "MILLISECOND"  # what a destination enabled without a precision has


async def handle(ctx: Context, body: dict) -> dict:
    db = ctx.db
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    configuration = body.get("UpdateKinesisStreamingConfiguration") or {}
    precision = configuration.get("ApproximateCreationDateTimePrecision")
    if precision is None:
        raise errors.validation(
            "Streaming destination cannot be updated with given parameters: "
            "UpdateKinesisStreamingConfiguration cannot be null or contain only null values")
    arn = body["StreamArn"]
    now = db.clock.now()
    entry = entry_of(table, arn)
    if entry is None:
        raise not_valid(f"No streaming destination with streamArn: {arn}")
    if kinesis.status(entry, now) != kinesis.ACTIVE:
        raise not_valid("Kinesis streaming is not in ACTIVE state. Updates are only allowed "
                        f"in ACTIVE state. TableName: {table.name}, kdsArn: {arn}")
    if entry.get("Precision", _DEFAULT) == precision:
        raise errors.validation(
            f"Invalid Request: Precision is already set to the desired value of {precision} "
            f"for tableId: {table.doc['TableId']}, kdsArn: {arn}")
    entry = {**entry, "State": kinesis.UPDATING, "Until": db.status_until(now),
             "Precision": precision}
    await save(ctx, table, entry)
    return {**reply(table, entry, kinesis.UPDATING),
            "UpdateKinesisStreamingConfiguration": configuration}
