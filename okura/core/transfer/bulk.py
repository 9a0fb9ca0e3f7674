"""StartBulkPutItems' job: the DynamoDB JSON or Ion objects under an S3 prefix written
into an existing table, at no more than MaxWriteRequestUnits a second, each line under
its own condition (docs/transfers.md, "Bulk puts").

The job lists the objects once (TotalInputBytes), then each step takes up to CHUNK lines
of the current object, read and decoded by the code imports use (loading.py), as the
write units allow: a token bucket of one second's units, refilled on okura's clock, so
a test moves the clock instead of waiting. A line is a PutItem of its "Item" under its
own ConditionExpression (its rules are PutItem's, which the operation layer lends as
the `plan`); lines go through the one write path in batches of distinct items. A line
that is no item, or that PutItem would refuse, is an ERROR; a false condition a
CONDITION_CHECK_FAILURE; each step writes what it found of the requested output types
to one object of each (a name from a counter saved with the record, so a step run again
rewrites the same object), and the end a manifest. Progress (object, line, counts, the
bucket's units) is saved after every step; a CancelBulkOperation's CANCELLING, saved
meanwhile, is never overwritten (`_save`), and the next step ends the job CANCELLED.
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

import orjson

from okura import arns
from okura.core import items, jobs as background, spaces
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.transfer import formats, job_records, loading
from okura.core.transfer.objects import StoreError
from okura.errors import DynamoError
from okura.storage.engine import doc_of
from okura.values.sizes import item_size

if TYPE_CHECKING:
    from okura.core.database import Database

SPACE = spaces.BULK_OPERATIONS
KIND = "bulk-put"
STATUS = "BulkOperationStatus"
IN_PROGRESS, CANCELLING, CANCELLED, FAILED = (job_records.IN_PROGRESS, "CANCELLING",
                                              job_records.CANCELLED, job_records.FAILED)
COMPLETED, COMPLETED_WITH_ERRORS = job_records.COMPLETED, "COMPLETED_WITH_ERRORS"
ERROR, CONDITION_CHECK_FAILURE = "ERROR", "CONDITION_CHECK_FAILURE"
CHUNK = 1000  # lines handled per step at most
BATCH = 100   # items per storage transaction
WRITE_UNIT = 1024

# A line's PutItem: the change writing its record's "Item" under its condition, after
# PutItem's checks (a DynamoError refuses the line). Lent by the operation layer.
Plan = Callable[[Table, dict], items.Change]
_plans: list[Plan] = []


def plans(plan: Plan) -> Plan:
    """Register the planner of lines (operations/start_bulk_put_items.py, at import)."""
    _plans[:] = [plan]
    return plan


def folder(description: dict) -> str:
    """The key prefix of the operation's output objects."""
    prefix = description["OutputS3Configuration"].get("S3KeyPrefix") or ""
    return (f"{prefix.rstrip('/')}/" * bool(prefix) + "AWSDynamoDB/"
            + arns.job_id(description["BulkOperationArn"]) + "/")


async def _save(db: Database, record: dict) -> None:
    """Save the record, keeping a CANCELLING that a cancel saved since it was loaded."""
    description = record["Description"]
    key = description["BulkOperationArn"].encode()
    async with db.engine.transaction() as unit:
        stored = doc_of(await unit.get(SPACE, key, b"", lock=True))
        if (stored is not None and description[STATUS] == IN_PROGRESS
                and orjson.loads(stored)["Description"][STATUS] == CANCELLING):
            description[STATUS] = CANCELLING
        await unit.put(SPACE, key, b"", 0, orjson.dumps(record))


async def cancel(db: Database, arn: str) -> dict | None:
    """Mark an operation CANCELLING if it is IN_PROGRESS; its record as it now stands
    (None: no such operation)."""
    async with db.engine.transaction() as unit:
        stored = doc_of(await unit.get(SPACE, arn.encode(), b"", lock=True))
        if stored is None:
            return None
        record = orjson.loads(stored)
        if record["Description"][STATUS] == IN_PROGRESS:
            record["Description"][STATUS] = CANCELLING
            await unit.put(SPACE, arn.encode(), b"", 0, orjson.dumps(record))
    background.wake(db)
    return record


@background.kind(KIND)
async def _run(db: Database, state: dict) -> dict | None:
    record = await job_records.load(db, SPACE, state["Arn"])
    if record is None or record["Description"][STATUS] not in (IN_PROGRESS, CANCELLING):
        return None
    going = await step(db, record)
    if going is None:
        return state  # waiting for write units: the runner looks again shortly
    if not going:
        return None
    description = record["Description"]
    return dict(state, Done=description.get("ProcessedInputBytes", 0),
                Total=description.get("TotalInputBytes", "?"))


async def step(db: Database, record: dict) -> bool | None:
    """One step; False once the operation has ended, None while it waits for write
    units (nothing is saved then)."""
    description = record["Description"]
    source = description["InputS3Configuration"]
    going: bool | None = True
    try:
        table = await db.catalog.get(record["Region"], record["TableName"])
        if description[STATUS] == CANCELLING:
            await _finish(db, record, CANCELLED)
            going = False
        elif table is None or table.id != record["TableRowId"]:
            _end(db, record, FAILED, "ResourceNotFound",  # unverified
                 f"Table not found: {record['TableName']}")
            going = False
        elif record.get("Objects") is None:
            listed = await loading.objects(db, source["S3Bucket"],
                                           source.get("S3KeyPrefix") or "")
            record["Objects"] = listed
            description["TotalInputBytes"] = sum(size for _, size in listed)
            if not listed:
                _end(db, record, FAILED, "InvalidS3Source",  # unverified
                     "No objects found under the S3 key prefix")
                going = False
        elif record["File"] >= len(record["Objects"]):
            await _finish(db, record, COMPLETED_WITH_ERRORS if description.get(
                "FailedItemCount") else COMPLETED)
            going = False
        else:
            going = await _put_chunk(db, record, table)
    except StoreError as failure:
        _end(db, record, FAILED, failure.code, failure.message)
        going = False
    if going is False:
        loading.forget(db, description["BulkOperationArn"])
    if going is not None:
        await _save(db, record)
    return going


def _end(db: Database, record: dict, outcome: str, code: str = "", message: str = "") -> None:
    job_records.end(SPACE, record, outcome, db.clock.now(), code, message)


def _tokens(record: dict, now: float) -> float:
    """The write units the operation may spend now: a bucket of one second's units
    (MaxWriteRequestUnits), refilled as okura's clock runs; unbounded without one."""
    rate = record["Description"].get("MaxWriteRequestUnits")
    if rate is None:
        return float("inf")
    last = record.get("Refilled", now)
    tokens = min(float(rate), record.get("Tokens", float(rate)) + (now - last) * rate)
    record["Tokens"], record["Refilled"] = tokens, max(now, last)
    return tokens


def _decoding(description: dict) -> Callable[[bytes], list[loading.Entry]]:
    source = description["InputS3Configuration"]
    return lambda data: loading.decode(data, source["InputFormat"],
                                       source.get("InputCompressionType") or "NONE")


class _Chunk:
    """What one step found: the output lines by type, the units and bytes it spent."""

    def __init__(self, table: Table, key: str) -> None:
        self.table = table
        self.key = key
        self.outputs: dict[str, list[bytes]] = {ERROR: [], CONDITION_CHECK_FAILURE: []}
        self.failed = 0
        self.units = 0.0
        self.usage: dict[str | None, float] = {}  # bytes by index name (None: the table)

    def error(self, number: int, code: str, message: str, item: object = None) -> None:
        self.failed += 1
        line: dict = {"s3Key": self.key, "line": number, "errorCode": code,
                      "errorMessage": message}
        if isinstance(item, dict):
            line["Item"] = item
        self.outputs[ERROR].append(orjson.dumps(line) + b"\n")

    async def write(self, db: Database, batch: dict) -> None:
        """Write the batch ({storage key: (line, item, change)}), noting each refusal."""
        if not batch:
            return
        entries = list(batch.values())
        ctx = Context(db, "StartBulkPutItems", self.table.region)
        reasons = await loading.write(ctx, [change for _, _, change in entries])
        for (number, item, _), reason in zip(entries, reasons):
            if reason is None:
                self.usage[None] = self.usage.get(None, 0) + item_size(item)
            elif reason.name == "ConditionalCheckFailedException":
                line = {"s3Key": self.key, "line": number, "Item": item}
                if reason.extra and reason.extra.get("Item") is not None:
                    line["ExistingItem"] = reason.extra["Item"]
                self.outputs[CONDITION_CHECK_FAILURE].append(orjson.dumps(line) + b"\n")
            else:
                self.error(number, reason.name, reason.message or reason.name, item)
        for _, index, _, units, is_write in ctx.ledger.charges:
            if is_write:
                self.units += units
                if index is not None:
                    self.usage[index.name] = self.usage.get(index.name, 0) + units * WRITE_UNIT
        batch.clear()


async def _put_chunk(db: Database, record: dict, table: Table) -> bool | None:
    description = record["Description"]
    tokens = _tokens(record, db.clock.now())
    if tokens <= 0:
        return None
    key = record["Objects"][record["File"]][0]
    source = await loading.source(db, description["BulkOperationArn"], record["File"],
                                  description["InputS3Configuration"]["S3Bucket"], key,
                                  _decoding(description))
    start = record["Line"]
    chunk = _Chunk(table, key)
    batch: dict = {}
    estimated = 0  # units of the items taken, before the write tells
    taken = 0
    for number, found in source.entries[start:start + CHUNK]:
        if estimated >= tokens:
            break
        taken += 1
        if isinstance(found, formats.BadLine):
            chunk.error(number, "ValidationException", str(found))  # unverified code
            continue
        try:
            change = _plans[0](table, found)
        except DynamoError as refused:
            chunk.error(number, refused.name, refused.message or refused.name,
                        found.get("Item"))
            continue
        at = change.at or table.locate(change.key)
        if at in batch:  # the same item again: the first goes first
            await chunk.write(db, batch)
        batch[at] = (number, found["Item"], change)
        estimated += -(-item_size(found["Item"]) // WRITE_UNIT) or 1
        if len(batch) >= BATCH:
            await chunk.write(db, batch)
    await chunk.write(db, batch)
    await _write_outputs(db, record, chunk)
    record["Tokens"] = tokens - chunk.units
    description["ProcessedItemCount"] = description.get("ProcessedItemCount", 0) + taken
    description["FailedItemCount"] = description.get("FailedItemCount", 0) + chunk.failed
    _add_usage(description, table, chunk.usage)
    record["Line"] = start + taken
    if record["Line"] >= len(source.entries):
        description["ProcessedInputBytes"] = (description.get("ProcessedInputBytes", 0)
                                              + record["Objects"][record["File"]][1])
        record["File"] += 1
        record["Line"] = 0
    return True


def _add_usage(description: dict, table: Table, usage: dict[str | None, float]) -> None:
    """BulkOperationUsage: the table's item bytes written; each index's entries in
    whole kilobytes (okura counts an index entry's write units, not its bytes)."""
    if not usage:
        return
    lsis = {index["IndexName"] for index in table.doc.get("LocalSecondaryIndexes", ())}
    entry = description.setdefault("BulkOperationUsage", [{"TableName": table.name}])[0]
    for name, spent in usage.items():
        if name is None:
            holder = entry.setdefault("Table", {"BulkPutBytes": 0})
        else:
            member = "LocalSecondaryIndexes" if name in lsis else "GlobalSecondaryIndexes"
            holder = entry.setdefault(member, {}).setdefault(name, {"BulkPutBytes": 0})
        holder["BulkPutBytes"] += int(spent)
        entry["BulkPutBytes"] = entry.get("BulkPutBytes", 0) + int(spent)


async def _put_object(db: Database, description: dict, name: str, data: bytes) -> str:
    return await asyncio.to_thread(db.features[job_records.Transfers].store.put,
                                   description["OutputS3Configuration"]["S3Bucket"],
                                   folder(description) + name, data)


async def _write_outputs(db: Database, record: dict, chunk: _Chunk) -> None:
    """Each requested output type's lines of the step, as one object of its own."""
    description = record["Description"]
    wanted = description["OutputS3Configuration"].get("OutputType") or ()
    written = record.setdefault("Outputs", {})
    for kind, lines in chunk.outputs.items():
        if kind in wanted and lines:
            count = written.get(kind, 0)
            await _put_object(db, description, f"{kind}/part-{count:05d}.json",
                              b"".join(lines))
            written[kind] = count + 1


async def _finish(db: Database, record: dict, outcome: str) -> None:
    """The manifest (the counts and the output objects), then the end."""
    description = record["Description"]
    outputs = record.get("Outputs", {})
    summary = {
        "bulkOperationArn": description["BulkOperationArn"],
        "status": outcome,
        "processedItemCount": description.get("ProcessedItemCount", 0),
        "failedItemCount": description.get("FailedItemCount", 0),
        "outputFiles": {kind: [folder(description) + f"{kind}/part-{n:05d}.json"
                               for n in range(count)] for kind, count in outputs.items()},
    }
    await _put_object(db, description, "manifest-summary.json", orjson.dumps(summary))
    _end(db, record, outcome)
