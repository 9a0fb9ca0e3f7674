"""The TTL sweeper: deletes expired items, reading only the items due.

A round looks at each TTL table whose next expiry (expiry.Due, what this process's writes
and sweeps know; on shared storage also every table every ELSEWHERE rounds, for other
nodes' writes) has come, and walks the
table's expiry index (expiry.py) from its oldest entry up to now, in chunks of CHUNK
entries, so its cost follows the items that expire, not the table's size. Among
several nodes sharing a database only the holder of the "ttl" lease sweeps, and a node
takes or renews it only when it has items to delete. An item is expired when its TTL
attribute is a Number of epoch seconds before now, and not more than five years before
(DynamoDB ignores those: their entries are dropped). Each expiry is an ordinary
conditional delete through core.items (the item must still be expired when the delete
runs), so indexes follow, the expiry entry goes with the item, and the stream gets a
REMOVE record attributed to the DynamoDB service.
"""
from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

import orjson

from okura.core import items
from okura.core.context import Context
from okura.core.items import UNCHANGED, Cancelled, Change, Unchanged
from okura.core.metrics import Metrics
from okura.core.scheduler import holds
from okura.core.spaces import expiry_of
from okura.core.streams import read
from okura.core.ttl import expiry, registry
from okura.core.ttl.due import Due
from okura.errors import DynamoError
from okura.storage.engine import Conflict

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database

log = logging.getLogger("okura.ttl")

CHUNK = 100
IGNORED_AGE = 5 * 365 * 86400  # TTL values further in the past than this never expire
LEASE = "ttl"
TRIM_EVERY = 60.0  # seconds between trims of aged stream records (reads skip them anyway)
# On shared storage, rounds between looks at every TTL table (for other nodes' writes;
# this node's writes are known at once)
ELSEWHERE = 10


def expired(item: dict | None, attribute: str, now: float) -> bool:
    value = None if item is None else item.get(attribute)
    if value is None or "N" not in value:
        return False
    when = float(value["N"])
    return now - IGNORED_AGE <= when < now


class Sweeper:
    def __init__(self, db: Database, interval: float) -> None:
        self.db = db
        self.interval = interval
        self.lease_time = max(10 * interval, 30.0)
        self.read = 0  # expiry entries read, since start (bench/ttl_sweep.py counts them)
        self._next_look = 0.0  # time.monotonic() of the next look at every table

    def pending(self) -> bool:
        """The cheap test: may any item be due? (On shared storage, every ELSEWHERE
        rounds: other nodes' writes.)"""
        return self._everywhere() or self.db.features[Due].any_by(self.db.clock.now())

    def _everywhere(self) -> bool:
        return self.db.engine.shared and time.monotonic() >= self._next_look

    async def sweep(self) -> int:
        """One round over the TTL tables with items due; the number of items deleted."""
        db = self.db
        deleted = 0
        everywhere = self._everywhere()
        if everywhere:
            self._next_look = time.monotonic() + ELSEWHERE * self.interval
        due = db.features[Due]
        due.fresh = True  # every table is looked at, or known, once this round ends
        now = db.clock.now()
        for entry in await registry.tables(db):
            if due.waits(entry.table_id, now) and not everywhere:
                continue
            table = await db.catalog.get(entry.region, entry.name)
            if table is None or table.id != entry.table_id or "TimeToLive" not in table.doc:
                await registry.disable(db, entry.region, entry.name)
                continue
            if entry.indexed is None:  # registered before expiry indexes: build its own
                await registry.enable(db, table)
                continue
            deleted += await self._table(table)
        return deleted

    async def work(self) -> None:
        try:
            await self.sweep()
        except BaseException:
            self.db.features[Due].fresh = False  # the tables not reached are looked at next
            raise

    async def _table(self, table: Table) -> int:
        db = self.db
        attribute = table.doc["TimeToLive"]["AttributeName"]
        ctx = Context(db, "TimeToLive", table.region)
        deleted, after = 0, None
        while True:
            now = db.clock.now()
            async with db.engine.reader() as unit:
                due = await expiry.due(unit, table.id, now, after, CHUNK)
            self.read += len(due)
            if not due or not await holds(db, LEASE, self.lease_time):
                break
            for row_key in due:
                deleted += await self._expire(ctx, table, attribute, row_key, now)
            if len(due) < CHUNK:
                break
            after = due[-1]
            await asyncio.sleep(0)  # requests run between chunks
        db.features[Due].known(table.id, await expiry.next_due(db, table.id))
        return deleted

    async def _expire(self, ctx: Context, table: Table, attribute: str, row_key: bytes,
                      now: float) -> int:
        micros, hk, rk = expiry.parse(row_key)
        async with self.db.engine.reader() as unit:
            row = await unit.get(table.id, hk, rk)
        item = None if row is None else orjson.loads(row[1])
        if micros / 1_000_000 < now - IGNORED_AGE or expiry.stamp(item, attribute) != micros:
            await self._drop(table, attribute, row_key)  # it will never expire at that time
            return 0
        assert item is not None  # it has a stamp

        def decide(old: dict | None) -> dict | None | Unchanged:
            return None if expired(old, attribute, self.db.clock.now()) else UNCHANGED

        try:
            written = await items.write_all(
                ctx, [Change(table, table.key_of(item), decide, by_service=True, at=(hk, rk))])
        except (Cancelled, Conflict, DynamoError):
            return 0  # changed or locked meanwhile: the next round looks again
        if written[0].new is written[0].old:
            return 0
        self.db.features[Metrics].expired(table)
        return 1

    async def _drop(self, table: Table, attribute: str, row_key: bytes) -> None:
        """Remove an entry that expires nothing: past the five years DynamoDB ignores,
        or (should the item have changed without it) not its item's time, unless a write
        put it back meanwhile (checked with the item locked)."""
        micros, hk, rk = expiry.parse(row_key)
        async with self.db.engine.transaction() as unit:
            row = await unit.get(table.id, hk, rk, lock=True)
            current = None if row is None else expiry.stamp(orjson.loads(row[1]), attribute)
            if current != micros or micros / 1_000_000 < self.db.clock.now() - IGNORED_AGE:
                await unit.delete(expiry_of(table.id), b"", row_key)


async def trim_streams(db: Database) -> None:
    """Delete the stream records (and Kinesis change log records) past retention."""
    while await read.trim(db, db.clock.now() - db.stream_retention):
        await asyncio.sleep(0)
