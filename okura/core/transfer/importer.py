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

import os
from typing import TYPE_CHECKING, Callable

import orjson

from okura import arns
from okura.core import items, spaces
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.transfer import formats, job_records, loading
from okura.core.transfer.objects import StoreError
from okura.errors import DynamoError
from okura.values import key_rules, validation
from okura.values.sizes import check_item_size

if TYPE_CHECKING:
    from okura.core.database import Database

CHUNK = 1000   # lines handled per step
BATCH = 100    # items per storage transaction


def error_log(db: Database, description: dict) -> str:
    return os.path.join(db.features[job_records.Transfers].error_logs,
                        arns.job_id(description["ImportArn"]) + ".log")


def _decoding(description: dict) -> Callable[[bytes], list[loading.Entry]]:
    types = {a["AttributeName"]: a["AttributeType"]
             for a in description["TableCreationParameters"]["AttributeDefinitions"]}
    return lambda data: loading.decode(
        data, description["InputFormat"], description.get("InputCompressionType", "NONE"),
        (description.get("InputFormatOptions") or {}).get("Csv"), types)


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
    entries = sorted(batch.items())
    changes = [items.Change(table, item, _put(item), needs_old=False, at=at)
               for at, (_, item) in entries]
    # no capacity is consumed by an import: the context's ledger is dropped
    reasons = await loading.write(Context(db, "ImportTable", table.region), changes)
    return {number: reason.message or reason.name
            for (_, (number, _)), reason in zip(entries, reasons) if reason is not None}


def _log_errors(db: Database, description: dict, key: str,
                errors: list[tuple[int, str]]) -> None:
    if not errors:
        return
    os.makedirs(db.features[job_records.Transfers].error_logs, exist_ok=True)
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
            listed = await loading.objects(db, source_spec["S3Bucket"],
                                           source_spec.get("S3KeyPrefix") or "")
            record["Keys"] = [key for key, _ in listed]
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
        loading.forget(db, description["ImportArn"])
    await job_records.save(db, spaces.IMPORTS, record)
    return going


async def _import_chunk(db: Database, record: dict, table: Table) -> None:
    description = record["Description"]
    source = await loading.source(db, description["ImportArn"], record["File"],
                                  description["S3BucketSource"]["S3Bucket"],
                                  record["Keys"][record["File"]], _decoding(description))
    start = record["Line"]
    chunk = source.entries[start:start + CHUNK]
    errors: list[tuple[int, str]] = []
    batch: dict = {}
    imported = 0
    for number, found in chunk:
        if isinstance(found, formats.BadLine):
            errors.append((number, str(found)))
            continue
        entry = found["Item"]
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
