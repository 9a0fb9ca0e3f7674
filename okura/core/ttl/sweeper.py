"""The TTL sweeper: deletes expired items, and trims aged stream records.

One sweeper runs per server; among several nodes sharing a database, only the
holder of the "ttl" lease sweeps. A round walks each TTL table in chunks of
CHUNK items, yielding to the event loop between chunks so that serving never
waits behind it. An item is expired when its TTL attribute is a Number of epoch
seconds before now, and not more than five years before (DynamoDB ignores those).
Each expiry is an ordinary conditional delete through core.items (the item must
still be expired when the delete runs), so indexes follow and the stream gets a
REMOVE record attributed to the DynamoDB service.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import orjson

from okura.core import items, leases
from okura.core.context import Context
from okura.core.items import UNCHANGED, Cancelled, Change, Unchanged
from okura.core.streams import read
from okura.core.ttl import registry
from okura.errors import DynamoError
from okura.storage.engine import Conflict

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database

log = logging.getLogger("okura.ttl")

CHUNK = 100
IGNORED_AGE = 5 * 365 * 86400  # TTL values further in the past than this never expire
LEASE = "ttl"


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

    async def run(self) -> None:
        """Sweep every `interval` seconds until cancelled."""
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("TTL sweep failed; retrying in %ss", self.interval)
            await asyncio.sleep(self.interval)

    async def _lease(self) -> bool:
        now = self.db.clock.now()
        return await leases.acquire(self.db, LEASE, leases.NODE, now,
                                    now + max(10 * self.interval, 30.0))

    async def sweep(self) -> int:
        """One round over every TTL table and stream; the number of items deleted."""
        if not await self._lease():
            return 0
        deleted = 0
        for entry in await registry.tables(self.db):
            table = await self.db.catalog.get(entry.region, entry.name)
            if table is None or table.id != entry.table_id or "TimeToLive" not in table.doc:
                await registry.disable(self.db, entry.region, entry.name)
                continue
            deleted += await self._table(table)
        while await read.trim(self.db, self.db.clock.now() - self.db.stream_retention):
            await asyncio.sleep(0)
        return deleted

    async def _table(self, table: Table) -> int:
        attribute = table.doc["TimeToLive"]["AttributeName"]
        deleted, after = 0, None
        ctx = Context(self.db, "TimeToLive", table.region)
        while True:
            async with self.db.engine.reader() as unit:
                rows = await unit.scan(table.id, after, None, None, CHUNK)
            now = self.db.clock.now()
            for _, _, _, raw in rows:
                item = orjson.loads(raw)
                if expired(item, attribute, now):
                    deleted += await self._expire(ctx, table, item, attribute)
            if len(rows) < CHUNK or not await self._lease():
                return deleted
            after = rows[-1][:2]
            await asyncio.sleep(0)

    async def _expire(self, ctx: Context, table: Table, item: dict, attribute: str) -> int:
        def decide(old: dict | None) -> dict | None | Unchanged:
            return None if expired(old, attribute, self.db.clock.now()) else UNCHANGED

        try:
            written = await items.write_all(
                ctx, [Change(table, table.key_of(item), decide, by_service=True)])
        except (Cancelled, Conflict, DynamoError):
            return 0  # changed or locked meanwhile: the next round looks again
        if written[0].new is written[0].old:
            return 0
        self.db.metrics.expired(table)
        return 1
