"""What ImportTable and StartBulkPutItems share: the objects under an S3 prefix, an
object's lines decompressed and decoded (formats.py) and kept between a job's steps,
and writing a batch of their items through the one write path (core.items), so
indexes, streams and the other write hooks follow."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Callable

from okura.core import items
from okura.core.context import Context
from okura.core.transfer import formats
from okura.core.transfer.job_records import Transfers
from okura.errors import DynamoError

if TYPE_CHECKING:
    from okura.core.database import Database

# (line or CSV row number from 1, its record {"Item": ..., ...} or why it is none)
Entry = tuple[int, "dict | formats.BadLine"]


async def objects(db: Database, bucket: str, prefix: str) -> list[list]:
    """[key, size] of each object under the prefix, in key order (folders left out)."""
    listed = await asyncio.to_thread(db.features[Transfers].store.listing, bucket, prefix)
    return [[key, size] for key, size in listed if not key.endswith("/")]


def decode(data: bytes, fmt: str, compression: str, csv_options: dict | None = None,
           types: dict[str, str] | None = None) -> list[Entry]:
    """An object's entries; one that cannot be decompressed is one bad entry. A CSV row
    (`csv_options`: Delimiter, HeaderList; `types`: the key attributes' types) becomes
    the record {"Item": row}."""
    try:
        text = formats.decompress(data, compression)
    except formats.BadLine as failure:
        return [(1, failure)]
    if fmt == formats.CSV:
        options = csv_options or {}
        return [(number, row if isinstance(row, formats.BadLine) else {"Item": row})
                for number, row in formats.csv_rows(text, options.get("Delimiter", ","),
                                                    options.get("HeaderList"), types or {})]
    decoded: list[Entry] = []
    for number, line in formats.lines(text):
        try:
            decoded.append((number, formats.record_of(line, fmt)))
        except formats.BadLine as failure:
            decoded.append((number, failure))
    return decoded


class DecodedObject:
    """The decoded entries of the object a job is reading (kept between its steps)."""

    def __init__(self, position: int, size: int, entries: list[Entry]) -> None:
        self.position = position
        self.size = size
        self.entries = entries


async def source(db: Database, job: str, position: int, bucket: str, key: str,
                 decoding: Callable[[bytes], list[Entry]]) -> DecodedObject:
    """The entries of the object at `position` of the job's listing (`job`: its ARN),
    read and decoded once, then kept here until the job moves on or `forget`s it."""
    transfers = db.features[Transfers]
    sources = transfers.sources
    found = sources.get(job)
    if found is None or found.position != position:
        data = await asyncio.to_thread(transfers.store.get, bucket, key)
        # decoded in a thread (Ion's reader takes ~0.1 ms a line): the event loop keeps
        # serving meanwhile
        found = sources[job] = DecodedObject(position, len(data),
                                      await asyncio.to_thread(decoding, data))
    return found


def forget(db: Database, job: str) -> None:
    db.features[Transfers].sources.pop(job, None)


async def write(ctx: Context, changes: list[items.Change]) -> list[DynamoError | None]:
    """Write the changes (of distinct items), each on its own: the refused ones are left
    out and the rest written again. Per change, why it was refused (a failed condition,
    an index key of the wrong type) or None; `ctx.ledger` holds what was spent."""
    reasons: list[DynamoError | None] = [None] * len(changes)
    pending = list(range(len(changes)))
    while pending:
        try:
            await items.write_all(ctx, [changes[at] for at in pending])
            return reasons
        except items.Cancelled as cancelled:
            kept = []
            for at, reason in zip(pending, cancelled.reasons):
                if reason is None:
                    kept.append(at)
                else:
                    reasons[at] = reason
            pending = kept
    return reasons
