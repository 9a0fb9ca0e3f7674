"""ImportTable's job: the objects under an S3 prefix read into the new table, which
stays CREATING (not served) until the import ends, as in DynamoDB.

The job lists the objects once, then each step handles up to CHUNK lines (CSV rows)
of the current object: decompressed and decoded (formats.py), checked as PutItem
checks an item, and written through the one write path (core.items), so indexes and
streams follow; duplicate keys overwrite each other. A line that is not a valid item
is counted in ErrorCount and written to the import's error log (a local file, one
JSON object a line: object key, line number, message), never fatal. Progress (the
object and line reached, the counts) is saved after every step, and a resumed job goes
on from there (writing an item twice is harmless).
"""
from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

import orjson

from okura import arns
from okura.core import items, spaces
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.transfer import formats, job_records
from okura.core.transfer.objects import StoreError
from okura.errors import DynamoError
from okura.values import key_rules, validation
from okura.values.sizes import check_item_size

if TYPE_CHECKING:
    from okura.core.database import Database

CHUNK = 1000   # lines handled per step
BATCH = 100    # items per storage transaction


def error_log(db: Database, description: dict) -> str:
    return os.path.join(db.transfers.error_logs,
                        arns.job_id(description["ImportArn"]) + ".log")


class _Source:
    """The decoded entries of the object an import is reading (kept between steps)."""

    def __init__(self, arn: str, position: int, size: int,
                 entries: list[tuple[int, dict | formats.BadLine]]) -> None:
        self.arn = arn
        self.position = position
        self.size = size
        self.entries = entries


def _decode(data: bytes, description: dict, types: dict[str, str]
            ) -> list[tuple[int, dict | formats.BadLine]]:
    try:
        text = formats.decompress(data, description.get("InputCompressionType", "NONE"))
    except formats.BadLine as failure:
        return [(1, failure)]
    fmt = description["InputFormat"]
    if fmt == formats.CSV:
        options = (description.get("InputFormatOptions") or {}).get("Csv") or {}
        return list(formats.csv_rows(text, options.get("Delimiter", ","),
                                     options.get("HeaderList"), types))
    decoded: list[tuple[int, dict | formats.BadLine]] = []
    for number, line in formats.lines(text):
        try:
            decoded.append((number, formats.item_of(line, fmt)))
        except formats.BadLine as failure:
            decoded.append((number, failure))
    return decoded


async def _source(db: Database, record: dict) -> _Source:
    description = record["Description"]
    arn = description["ImportArn"]
    position = record["File"]
    sources = db.transfers.sources
    source = sources.get(arn)
    if source is None or source.position != position:
        bucket = description["S3BucketSource"]["S3Bucket"]
        data = await asyncio.to_thread(db.transfers.store.get, bucket, record["Keys"][position])
        types = {a["AttributeName"]: a["AttributeType"]
                 for a in description["TableCreationParameters"]["AttributeDefinitions"]}
        # decoded in a thread (Ion's reader takes ~0.1 ms a line): the event loop keeps
        # serving meanwhile
        entries = await asyncio.to_thread(_decode, data, description, types)
        source = sources[arn] = _Source(arn, position, len(data), entries)
    return source


def _checked(table: Table, item: dict) -> None:
    """PutItem's checks of an item (numbers normalised in place)."""
    validation.check_item(item)
    key_rules.check_item_keys(item, table.schema)
    check_item_size(item)


def _put(item: dict) -> items.Decide:
    return lambda old: item


async def _write(db: Database, table: Table, batch: dict) -> dict[int, str]:
    """Write the batch ({storage key: (line, item)}); the refused items' lines and
    reasons (an index key of the wrong type)."""
    refused: dict[int, str] = {}
    pending = sorted(batch.items())
    while pending:
        changes = [items.Change(table, item, _put(item), needs_old=False, at=at)
                   for at, (_, item) in pending]
        try:
            # no capacity is consumed by an import: the context's ledger is dropped
            await items.write_all(Context(db, "ImportTable", table.region), changes)
            return refused
        except items.Cancelled as cancelled:
            kept = []
            for entry, reason in zip(pending, cancelled.reasons):
                if reason is None:
                    kept.append(entry)
                else:
                    refused[entry[1][0]] = reason.message or reason.name
            pending = kept
    return refused


def _log_errors(db: Database, description: dict, key: str,
                errors: list[tuple[int, str]]) -> None:
    if not errors:
        return
    os.makedirs(db.transfers.error_logs, exist_ok=True)
    with open(error_log(db, description), "ab") as out:
        for number, message in sorted(errors):
            out.write(orjson.dumps({"s3Key": key, "line": number, "message": message}) + b"\n")


@job_records.runs(spaces.IMPORTS, lambda record: record["Description"]["ProcessedItemCount"])
async def step(db: Database, record: dict) -> bool:
    description = record["Description"]
    now = db.clock.now
    source_spec = description["S3BucketSource"]
    going = True
    try:
        table = await db.catalog.get(record["Region"], record["TableName"])
        if table is None or table.id != record["TableRowId"]:
            job_records.end(spaces.IMPORTS, record, job_records.CANCELLED, now())
            going = False
        elif record.get("Keys") is None:
            keys = await asyncio.to_thread(db.transfers.store.keys, source_spec["S3Bucket"],
                                           source_spec.get("S3KeyPrefix") or "")
            record["Keys"] = [key for key in keys if not key.endswith("/")]
            if not record["Keys"]:
                job_records.end(spaces.IMPORTS, record, job_records.FAILED, now(), "InvalidS3Source",
                         "No objects found under the S3 key prefix")  # unverified
                going = False
        elif record["File"] >= len(record["Keys"]):
            await _complete(db, record, table)
            going = False
        else:
            await _import_chunk(db, record, table)
    except StoreError as failure:
        job_records.end(spaces.IMPORTS, record, job_records.FAILED, now(), failure.code, failure.message)
        going = False
    if not going:
        db.transfers.sources.pop(description["ImportArn"], None)
    await job_records.save(db, spaces.IMPORTS, record)
    return going


async def _import_chunk(db: Database, record: dict, table: Table) -> None:
    description = record["Description"]
    source = await _source(db, record)
    start = record["Line"]
    chunk = source.entries[start:start + CHUNK]
    errors: list[tuple[int, str]] = []
    batch: dict = {}
    imported = 0
    for number, entry in chunk:
        if isinstance(entry, formats.BadLine):
            errors.append((number, str(entry)))
            continue
        try:
            _checked(table, entry)
        except DynamoError as refused:
            errors.append((number, refused.message or refused.name))
            continue
        batch[table.locate(entry)] = (number, entry)  # a later duplicate wins
        if len(batch) >= BATCH:
            imported += len(batch)
            refused_lines = await _write(db, table, batch)
            errors.extend(refused_lines.items())
            imported -= len(refused_lines)
            batch = {}
    if batch:
        imported += len(batch)
        refused_lines = await _write(db, table, batch)
        errors.extend(refused_lines.items())
        imported -= len(refused_lines)
    duplicates = len(chunk) - len(errors) - imported  # overwritten within one batch
    _log_errors(db, description, record["Keys"][record["File"]], errors)
    description["ProcessedItemCount"] = description.get("ProcessedItemCount", 0) + len(chunk)
    description["ImportedItemCount"] = (description.get("ImportedItemCount", 0) + imported
                                        + duplicates)
    description["ErrorCount"] = description.get("ErrorCount", 0) + len(errors)
    record["Line"] = start + len(chunk)
    if record["Line"] >= len(source.entries):
        description["ProcessedSizeBytes"] = (description.get("ProcessedSizeBytes", 0)
                                             + source.size)
        record["File"] += 1
        record["Line"] = 0


async def _complete(db: Database, record: dict, table: Table) -> None:
    """The table becomes ACTIVE (after the status delay), the import COMPLETED."""
    now = db.clock.now()
    await db.catalog.save(table, dict(table.doc, StatusUntil=db.status_until(now)))
    job_records.end(spaces.IMPORTS, record, job_records.COMPLETED, now)
