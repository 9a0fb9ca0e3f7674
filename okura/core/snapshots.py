"""Copy-on-write snapshots: a table's items as of one instant, copied into a row space
of their own while the table keeps serving writes (on-demand backups, the base of a
point-in-time history).

A snapshot's row space mirrors the table's rows (same hk, rk, size and document).
`start` records the space in the table's catalog document (private member
"Snapshots": {space id: start time}); every write from then on (core.items) first
`preserve`s the item it changes, if the snapshot holds nothing for that key yet: the
item as it was, or a tombstone for an item that did not exist. A background copy
(`copy`) walks the table in chunks and copies each item the snapshot holds nothing
for. An item a write changed was preserved before the change, an item no write
changed is copied as it is: the space ends up holding exactly the table as of
`start`, and no write waits for the copy. The copy locks nothing: where writers run
concurrently (PostgreSQL), a write commits its change and its preserved item
together, so the copy either reads the item as it was and finds nothing preserved, or
finds it preserved; a copy racing the first write since `start` puts the same old
item the write preserves (the key's uniqueness orders the two puts). There the copy
puts each row in a transaction of its own, so it never holds one row while waiting
for another, and cannot deadlock with a write. `finish` takes the space off the table and drops
the tombstones. The cost to writes lasts only while a snapshot is being taken: they
read the item they replace and one row of each snapshot (its write hook, `_Preserve`).
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import orjson

from okura.core import write_hooks
from okura.core.catalog import CatalogChanged, Table

if TYPE_CHECKING:
    from okura.core.database import Database

TOMBSTONE = b"-"  # an item absent at the snapshot's instant (a document starts with "{")
CHUNK = 256  # rows per storage transaction of a copy or clean-up
SNAPSHOTS = "Snapshots"


def spaces_of(table: Table) -> tuple[int, ...]:
    """The row spaces of the snapshots being taken of the table."""
    return tuple(int(space) for space in table.doc.get(SNAPSHOTS, ()))


class _Preserve(write_hooks.Hook):
    """Before a write changes an item: keep it as it was in each snapshot being taken
    that has nothing for it yet."""

    name = "snapshots"

    def state(self, table: Table) -> tuple[int, ...] | None:
        return spaces_of(table) or None

    async def store(self, spaces: tuple[int, ...], write: write_hooks.ItemWrite) -> None:
        unit, hk, rk, old = write.unit, write.hk, write.rk, write.old
        body = None
        for space in spaces:
            if await unit.get(space, hk, rk) is None:
                if old is None:
                    await unit.put(space, hk, rk, 0, TOMBSTONE)
                else:
                    body = body or orjson.dumps(old)
                    await unit.put(space, hk, rk, write.old_size, body)


write_hooks.register(_Preserve())


async def start(db: Database, table: Table, **members: object) -> tuple[int, float, Table]:
    """Begin a snapshot of `table` now: (its row space, its instant, the table as saved,
    with `members` set in the same catalog save).
    Raises CatalogChanged if the table changed meanwhile (nothing is started)."""
    space = await db.catalog.new_id()
    now = db.clock.now()
    taken = dict(table.doc.get(SNAPSHOTS, {}), **{str(space): now})
    return space, now, await db.catalog.save(table, dict(table.doc, **{SNAPSHOTS: taken},
                                                         **members))


async def copy(db: Database, table_id: int, space: int,
               after: tuple[bytes, bytes] | None) -> tuple[tuple[bytes, bytes] | None, int]:
    """Copy the next chunk of the table's items after `after` (None: from the start)
    that the snapshot holds nothing for: (where the next chunk starts, None at the end;
    the rows read)."""
    engine = db.engine
    if not engine.shared:
        async with engine.transaction() as unit:
            rows = await unit.scan(table_id, after, None, None, CHUNK)
            for hk, rk, size, doc in rows:
                if await unit.get(space, hk, rk) is None:
                    await unit.put(space, hk, rk, size, doc)
    else:
        # Each row in a transaction of its own: the copy then never waits for a writer's
        # preserved row while holding one of its own, so the two cannot deadlock (a
        # chunk in one transaction did, failing transactions as conflicts).
        async with engine.reader() as unit:
            rows = await unit.scan(table_id, after, None, None, CHUNK)
        for hk, rk, size, doc in rows:
            async with engine.transaction() as unit:
                if await unit.get(space, hk, rk) is None:
                    await unit.put(space, hk, rk, size, doc)
    if len(rows) < CHUNK:
        return None, len(rows)
    return (rows[-1][0], rows[-1][1]), len(rows)


async def copy_all(db: Database, table: Table) -> None:
    """Complete every snapshot being taken of `table` now (before its items are dropped)."""
    for space in spaces_of(table):
        after: tuple[bytes, bytes] | None = None
        while True:
            after, _ = await copy(db, table.id, space, after)
            if after is None:
                break
            await asyncio.sleep(0)  # requests run between chunks (SQLite never yields)


async def release(db: Database, region: str, name: str, table_id: int, space: int) -> None:
    """Take the snapshot off its table (if the table still exists): writes stop
    preserving items for it."""
    for attempt in range(5):
        table = await db.catalog.get(region, name)
        if table is None or table.id != table_id or space not in spaces_of(table):
            return
        try:
            await db.catalog.save(table, without(table.doc, space))
            return
        except CatalogChanged:
            if attempt == 4:
                raise  # the job step runs again



def without(doc: dict, space: int) -> dict:
    """A catalog document with the snapshot of that row space taken off its table."""
    taken = {key: at for key, at in doc.get(SNAPSHOTS, {}).items() if key != str(space)}
    out = dict(doc, **{SNAPSHOTS: taken})
    if not taken:
        del out[SNAPSHOTS]
    return out


async def drop_tombstones(db: Database, space: int) -> tuple[int, int]:
    """Remove the tombstones of a released snapshot: (its item count, summed sizes)."""
    after: tuple[bytes, bytes] | None = None
    while True:
        async with db.engine.transaction() as unit:
            rows = await unit.scan(space, after, None, None, CHUNK)
            for hk, rk, _, doc in rows:
                if doc == TOMBSTONE:
                    await unit.delete(space, hk, rk)
        if len(rows) < CHUNK:
            break
        after = (rows[-1][0], rows[-1][1])
        await asyncio.sleep(0)  # requests run between chunks (SQLite never yields)
    async with db.engine.reader() as unit:
        return await unit.table_stats(space)
