"""Applying the replication log: each logged write reaches the other replicas.

A duty of the scheduler (server/background.py), woken by the writes that log
(the hook's "replication" signal). A round walks the log pair by pair (a source table
and a target region: log.pair) and applies up to CHUNK writes of each, oldest first.
Each write is applied through the one write path (items.write_all: index entries,
stream, TTL index follow as for any write) as a change whose `origin` is its stamp,
and its log row is deleted in the same transaction; a write superseded by a later
one of the same item (last writer wins: log.Superseded) rolls back and only its row
goes. A round that dies half-way (kill -9) leaves the rows not yet deleted, and
applying one of those again finds its stamp already held: nothing changes twice.

On shared storage one node at a time applies each pair's writes: the holder of the
lease "replication/<hk hex>".
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import orjson

from okura.core import features, items
from okura.core.context import Context
from okura.core.replication import log
from okura.core.replication.group import others
from okura.core.scheduler import holds
from okura.core.spaces import REPLICATION, stamps_of
from okura.errors import DynamoError
from okura.storage.engine import Conflict, Transaction

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database

CHUNK = 256  # writes of one pair applied per round
BATCH = 64  # writes applied in one storage transaction
RETRY = 0.05  # seconds before writes that met a transaction of their item are tried again
LEASE_TIME = 10.0
PERIOD = 60.0  # seconds of the clock per ReplicationLatency period


class Applied(items.Change):
    """A write another replica made, applied here."""

    __slots__ = ("origin",)


@features.register
class Replicas(features.Feature):
    """This node's part in replication: what it measured of it (ReplicationLatency per
    table, source and receiving region: a CloudWatch statistic set per period) and
    whether it knows of writes to apply (`waiting`)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.waiting = True  # the log may hold rows (at start: another run's)
        self.heard = 0  # the "replication" signals (writes that logged) seen so far
        self.applied = 0  # writes applied here since start
        # failover drills (docs/global-tables.md): regions no write reaches until resumed,
        # and how long writes wait before they are applied (every table's, some tables')
        self.paused: set[str] = set()
        self.default_delay = 0.0
        self.delays: dict[str, float] = {}
        self.running = asyncio.Lock()  # one round at a time (the duty's, or a settle's)
        self.started = db.clock.now()
        self.current: dict[tuple[str, str, str], list[float]] = {}
        self.previous: dict[tuple[str, str, str], list[float]] = {}

    async def drop(self, unit: Transaction, table: Table) -> None:
        """Its write stamps as a replica go with its items."""
        await unit.drop_rows(stamps_of(table.id))

    def measured(self, name: str, source: str, target: str, millis: float) -> None:
        now = self.db.clock.now()
        if now - self.started >= PERIOD:
            self.previous, self.current, self.started = self.current, {}, now
        stat = self.current.get((name, source, target))
        if stat is None:
            self.current[name, source, target] = [1, millis, millis, millis]
        else:
            stat[0] += 1
            stat[1] += millis
            stat[2] = min(stat[2], millis)
            stat[3] = max(stat[3], millis)

    def latencies(self) -> dict[tuple[str, str, str], list[float]]:
        """ReplicationLatency's statistic sets: the current period's where it has one."""
        return {**self.previous, **self.current}

    def pending(self) -> bool:
        """Whether a round may find writes to apply: more were left, this node logged
        some since, or other nodes may have (shared storage)."""
        heard = self.db.background.count("replication")
        if heard != self.heard:
            self.heard = heard
            return True
        return self.waiting or self.db.engine.shared

    def delay(self, name: str) -> float:
        """Seconds of the clock each write of the table `name` waits before it is applied."""
        return self.delays.get(name, self.default_delay)

    async def work(self) -> float | None:
        """The duty's round: up to CHUNK writes of each pair that are due; at once again
        while more are due, when the next delayed write is due, or when woken. Writes
        into a paused region wait for its resumption."""
        async with self.running:
            return await self._round()

    async def _round(self) -> float | None:
        self.waiting = False
        more = False
        due: float | None = None
        after: tuple[bytes, bytes] | None = None
        while True:
            async with self.db.engine.reader() as unit:
                first = await unit.scan(REPLICATION, after, None, None, 1)
            if not first:
                break
            hk = first[0][0]
            after = (hk, b"\xff" * 64)  # past every row of this pair
            region, name = log.split(hk)
            if region in self.paused:
                continue
            if not await holds(self.db, "replication/" + hk.hex(), LEASE_TIME):
                continue
            left, wait = await self._pair(hk, region, name, self.delay(name))
            more = more or left
            if wait is not None:
                due = wait if due is None else min(due, wait)
        self.waiting = more or due is not None
        return 0 if more else due

    async def settle(self) -> int:
        """Apply every write that is due (POST /okura/settle): all but those into paused
        regions and those their delay holds back; how many."""
        before = self.applied
        while True:
            wait = await self.work()
            if wait != 0 and wait != RETRY:
                return self.applied - before
            await asyncio.sleep(wait)

    async def _pair(self, hk: bytes, region: str, name: str,
                    delay: float) -> tuple[bool, float | None]:
        """Apply the oldest due writes of one pair: whether more are due, and in how many
        seconds the first delayed one is (None: none is)."""
        db = self.db
        async with db.engine.reader() as unit:
            rows = await unit.query(REPLICATION, hk, None, None, True, CHUNK)
        target = await db.catalog.get(region, name)
        ctx = Context(db, "Replication", region)
        now = db.clock.now()
        due: list[Logged] = []
        wait = None
        for rk, _, doc in rows:
            entry = orjson.loads(doc)
            stamp = tuple(entry["Stamp"])
            if target is None or stamp[1] not in others(target) or \
                    stamp[0] < target.doc["CreationDateTime"] * 1_000_000:
                # the replica is gone (or is another table of its name made since)
                await _drop(db, hk, rk)
                continue
            if stamp[0] / 1_000_000 + delay > now:
                wait = stamp[0] / 1_000_000 + delay - now
                break
            due.append(Logged(entry, stamp, (hk, rk)))
        if target is not None:
            for i, batch in enumerate(batches(target, due)):
                try:
                    await apply(ctx, target, batch)
                except (Conflict, DynamoError):  # met a transaction of the item: later
                    due = [logged for later in batches(target, due)[:i] for logged in later]
                    wait = RETRY
                    break
        now = db.clock.now()
        for logged in due:
            self.measured(name, logged.stamp[1], region,
                          max(0.0, now * 1000 - logged.stamp[0] / 1000))
        self.applied += len(due)
        return wait is None and len(rows) == CHUNK, wait


class Logged:
    """One write of the log: its entry (log.py), its stamp, its log row (None: a copy)."""

    __slots__ = ("entry", "stamp", "row")

    def __init__(self, entry: dict, stamp: tuple, row: tuple[bytes, bytes] | None) -> None:
        self.entry = entry
        self.stamp = stamp
        self.row = row


def batches(target: Table, writes: list[Logged]) -> list[list[Logged]]:
    """The writes in order, in runs of distinct items (one storage transaction each)."""
    batches: list[list[Logged]] = []
    seen: set[tuple[bytes, bytes]] = set()
    for logged in writes:
        at = target.locate(logged.entry["Key"])
        if not batches or at in seen or len(batches[-1]) == BATCH:
            batches.append([])
            seen = set()
        seen.add(at)
        batches[-1].append(logged)
    return batches


async def _drop(db: Database, hk: bytes, rk: bytes) -> None:
    async with db.engine.transaction() as unit:
        await unit.delete(REPLICATION, hk, rk)


async def apply(ctx: Context, target: Table, writes: list[Logged]) -> None:
    """Apply other replicas' writes of distinct items to `target` in one storage
    transaction, deleting their log rows with them; if a later write of one of the
    items is there already, each on its own, and the superseded ones only go."""
    try:
        await _together(ctx, target, writes)
        return
    except log.Superseded:
        if len(writes) == 1:
            if writes[0].row is not None:
                await _drop(ctx.db, *writes[0].row)
            return
    for logged in writes:
        await apply(ctx, target, [logged])


def _becomes(new: dict | None) -> items.Decide:
    """A decision that makes the item `new` (None: deletes it), whatever is there."""
    return lambda old: new


async def _together(ctx: Context, target: Table, writes: list[Logged]) -> None:
    changes: list[items.Change] = []
    for logged in writes:
        change = Applied(target, logged.entry["Key"], _becomes(logged.entry["New"]),
                         by_service=logged.entry["Service"])
        change.origin = logged.stamp
        changes.append(change)

    async def settle(unit, written: list[items.Written]) -> None:
        for logged, done in zip(writes, written):
            if done.old is None and logged.entry["New"] is None:  # nothing here to delete
                await log.tombstone(unit, target.id, *target.locate(logged.entry["Key"]),
                                    logged.stamp)
            if logged.row is not None:
                await unit.delete(REPLICATION, *logged.row)

    await items.write_all(ctx, changes, before_commit=settle, admit=False)
