"""ExportTableToPointInTime's job: a table's items written to S3 in AWS's export layout
(S3DataExport.Output in the developer guide), under `<S3Prefix>/AWSDynamoDB/<ExportId>/`:

    _started                    empty, written first: the bucket is writable
    data/<name>.json.gz         (.ion.gz for ION) gzipped lines, up to FILE_ITEMS each
    manifest-files.json         JSON lines: itemCount, md5Checksum, etag, dataFileS3Key
    manifest-files.checksum     the MD5 hex of manifest-files.json
    manifest-summary.json       the export's summary (version 2020-06-30)
    manifest-summary.checksum   the MD5 hex of manifest-summary.json

A full export holds the table as of ExportTime, read from its point-in-time history
(core.history: the base snapshot with the log's writes up to then laid over it), in key
order; an incremental export holds each item written in [ExportFromTime, ExportToTime)
once, with its image at the end of the window and, for NEW_AND_OLD_IMAGES, at its start,
and its data files go to the shared `<S3Prefix>/AWSDynamoDB/data/` folder, as DynamoDB's
do. Each step writes one data file and saves the key it reached, so a resumed job goes
on from there; a data file's name derives from the export id and its position, so a step
run again rewrites the same object. A full export with no item still writes one (empty)
data file, as DynamoDB writes one per partition.
"""
from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import orjson

from okura import arns
from okura.core import history as histories, spaces
from okura.core.transfer import formats, job_records
from okura.core.transfer.objects import StoreError
from okura.storage import keys
from okura.values.sizes import item_size

if TYPE_CHECKING:
    from okura.core.database import Database
    from okura.core.history import History

FILE_ITEMS = 2000  # items per data file (one step); bounds a step's pause
MANIFEST_VERSION = "2020-06-30"
INCREMENTAL = "INCREMENTAL_EXPORT"

Row = tuple[bytes, bytes, bytes]  # an item's hk, rk and the line written for it


def iso(when: float) -> str:
    """A manifest's time: 2020-11-04T07:28:34.028Z."""
    moment = datetime.fromtimestamp(when, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _root(description: dict) -> str:
    prefix = description.get("S3Prefix") or ""
    return f"{prefix.rstrip('/')}/" * bool(prefix) + "AWSDynamoDB/"


def folder(description: dict) -> str:
    """The key prefix of the export's own objects."""
    return _root(description) + arns.job_id(description["ExportArn"]) + "/"


def _data_folder(description: dict) -> str:
    if description.get("ExportType") == INCREMENTAL:
        return _root(description) + "data/"
    return folder(description) + "data/"


def _file_name(description: dict, position: int) -> str:
    digest = hashlib.sha256(f"{description['ExportArn']}/{position}".encode()).digest()
    return base64.b32encode(digest).decode()[:26].lower()


async def _put(db: Database, bucket: str, key: str, data: bytes) -> str:
    return await asyncio.to_thread(db.features[job_records.Transfers].store.put, bucket, key, data)


async def _history(db: Database, record: dict) -> History | None:
    """The table's history, or the one kept for it since it was deleted."""
    table = await db.catalog.get(record["Region"], record["TableName"])
    if table is not None and table.id == record["TableRowId"]:
        return await histories.of_table(db, table)
    kept = await histories.of_deleted(db, record["Region"], record["TableName"])
    return kept if kept is not None and kept.doc["TableId"] == record["TableRowId"] else None


def _position(after: list[str] | None) -> tuple[bytes, bytes] | None:
    return None if after is None else (bytes.fromhex(after[0]), bytes.fromhex(after[1]))


async def _full_page(db: Database, history: History, at: float, after: list[str] | None
                     ) -> tuple[list[tuple[bytes, bytes, int, bytes]], list[str] | None]:
    """Up to FILE_ITEMS of the table's items as of `at` after the key `after`, in key
    order, and the key to go on from (None: none are left)."""
    rows, reached = await history.page_at(db, at, _position(after), FILE_ITEMS)
    return rows, None if reached is None else [reached[0].hex(), reached[1].hex()]


async def _incremental_page(db: Database, history: History, description: dict,
                            after: list[str] | None) -> tuple[list[tuple], list[str] | None]:
    """Up to FILE_ITEMS items written in the window after the key `after`, as
    (µs, key, new image, old image or None) for change_line, and the key to go on from
    (None: none are left)."""
    spec = description["IncrementalExportSpecification"]
    both = spec.get("ExportViewType") == "NEW_AND_OLD_IMAGES"
    start = _position(after)
    lo = None if start is None else keys.terminated(start[0]) + start[1]
    found: list[tuple] = []
    seen = 0
    last = (b"", b"")
    async for change in history.changes(db, spec["ExportFromTime"], spec["ExportToTime"]):
        hk, rk = history.locate(change.key)
        if lo is not None and keys.terminated(hk) + rk <= lo:
            continue
        if seen == FILE_ITEMS:
            return found, [last[0].hex(), last[1].hex()]
        seen += 1
        last = (hk, rk)
        if change.old is None and change.new is None:
            continue  # created and deleted within the window: nothing to say
        new = None if change.new is None else orjson.loads(change.new)
        old = None if change.old is None else orjson.loads(change.old)
        billed = item_size(new if new is not None else orjson.loads(change.old or b"{}"))
        found.append((change.micros, change.key, new, old if both else None, billed))
    return found, None


def _change_lines(changes: list[tuple], fmt: str) -> list[bytes]:
    return [formats.change_line(micros, key, new, old, fmt)
            for micros, key, new, old, _ in changes]


def _item_lines(rows: list[tuple[bytes, bytes, int, bytes]], fmt: str) -> list[bytes]:
    return [formats.item_line(orjson.loads(doc), fmt) for _, _, _, doc in rows]


@job_records.runs(spaces.EXPORTS, lambda record: record.get("Items", 0))
async def step(db: Database, record: dict) -> bool:
    description = record["Description"]
    bucket = description["S3Bucket"]
    now = db.clock.now
    going = True
    history = await _history(db, record)
    if history is not None and not history.ready:
        return True  # its base snapshot is still being taken: wait for it
    try:
        if history is None:
            job_records.end(spaces.EXPORTS, record, job_records.FAILED, now(),
                            "PointInTimeRecoveryUnavailable",
                            "Point in time recovery was disabled during the export")  # unverified
            going = False
        else:
            if not record.get("Started"):
                await _put(db, bucket, folder(description) + "_started", b"")
                record["Started"] = True
            going = await _next_file(db, record, history)
    except StoreError as failure:
        job_records.end(spaces.EXPORTS, record, job_records.FAILED, now(), failure.code, failure.message)
        going = False
    await job_records.save(db, spaces.EXPORTS, record)
    return going


async def _next_file(db: Database, record: dict, history: History) -> bool:
    """Write the next data file; finish the export after the last."""
    description = record["Description"]
    files = record.setdefault("Files", [])
    fmt = description["ExportFormat"]
    # Lines are encoded in a thread (Ion's encoder takes ~0.1 ms an item): the event
    # loop keeps serving meanwhile.
    if description.get("ExportType") == INCREMENTAL:
        changes, reached = await _incremental_page(db, history, description,
                                                   record.get("After"))
        if changes:
            await _write_data(db, record, await asyncio.to_thread(_change_lines, changes, fmt),
                              sum(change[4] for change in changes))
    else:
        rows, reached = await _full_page(db, history, description["ExportTime"],
                                         record.get("After"))
        if rows or not files:
            await _write_data(db, record, await asyncio.to_thread(_item_lines, rows, fmt),
                              sum(size for _, _, size, _ in rows))
    record["After"] = reached
    if reached is None:
        await _finish(db, record)
        return False
    return True


async def _write_data(db: Database, record: dict, lines: list[bytes], size: int) -> None:
    description = record["Description"]
    files = record.setdefault("Files", [])
    data = await asyncio.to_thread(gzip.compress, b"".join(lines), 9, mtime=0)
    key = (_data_folder(description) + _file_name(description, len(files))
           + formats.EXTENSIONS[description["ExportFormat"]])
    etag = await _put(db, description["S3Bucket"], key, data)
    files.append({"itemCount": len(lines),
                  "md5Checksum": base64.b64encode(hashlib.md5(data).digest()).decode(),
                  "etag": etag, "dataFileS3Key": key})
    record["Items"] = record.get("Items", 0) + len(lines)
    record["Bytes"] = record.get("Bytes", 0) + size


async def _finish(db: Database, record: dict) -> None:
    """The manifests, then the job COMPLETED with its counts."""
    description = record["Description"]
    bucket = description["S3Bucket"]
    base = folder(description)
    end = db.clock.now()
    files = b"".join(orjson.dumps(entry) + b"\n" for entry in record["Files"])
    await _put(db, bucket, base + "manifest-files.json", files)
    await _put(db, bucket, base + "manifest-files.checksum",
               hashlib.md5(files).hexdigest().encode())
    summary = {
        "version": MANIFEST_VERSION,
        "exportArn": description["ExportArn"],
        "startTime": iso(description["StartTime"]),
        "endTime": iso(end),
        "tableArn": description["TableArn"],
        "tableId": description["TableId"],
    }
    incremental = description.get("IncrementalExportSpecification")
    if description.get("ExportType") == INCREMENTAL:
        summary.update(exportFromTime=iso(incremental["ExportFromTime"]),
                       exportToTime=iso(incremental["ExportToTime"]))
    else:
        summary["exportTime"] = iso(description["ExportTime"])
    summary.update({
        "s3Bucket": bucket,
        "s3Prefix": description.get("S3Prefix"),
        "s3SseAlgorithm": description.get("S3SseAlgorithm"),
        "s3SseKmsKeyId": description.get("S3SseKmsKeyId"),
        "manifestFilesS3Key": base + "manifest-files.json",
        "billedSizeBytes": record.get("Bytes", 0),
        "itemCount": record.get("Items", 0),
        "outputFormat": description["ExportFormat"],
    })
    if description.get("ExportType") == INCREMENTAL:
        summary.update(exportType=INCREMENTAL, outputView=incremental["ExportViewType"])
    raw = orjson.dumps(summary)
    await _put(db, bucket, base + "manifest-summary.json", raw)
    await _put(db, bucket, base + "manifest-summary.checksum",
               hashlib.md5(raw).hexdigest().encode())
    description.update(ExportManifest=base + "manifest-summary.json",
                       ItemCount=record.get("Items", 0),
                       BilledSizeBytes=record.get("Bytes", 0))
    job_records.end(spaces.EXPORTS, record, job_records.COMPLETED, end)
