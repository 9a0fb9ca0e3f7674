"""A TTL table's expiry index: its items in the order they expire, so that a sweep
reads the items due and nothing else, whatever the table's size.

One row per item whose TTL attribute is a Number, in a row space of the table's own
(`spaces.expiry_of`), partition b"", sort key: the expiry time in microseconds (8
bytes, big-endian), the item's hash key's length (2 bytes), its hash key and its range
key. Its write hook (`_Expiry`, core/write_hooks.py) keeps it, in the write's own transaction, from
the moment TTL is enabled; the job registry.enable records (core/jobs.py) adds the
items already there then, a chunk per step. Values DynamoDB never expires on (negative, past year
292,000) get no row. Dropped with the table and when TTL is disabled.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import orjson

from okura.core import jobs, write_hooks
from okura.core.spaces import expiry_of
from okura.core.ttl import registry
from okura.core.ttl.due import Due

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database

CHUNK = 256  # rows a backfill step indexes, in one transaction
_PART = b""
_LIMIT = 1 << 63  # microseconds: past this no row (nobody moves the clock that far)


def stamp(item: dict | None, attribute: str) -> int | None:
    """When the item expires, in microseconds, if its TTL attribute can expire it."""
    value = None if item is None else item.get(attribute)
    if value is None or "N" not in value:
        return None
    micros = float(value["N"]) * 1_000_000
    return int(micros) if 0 <= micros < _LIMIT else None


def entry(micros: int, hk: bytes, rk: bytes) -> bytes:
    return micros.to_bytes(8, "big") + len(hk).to_bytes(2, "big") + hk + rk


def parse(row_key: bytes) -> tuple[int, bytes, bytes]:
    """(microseconds, hk, rk) of an entry's sort key."""
    length = int.from_bytes(row_key[8:10], "big")
    return int.from_bytes(row_key[:8], "big"), row_key[10:10 + length], row_key[10 + length:]


class _Expiry(write_hooks.Hook):
    """Every write moves the item's entry from its old expiry time to its new one."""

    name = "ttl"

    def state(self, table: Table) -> str | None:
        ttl = table.doc.get("TimeToLive")
        return None if ttl is None else ttl["AttributeName"]

    async def store(self, attribute: str, write: write_hooks.ItemWrite) -> None:
        before, after = stamp(write.old, attribute), stamp(write.new, attribute)
        if before == after:
            return
        unit, tid, hk, rk = write.unit, write.table.id, write.hk, write.rk
        space = expiry_of(tid)
        if before is not None:
            await unit.delete(space, _PART, entry(before, hk, rk))
        if after is not None:
            await unit.put(space, _PART, entry(after, hk, rk), 0, b"")
            write.db.features[Due].noted(tid, after)


write_hooks.register(_Expiry())


async def due(unit, table_id: int, now: float, after: bytes | None,
              limit: int) -> list[bytes]:
    """The sort keys of the entries due by `now` (and past `after`), oldest first."""
    hi = (int(now * 1_000_000) + 1).to_bytes(8, "big")
    lo = None if after is None else after + b"\x00"
    return [rk for rk, _, _ in await unit.query(expiry_of(table_id), _PART, lo, hi, True,
                                                limit)]


async def next_due(db: Database, table_id: int) -> float:
    """When the table's next item expires (inf: none will)."""
    async with db.engine.reader() as unit:
        rows = await unit.query(expiry_of(table_id), _PART, None, None, True, 1)
    return int.from_bytes(rows[0][0][:8], "big") / 1_000_000 if rows else math.inf


@jobs.kind(registry.BACKFILL)
async def backfill(db: Database, state: dict) -> dict | None:
    """Index a chunk of the table's items; None once all are (or TTL is off again)."""
    table = await db.catalog.get(state["Region"], state["Name"])
    if table is None or table.id != state["TableId"] or "TimeToLive" not in table.doc:
        return None
    attribute = table.doc["TimeToLive"]["AttributeName"]
    reached = state["After"]
    after = None if reached is None else (bytes.fromhex(reached[0]), bytes.fromhex(reached[1]))
    space = expiry_of(table.id)
    async with db.engine.transaction() as unit:
        # Still the document it was: TTL disabled meanwhile drops the index, and a chunk
        # committed after that would leave rows behind (PostgreSQL: FOR SHARE holds it).
        if await unit.catalog_version(table.id) != table.version:
            db.catalog.invalidate(table.id)
            return dict(state)  # reloaded at the next step
        rows = await unit.scan(table.id, after, None, None, CHUNK)
        for hk, rk, _, _ in rows:
            row = await unit.get(table.id, hk, rk, lock=True)
            micros = None if row is None else stamp(orjson.loads(row[1]), attribute)
            if micros is not None:
                await unit.put(space, _PART, entry(micros, hk, rk), 0, b"")
                db.features[Due].noted(table.id, micros)
        if len(rows) == CHUNK:
            return dict(state, After=[rows[-1][0].hex(), rows[-1][1].hex()],
                        Done=state["Done"] + len(rows))
        await registry.indexed(unit, table)
    return None
