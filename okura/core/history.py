"""Point-in-time history of a table: what RestoreTableToPointInTime and
ExportTableToPointInTime read.

A history is a base snapshot plus a change log, kept in ordinary rows:
- its directory row (HISTORIES row space; hk: region and table name, terminated;
  rk: the table id, 8 bytes) holds its settings and where its rows live (`History`);
- the base (a row space mirroring the table's rows, core.snapshots) holds the table
  as of BaseMicros: taken copy-on-write when point-in-time recovery is enabled, later
  moved forward by `compact`, which applies the oldest log entries to it;
- the log (a row space, hk LOG) holds one row per write since BaseMicros: rk = the
  write's time in microseconds (8 bytes) and 8 bytes unique to the write, doc = the
  item written (its wire JSON, as the table row), or TOMBSTONE + the key's JSON for a
  delete. Its write hook (`_Log`) appends it in the writing transaction, from the same
  bytes the table row stores: one more row in the same statement or transaction.

The state as of a time t is the base with the log's entries up to t applied in
order (`page_at`, a page at a time in key order); the changes of a window [start, end) are the log's entries in it,
folded per item (`changes`). Entries of one item are ordered by their time, which a
write takes after locking the item, so they follow the order of its writes on every
node. Old entries are folded into the base once they fall out of the recovery window
(`upkeep`), so the history holds one copy of the table and the window's changes.

Deleting a table keeps its history (Deleted: the time) for 35 days, as long as the
system backup that reads it, so the deleted table can be restored; disabling
point-in-time recovery drops it.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import math
import secrets
from typing import TYPE_CHECKING, AsyncIterator, NamedTuple

import orjson

from okura.core import jobs, snapshots, write_hooks
from okura.core.catalog import Table
from okura.core.scheduler import holds
from okura.core.spaces import HISTORIES
from okura.storage import keys
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database

LOG = b"l"
TOMBSTONE = snapshots.TOMBSTONE
MICROS = 1_000_000
DAY = 86400
LATEST_LAG = 300.0  # LatestRestorableDateTime "is typically 5 minutes before the current time"
CHUNK = 256  # log entries or base rows per storage call
COMPACT_AFTER = 3600.0  # seconds of log behind the window's start before it is folded
UPKEEP_EVERY = 5.0  # seconds between upkeep rounds
POINT_IN_TIME = "PointInTime"
# A deleted table's history is kept as long as its system backup, which reads it.
DELETED_RETENTION: int = 35 * DAY  # typed: backups.py reads it inside an import cycle
_NODE = secrets.token_bytes(4)  # with a counter, makes a log rk unique across nodes
_count = itertools.count()
log = logging.getLogger("okura.history")


def micros(at: float) -> int:
    return int(round(at * MICROS))


def entry(space: int, now: float, size: int, doc: bytes) -> tuple[int, bytes, bytes, int, bytes]:
    """The log row of one write at `now` (a row for put/put_many): `doc` is the item
    stored, or `deletion(key)`."""
    rk = micros(now).to_bytes(8, "big") + _NODE + (next(_count) & 0xFFFFFFFF).to_bytes(4, "big")
    return space, LOG, rk, size, doc


def deletion(key: dict) -> bytes:
    return TOMBSTONE + orjson.dumps(key)


def log_of(table: Table) -> int | None:
    """The row space of the table's history's log (None: point-in-time recovery is off)."""
    return table.doc[POINT_IN_TIME]["Log"] if POINT_IN_TIME in table.doc else None


class _Log(write_hooks.Hook):
    """Every stored change appends its log entry (it needs not read the item replaced)."""

    name = "history"
    observes_old = False

    def state(self, table: Table) -> int | None:
        return log_of(table)

    async def store(self, space: int, write: write_hooks.ItemWrite) -> None:
        if write.body is not None:
            write.rows.append(entry(space, write.now, write.size, write.body))
        else:
            assert write.old is not None  # a deletion of nothing stores nothing
            write.rows.append(entry(space, write.now, 0, deletion(write.table.key_of(write.old))))


write_hooks.register(_Log())


class NetChange(NamedTuple):
    """One item's net change over a window: its key, its document before the window
    and after it (None: absent), and the time of its last write in the window (µs)."""
    key: dict
    old: bytes | None
    new: bytes | None
    micros: int


class History:
    """A history's directory row, decoded."""

    __slots__ = ("region", "doc")

    def __init__(self, region: str, doc: dict) -> None:
        self.region = region
        self.doc = doc

    @property
    def log(self) -> int:
        return self.doc["Log"]

    @property
    def base(self) -> int:
        return self.doc["Base"]

    @property
    def ready(self) -> bool:
        """Whether the base snapshot is complete (reads wait until it is)."""
        return self.doc["BaseReady"]

    @property
    def deleted(self) -> float | None:
        """When its table was deleted (None: it exists)."""
        return self.doc["Deleted"]

    def window(self, now: float) -> tuple[float, float]:
        """(EarliestRestorableDateTime, LatestRestorableDateTime) at `now`: the last
        RecoveryPeriodInDays since it was enabled, up to five minutes ago (up to its
        deletion for a deleted table), in whole milliseconds."""
        doc = self.doc
        # in whole milliseconds, as replies show them, rounded inwards
        earliest = math.ceil(1000 * max(doc["Since"], doc["BaseMicros"] / MICROS,
                                        now - doc["Period"] * DAY)) / 1000
        latest = doc["Deleted"] if doc["Deleted"] is not None else now - LATEST_LAG
        return earliest, max(earliest, math.floor(1000 * latest) / 1000)

    def locate(self, item: dict) -> tuple[bytes, bytes]:
        """Storage key bytes of an item or key of its table."""
        (hash_name, hash_type), *sort = self.doc["Schema"]
        hk = keys.partition(hash_type, item[hash_name][hash_type])
        if not sort:
            return hk, b""
        (range_name, range_type), = sort
        return hk, keys.sort_key(range_type, item[range_name][range_type])

    def key_of(self, item: dict) -> dict:
        return {name: item[name] for name, _ in self.doc["Schema"]}

    async def _log(self, db: Database, lo: bytes | None, hi: bytes | None
                   ) -> AsyncIterator[list[tuple[bytes, int, bytes]]]:
        """The log's entries with lo <= rk < hi, oldest first, in chunks."""
        while True:
            async with db.engine.reader() as unit:
                rows = await unit.query(self.log, LOG, lo, hi, True, CHUNK)
            if rows:
                yield rows
            if len(rows) < CHUNK:
                return
            lo = rows[-1][0] + b"\x00"
            await asyncio.sleep(0)  # requests run between chunks (SQLite never yields)

    async def _folded(self, db: Database, lo: bytes | None, hi: bytes | None,
                      only: dict | None = None) -> dict[bytes, tuple]:
        """Per item, the last entry with lo <= rk < hi: {row key: (hk, rk, size, doc,
        µs)}; with `only`, just the items `only` holds."""
        last: dict[bytes, tuple] = {}
        async for rows in self._log(db, lo, hi):
            for rk, size, doc in rows:
                item = orjson.loads(doc[1:] if doc[:1] == TOMBSTONE else doc)
                hk, item_rk = self.locate(item)
                at = keys.terminated(hk) + item_rk
                if only is None or at in only:
                    last[at] = (hk, item_rk, size, doc, int.from_bytes(rk[:8], "big"))
        return last

    async def written_until(self, db: Database, at: float) -> dict[bytes, tuple]:
        """Per item written at or before `at` since the base, its last entry: {terminated
        hk + rk: (hk, rk, size, doc, µs)} (what a reader paging the state as of `at` by
        key, as an export does, lays over the base's rows)."""
        return await self._folded(db, None, (micros(at) + 1).to_bytes(8, "big"))

    async def page_at(self, db: Database, at: float, after: tuple[bytes, bytes] | None,
                      limit: int = CHUNK, written: dict[bytes, tuple] | None = None
                      ) -> tuple[list[tuple[bytes, bytes, int, bytes]], tuple[bytes, bytes] | None]:
        """Up to `limit` items of the table as of `at` whose key is after `after` (None:
        from the first), in key order, as stored rows (hk, rk, size, doc), and the key to
        go on from (None: no item is left): a resumable read, one page per call. Each
        reads the log up to `at` again, unless given `written_until(db, at)` (the same
        for every page)."""
        if written is None:
            written = await self.written_until(db, at)
        async with db.engine.reader() as unit:
            base = await unit.scan(self.base, after, None, None, limit)
        lo = None if after is None else keys.terminated(after[0]) + after[1]
        hi = None if len(base) < limit else keys.terminated(base[-1][0]) + base[-1][1]
        rows = {keys.terminated(hk) + rk: (hk, rk, size, doc) for hk, rk, size, doc in base}
        for at_key, (hk, rk, size, doc, _) in written.items():
            if (lo is None or at_key > lo) and (hi is None or at_key <= hi):
                rows[at_key] = (hk, rk, size, doc)
        chosen = [rows[key] for key in sorted(rows)[:limit]]
        reached = (chosen[-1][0], chosen[-1][1]) if len(rows) > limit or hi is not None \
            else None
        return [row for row in chosen if row[3][:1] != TOMBSTONE], reached

    async def changes(self, db: Database, start: float, end: float) -> AsyncIterator[NetChange]:
        """Every item written at a time in [start, end), once, in key order: as it was
        before `start` and as it is after the last of those writes."""
        lo, hi = micros(start).to_bytes(8, "big"), micros(end).to_bytes(8, "big")
        window = await self._folded(db, lo, hi)
        before = await self._folded(db, None, lo, window)
        for at, (hk, rk, _, new, written) in sorted(window.items()):
            if at in before:
                old: bytes | None = before[at][3]
            else:
                async with db.engine.reader() as unit:
                    old = doc_of(await unit.get(self.base, hk, rk))
            key = orjson.loads(new[1:] if new[:1] == TOMBSTONE else new)
            yield NetChange(self.key_of(key), _present(old), _present(new), written)

    async def update(self, db: Database, **members: object) -> None:
        """Set members of the directory row (read again, locked: several jobs write it),
        if the history is still there; a new history is stored whole."""
        hk, rk = _hk(self.region, self.doc["TableName"]), _rk(self.doc["TableId"])
        async with db.engine.transaction() as unit:
            raw = doc_of(await unit.get(HISTORIES, hk, rk, lock=True))
            if raw is not None:
                self.doc = orjson.loads(raw)
            elif members:
                return  # dropped meanwhile
            self.doc.update(members)
            await unit.put(HISTORIES, hk, rk, 0, orjson.dumps(self.doc))


def _present(doc: bytes | None) -> bytes | None:
    return None if doc is None or doc[:1] == TOMBSTONE else doc


def _hk(region: str, name: str) -> bytes:
    return keys.terminated(region.encode()) + keys.terminated(name.encode())


def _rk(table_id: int) -> bytes:
    return table_id.to_bytes(8, "big")


async def of_table(db: Database, table: Table) -> History | None:
    """The history of a table that exists (None: point-in-time recovery is off)."""
    if log_of(table) is None:
        return None
    return await load(db, table.region, table.name, table.id)


async def load(db: Database, region: str, name: str, table_id: int) -> History | None:
    """The history of the table of that name and id (deleted or not), if kept."""
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(HISTORIES, _hk(region, name), _rk(table_id)))
    return None if raw is None else History(region, orjson.loads(raw))


async def of_deleted(db: Database, region: str, name: str) -> History | None:
    """The history of the table of that name deleted last while point-in-time recovery
    was on, if still kept."""
    hk = _hk(region, name)
    async with db.engine.reader() as unit:
        rows = await unit.scan(HISTORIES, None, hk, keys.prefix_end(hk), 1 << 30)
    found = [History(region, orjson.loads(doc)) for _, _, _, doc in rows]
    gone = [history for history in found if history.deleted is not None]
    return max(gone, key=lambda history: history.doc["Deleted"], default=None)


async def every(db: Database) -> list[History]:
    async with db.engine.reader() as unit:
        rows = await unit.scan(HISTORIES, None, None, None, 1 << 30)
    # A region name holds no NUL byte: its terminated form ends at the first 00 00.
    return [History(hk[:hk.index(b"\x00\x00")].decode(), orjson.loads(doc))
            for hk, _, _, doc in rows]


async def enable(db: Database, table: Table, days: int) -> Table:
    """Turn point-in-time recovery on: writes log from now on, and a base snapshot of
    the table as of now is taken in the background. Returns the table as saved."""
    log_space = await db.catalog.new_id()
    # One catalog save starts the base snapshot and the log: every write after it both
    # preserves the item it changes (until the copy ends) and logs its new state.
    base, since, table = await snapshots.start(db, table, **{POINT_IN_TIME: {
        "Log": log_space, "Period": days}})
    history = History(table.region, {
        "TableId": table.id, "TableName": table.name, "TableArn": table.arn,
        "Log": log_space, "Base": base, "BaseMicros": micros(since), "BaseReady": False,
        "Since": since, "Period": days, "Schema": table.schema, "Deleted": None})
    await history.update(db)
    total = (await db.catalog.stats((table.id,)))[table.id][0]
    await jobs.submit(db, "history-base", {"Region": table.region, "TableId": table.id,
                                           "TableName": table.name, "After": None, "Done": 0,
                                           "Total": total})
    return table


async def set_period(db: Database, table: Table, days: int) -> Table:
    history = await of_table(db, table)
    assert history is not None  # enabled: see of_table
    table = await db.catalog.save(table, dict(
        table.doc, **{POINT_IN_TIME: dict(table.doc[POINT_IN_TIME], Period=days)}))
    await history.update(db, Period=days)
    return table


async def disable(db: Database, table: Table) -> Table:
    """Turn point-in-time recovery off and drop the history."""
    history = await of_table(db, table)
    doc = {name: value for name, value in table.doc.items() if name != POINT_IN_TIME}
    if history is not None:  # its base snapshot may still be being taken
        doc = snapshots.without(doc, history.base)
    table = await db.catalog.save(table, doc)
    if history is not None:
        await drop(db, history)
    return table


async def table_deleted(db: Database, table: Table, now: float) -> None:
    """Keep the history of a table being deleted, with the settings a restore takes."""
    history = await of_table(db, table)
    if history is not None:
        await history.update(db, Deleted=now, Table=table.doc)


async def drop(db: Database, history: History) -> None:
    """Drop a history: its directory row now (it is no longer found), its log and base
    by a job, once no restore reads them."""
    async with db.engine.transaction() as unit:
        await unit.delete(HISTORIES, _hk(history.region, history.doc["TableName"]),
                          _rk(history.doc["TableId"]))
    await jobs.submit(db, "history-drop", {"Log": history.log, "Base": history.base})


def reading(history: History) -> dict:
    """What a reader that must outlive the directory row keeps of a history (a restore
    job's state): `History(region, reading(h))` reads the same rows; `drop` leaves them
    until no job holds it."""
    return {"Log": history.log, "Base": history.base, "Schema": history.doc["Schema"]}


@jobs.kind("history-drop")
async def _drop_step(db: Database, state: dict) -> dict | None:
    for job in await jobs.pending(db):
        if job["State"].get("Reading", {}).get("Log") == state["Log"]:
            return state  # a restore still reads it: wait
    async with db.engine.transaction() as unit:
        await unit.drop_rows(state["Log"])
        await unit.drop_rows(state["Base"])
    return None


@jobs.kind("history-base")
async def _base_step(db: Database, state: dict) -> dict | None:
    """Take the base snapshot of a history just enabled, a chunk per step."""
    region, name, table_id = state["Region"], state["TableName"], state["TableId"]
    history = await load(db, region, name, table_id)
    if history is None:
        return None  # disabled meanwhile
    after = state["After"]
    position, count = await snapshots.copy(
        db, table_id, history.base, None if after is None else (
            bytes.fromhex(after[0]), bytes.fromhex(after[1])))
    if position is not None:
        return dict(state, After=[position[0].hex(), position[1].hex()],
                    Done=state["Done"] + count)
    await snapshots.release(db, region, name, table_id, history.base)
    await snapshots.drop_tombstones(db, history.base)
    await history.update(db, BaseReady=True)
    return None


async def compact(db: Database, history: History, until: float) -> None:
    """Fold the log's entries before `until` into the base, a chunk per transaction.
    Each chunk applies the oldest entries and drops them together, so the base plus
    the remaining log is the same history at every commit (readers read the log first,
    then the base: an entry folded meanwhile shows in the base instead)."""
    hi = micros(until).to_bytes(8, "big")
    while True:
        async with db.engine.transaction() as unit:
            rows = await unit.query(history.log, LOG, None, hi, True, CHUNK)
            for rk, size, doc in rows:
                tombstone = doc[:1] == TOMBSTONE
                hk, item_rk = history.locate(orjson.loads(doc[1:] if tombstone else doc))
                if tombstone:
                    await unit.delete(history.base, hk, item_rk)
                else:
                    await unit.put(history.base, hk, item_rk, size, doc)
                await unit.delete(history.log, LOG, rk)
        if len(rows) < CHUNK:
            break
        await asyncio.sleep(0)
    await history.update(db, BaseMicros=max(history.doc["BaseMicros"], micros(until)))


async def upkeep(db: Database) -> None:
    """One round over every history: drop those of deleted tables past their period,
    fold the log that fell out of the window into the base; the "histories" lease is
    taken (shared storage) only when one needs it. A duty of core/scheduler.py, every
    UPKEEP_EVERY seconds."""
    now = db.clock.now()
    due: list[tuple[History, float | None]] = []
    for history in await every(db):
        deleted = history.deleted
        if deleted is not None and deleted < now - DELETED_RETENTION:
            due.append((history, None))
        elif history.ready:
            earliest, _ = history.window(now)
            if earliest - history.doc["BaseMicros"] / MICROS >= COMPACT_AFTER:
                due.append((history, earliest))
    if not due or not await holds(db, "histories", 6 * UPKEEP_EVERY):
        return
    for history, until in due:
        if until is None:
            await drop(db, history)
        else:
            await compact(db, history, until)
