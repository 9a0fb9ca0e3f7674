"""The catalog: every table of every region, its schema and settings.

Each table is one document in storage, shaped like DynamoDB's TableDescription
without the parts computed on demand (status after a delay, item count, size).
Lookups are served from a per-process cache of Table objects; the storage
document is the truth, so a cache miss reloads it. Each document has a version:
saves are compare-and-swap on it, and on storage shared by several processes
every write checks, inside its transaction, that the version it planned with is
still current (items.write_all). A stale plan raises CatalogChanged; the request
is then run again with a fresh document.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Awaitable, Callable

import orjson

from okura import arns
from okura.core import spaces
from okura.core.indexes import Index, indexes_of
from okura.core.replication import group
from okura.core.streams import kinesis
from okura.storage import keys
from okura.storage.engine import Engine

if TYPE_CHECKING:
    from okura.core.clock import Clock
    from okura.storage.engine import Transaction

ACTIVE, CREATING, UPDATING, DELETING = "ACTIVE", "CREATING", "UPDATING", "DELETING"
# Catalog-document members that are okura's bookkeeping, not TableDescription members.
PRIVATE = ("Tags", "TimeToLive", "TimeToLiveChanged", "StatusUntil", "IndexIds", "IndexJobs",
           "Snapshots", "PointInTime", "ResourcePolicies", kinesis.MEMBER, *group.PRIVATE)
# The member holding a table's resource-based policies and its streams':
# {resource ARN: {"Policy": text, "RevisionId": id}}
POLICIES = "ResourcePolicies"


async def _nothing(unit: Transaction, table: Table) -> None:
    pass


class CatalogChanged(Exception):
    """A table's catalog document changed after a request read it; nothing was written."""

    def __init__(self, table: Table) -> None:
        super().__init__(f"catalog of {table.name} changed")
        self.table = table


class Table:
    """One table: its catalog document and what is derived from it once."""

    __slots__ = ("id", "version", "region", "name", "doc", "arn", "hash_key", "hash_type",
                 "range_key", "range_type", "key_names", "schema", "indexes",
                 "serves_from")

    def __init__(self, tid: int, version: int, region: str, account: str, doc: dict) -> None:
        self.id = tid
        self.version = version
        self.region = region
        self.name = doc["TableName"]
        self.doc = doc
        self.arn = arns.table(region, account, self.name)
        types = {a["AttributeName"]: a["AttributeType"] for a in doc["AttributeDefinitions"]}
        schema = {k["KeyType"]: k["AttributeName"] for k in doc["KeySchema"]}
        self.hash_key = schema["HASH"]
        self.hash_type = types[self.hash_key]
        self.range_key: str | None = schema.get("RANGE")
        # None exactly when range_key is (a key attribute always has its definition)
        self.range_type: str | None = types.get(self.range_key)
        self.key_names = (self.hash_key,) if self.range_key is None else (
            self.hash_key, self.range_key)
        self.schema = [(name, types[name]) for name in self.key_names]
        self.indexes: list[Index] = indexes_of(doc)
        # DynamoDB serves a table's data while it is ACTIVE or UPDATING, and reports one
        # being created or deleted as not found: it serves from this clock reading on
        # (0: already, so the hot path reads no clock; inf: never).
        status = doc["TableStatus"]
        self.serves_from = (math.inf if status == DELETING
                            else doc.get("StatusUntil", 0) if status == CREATING else 0)

    def status(self, now: float) -> str:
        status = self.doc["TableStatus"]
        if status in (CREATING, UPDATING) and now >= self.doc.get("StatusUntil", 0):
            return ACTIVE
        return status

    def gone(self, now: float) -> bool:
        return self.doc["TableStatus"] == DELETING and now >= self.doc.get("StatusUntil", 0)

    def locate(self, key: dict) -> tuple[bytes, bytes]:
        """Storage key bytes of an item or key whose key attributes are valid."""
        hk = keys.partition(self.hash_type, key[self.hash_key][self.hash_type])
        range_type = self.range_type
        if range_type is None:  # no sort key
            return hk, b""
        return hk, keys.sort_key(range_type, key[self.range_key][range_type])

    def key_of(self, item: dict) -> dict:
        return {name: item[name] for name in self.key_names}


class Catalog:
    def __init__(self, engine: Engine, clock: Clock, account: str) -> None:
        self.engine = engine
        self.clock = clock
        self.account = account
        self._cache: dict[tuple[str, str], Table] = {}
        # Invalidations so far: a document read or saved across one (another node's
        # change, told while this node awaited storage) may be older than the change,
        # so it is answered but not cached.
        self._invalidations = 0
        # Told of each table loaded from storage or saved: its background work may be due.
        self.changed: Callable[[Table], None] = lambda table: None
        # Told of each table deleted, in the unit that drops its items (its features'
        # rows go with them: core/features.py)
        self.dropping: Callable[[Transaction, Table], Awaitable[None]] = _nothing

    async def get(self, region: str, name: str) -> Table | None:
        """The table, or None if it does not exist (or has finished deleting)."""
        table = self._cache.get((region, name))
        if table is None:
            invalidations = self._invalidations
            async with self.engine.reader() as unit:
                found = await unit.catalog_get(region, name)
            if found is None:
                return None
            tid, doc, version = found
            table = Table(tid, version, region, self.account, orjson.loads(doc))
            self._keep(table, invalidations)
            self.changed(table)
        if table.gone(self.clock.now()):
            await self._forget(table)
            return None
        return table

    def cached(self, region: str, name: str) -> Table | None:
        """The table if this process holds it, without touching storage or the clock
        (the hot operations' first try; None sends them the general way, which also
        forgets a table that has finished deleting)."""
        return self._cache.get((region, name))

    async def stats(self, ids: tuple[int, ...]) -> dict[int, tuple[int, int]]:
        """(row count, summed sizes) of tables and indexes, read together."""
        async with self.engine.reader() as unit:
            return {tid: await unit.table_stats(tid) for tid in ids}

    async def new_id(self) -> int:
        """A row-space id for an index added to a table."""
        async with self.engine.transaction() as unit:
            return await unit.new_id()

    async def every(self) -> list[Table]:
        """Every table of every region that exists now (what metrics report on)."""
        async with self.engine.reader() as unit:
            named = [(region, await unit.catalog_list(region))
                     for region in await unit.catalog_regions()]
        tables = [await self.get(region, name) for region, names in named for name in names]
        return [table for table in tables if table is not None]

    async def names(self, region: str) -> list[str]:
        async with self.engine.reader() as unit:
            names = await unit.catalog_list(region)
        return [name for name in names if await self.get(region, name) is not None]

    async def create(self, region: str, doc: dict) -> Table | None:
        """Add a table, giving each of its indexes a row-space id; None if one of that
        name exists in the region."""
        invalidations = self._invalidations
        async with self.engine.transaction() as unit:
            tid = await unit.catalog_insert(region, doc["TableName"], orjson.dumps(doc))
            if tid is None:
                return None
            version: int | None = 1
            names = [index["IndexName"] for kind in ("GlobalSecondaryIndexes",
                                                     "LocalSecondaryIndexes", "VectorIndexes")
                     for index in doc.get(kind, ())]
            if names:
                doc["IndexIds"] = {name: await unit.new_id() for name in names}
                version = await unit.catalog_update(tid, orjson.dumps(doc))
        assert version is not None  # the row this unit inserted is there to update
        table = Table(tid, version, region, self.account, doc)
        self._keep(table, invalidations)
        return table

    async def save(self, table: Table, doc: dict) -> Table:
        """Replace a table's document; returns the new Table (the old one stays unchanged,
        so a request that already holds it sees one consistent version). Raises
        CatalogChanged if someone else changed the document since `table` was read."""
        invalidations = self._invalidations
        async with self.engine.transaction() as unit:
            version = await unit.catalog_update(table.id, orjson.dumps(doc), table.version)
        if version is None:
            self.invalidate(table.id)
            raise CatalogChanged(table)
        new = Table(table.id, version, table.region, self.account, doc)
        self._keep(new, invalidations)
        self.changed(new)
        return new

    async def delete(self, table: Table, doc: dict) -> None:
        """Drop a table's items at once; its name stays taken (DELETING) until the
        status delay in `doc` has passed."""
        finished = doc.get("StatusUntil", 0) <= self.clock.now()
        version = None
        invalidations = self._invalidations
        async with self.engine.transaction() as unit:
            # Its rows, its indexes' entries, its item-collection sizes (-id), and what
            # its features keep of it.
            for tid in (table.id, *table.doc.get("IndexIds", {}).values(),
                        spaces.collections_of(table.id)):
                await unit.drop_rows(tid)
            await self.dropping(unit, table)
            if finished:
                await unit.catalog_delete(table.id)
            else:
                version = await unit.catalog_update(table.id, orjson.dumps(doc))
        if finished or version is None:  # None: another node has finished deleting it
            self._cache.pop((table.region, table.name), None)
        else:
            self._keep(Table(table.id, version, table.region, self.account, doc),
                       invalidations)

    def _keep(self, table: Table, invalidations: int) -> None:
        """Cache a document read or saved since `invalidations` (what the count was),
        unless an invalidation came meanwhile: then it may be stale, and the next lookup
        reads it again."""
        place = (table.region, table.name)
        if invalidations == self._invalidations:
            self._cache[place] = table
        else:
            self._cache.pop(place, None)

    def invalidate(self, tid: int) -> None:
        """Forget a cached table: the next lookup reloads it from storage."""
        self._invalidations += 1
        for place, table in list(self._cache.items()):
            if table.id == tid:
                del self._cache[place]

    async def _forget(self, table: Table) -> None:
        async with self.engine.transaction() as unit:
            await unit.catalog_delete(table.id)
        self._cache.pop((table.region, table.name), None)
