"""What the Kinesis streaming destination operations share: finding a table's entry
for a stream, its description, DynamoDB's refusal wording, and saving the entries
(core/streams/kinesis.py keeps the rules)."""
from __future__ import annotations

from okura import errors
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.streams import kinesis
from okura.errors import DynamoError


def entry_of(table: Table, arn: str) -> dict | None:
    return next((e for e in kinesis.entries(table.doc) if e["StreamArn"] == arn), None)


def described(entry: dict, now: float) -> dict:
    """A KinesisDataStreamDestination: the precision only once one was asked for
    (DynamoDB lists none for a destination enabled without, meaning MILLISECOND)."""
    out = {"StreamArn": entry["StreamArn"], "DestinationStatus": kinesis.status(entry, now)}
    if "Description" in entry:
        out["DestinationStatusDescription"] = entry["Description"]
    if "Precision" in entry:
        out["ApproximateCreationDateTimePrecision"] = entry["Precision"]
    return out


def not_valid(detail: str) -> DynamoError:
    return errors.validation(
        f"Table is not in a valid state to enable Kinesis Streaming Destination: {detail}")


async def save(ctx: Context, table: Table, entry: dict) -> Table:
    """Store `entry` as the table's newest, in place of any entry for its stream."""
    others = [e for e in kinesis.entries(table.doc) if e["StreamArn"] != entry["StreamArn"]]
    return await ctx.db.catalog.save(table, {**table.doc, kinesis.MEMBER: [entry, *others]})


def reply(table: Table, entry: dict, status: str) -> dict:
    return {"TableName": table.name, "StreamArn": entry["StreamArn"], "DestinationStatus": status}
