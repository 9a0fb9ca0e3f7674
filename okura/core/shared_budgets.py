"""Throughput budgets shared by the nodes over one database (PostgreSQL).

The database holds each table and GSI budget: a row of the THROUGHPUT space with its
level at a time, the rate and capacity of the newest table document a node has seen,
and what all nodes have spent of it. Each node spends from a copy of its own with no
database round trip, and every SHARE_EVERY seconds, for each budget it holds, adds what
it spent since to the row (under the row's lock) and takes the row's level as its
copy's. What it spent is charged as its copy charged it, when it was spent: a refill
since that a full bucket would have thrown away (a clock move, say) does not cancel it
out. So a copy misses at most SHARE_EVERY seconds of the other nodes' spending: together
the nodes run at most that far ahead of the budget, a lead the bucket then pays back,
and copies never drift apart (docs/throttling.md measures it). A node that has spent
nothing for IDLE_AFTER seconds (it reported all it spent meanwhile) only refreshes its
copies, once every IDLE_EVERY seconds, from one read of the rows (an idle node over many
tables would otherwise write a row per table ten times a second), so one that starts
spending after such a pause may miss up to IDLE_EVERY seconds of the others' spending,
until its next exchange.
Partition-key budgets stay per node.
"""
from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

import orjson

from okura.core.scheduler import report
from okura.core.spaces import THROUGHPUT
from okura.core.throughput import Throughput
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database
    from okura.core.throughput import Bucket, Budget
    from okura.storage.engine import Transaction

SHARE_EVERY = 0.1  # seconds between a node's exchanges with the database
IDLE_EVERY = 1.0  # seconds between the exchanges of a node that spends nothing
IDLE_AFTER = 5.0  # seconds without spending after which a node is idle
_NONE = (0.0, 0.0, 0.0, None)  # what a node had reported of a budget before its first exchange


class Sharing:
    def __init__(self, db: Database) -> None:
        self.db = db
        # budget_key -> at its last exchange: what this node had spent, what all nodes had,
        # and the row's level and its time (which its copy took)
        self._reported: dict[str, tuple[float, float, float, float | None]] = {}
        self._failing = False
        self._next_idle = 0.0  # time.monotonic() of an idle node's next exchange
        self._spent = 0.0  # the node's spending (Throughput.spent) when last looked at
        self._active_until = 0.0  # time.monotonic() until which it exchanges every SHARE_EVERY

    async def work(self) -> None:
        """The duty's round (core/scheduler.py: every SHARE_EVERY seconds while anything
        is throttled): one exchange; a run of failures is logged once, not ten times a
        second."""
        try:
            await self.exchange()
            self._failing = False
        except asyncio.CancelledError:
            raise
        except Exception as error:
            if not self._failing:
                report("sharing throughput budgets", error)
            self._failing = True

    def pending(self) -> bool:
        """The duty's cheap test: this node spent something in the last IDLE_AFTER
        seconds, or an idle node's exchange is due."""
        throughput = self.db.features[Throughput]
        if not throughput.on:
            return False
        clock = time.monotonic()
        if throughput.spent != self._spent:
            self._spent = throughput.spent
            self._active_until = clock + IDLE_AFTER
        return clock < self._active_until or clock >= self._next_idle

    async def exchange(self) -> None:
        """Add what this node spent of each budget it holds to the database's, and take
        the database's level as this node's."""
        db = self.db
        clock = time.monotonic()
        self._next_idle = clock + IDLE_EVERY
        held = db.features[Throughput].budgets()
        if not held:
            return
        now = db.clock.now()
        if clock >= self._active_until:
            await self._refresh(held, now)
            return
        # what each copy had spent, and its level, before any await lets requests on
        spent = [(budget.spent, budget.bucket.level(now)) for _, _, budget in held]
        rows = []
        async with db.engine.transaction() as unit:
            for (key, version, budget), (mine, level) in zip(held, spent):
                rows.append(await self._add(unit, key, version, budget, mine, level, now))
        for (key, _, budget), (mine, _), row in zip(held, spent, rows):
            self._adopt(key, budget, mine, row, now)

    async def _refresh(self, held: list[tuple[str, int, Budget]], now: float) -> None:
        """An idle node's exchange: it has nothing to add (it reported all it spent
        while it spent), so each copy it has reported takes its row's level, every row
        in one read."""
        spent = [budget.spent for _, _, budget in held]
        async with self.db.engine.reader() as unit:
            rows = {hk.decode(): orjson.loads(raw)
                    for hk, _, _, raw in await unit.scan(THROUGHPUT, None, None, None, 1 << 30)}
        for (key, _, budget), mine in zip(held, spent):
            row = rows.get(key)
            if row is not None and key in self._reported:
                self._adopt(key, budget, mine, row, now)

    def _adopt(self, key: str, budget: Budget, mine: float, row: dict, now: float) -> None:
        """The copy takes the row's level, less what this node spent since `mine`."""
        last = self._reported.get(key)
        total = row["Spent"]
        self._reported[key] = (mine, total, row["Level"], row["At"])
        bucket = budget.bucket
        bucket.dry = row["At"] - (row["Level"] - (budget.spent - mine)) / bucket.rate
        if budget.on_demand and last is not None:  # the others' traffic raises
            budget.count(total - last[1] - (mine - last[0]), now)  # on-demand peaks too

    @staticmethod
    def _charge(last: tuple[float, float, float, float | None], bucket: Bucket,
                spent: float, level: float, now: float) -> float:
        """What this node's `spent` units since its last exchange (`last`, as reported)
        took from its copy (`level` at `now`): the units, less what a full bucket would
        have thrown away of the refill since (a clock move, say), as the copy charged
        each when it was spent."""
        _, _, base, since = last
        if since is None:  # its first exchange: its copy did not start from the row
            return spent
        # the copy's level, had this node spent nothing since
        unspent = min(base + (now - since) * bucket.rate, bucket.rate * bucket.window)
        return min(max(unspent - level, 0.0), spent)

    async def _add(self, unit: Transaction, key: str, version: int, budget: Budget,
                   mine: float, level: float, now: float) -> dict:
        """The budget's row with what this node spent since its last exchange added
        (`mine`: spent ever, and `level`: its copy's, at `now`)."""
        hk = key.encode()
        bucket = budget.bucket
        raw = doc_of(await unit.get(THROUGHPUT, hk, b"", lock=True))
        if raw is None:  # the first node to share it: its copy is the budget
            row = {"Level": level, "At": now, "Spent": mine, "Version": version,
                   "Rate": bucket.rate, "Capacity": bucket.rate * bucket.window}
        else:
            row = orjson.loads(raw)
            if version > row["Version"]:  # the table changed: the newest rate counts
                row.update(Version=version, Rate=bucket.rate,
                           Capacity=bucket.rate * bucket.window)
            # refilled from the row's time on, by the clock that is furthest on: a node
            # whose clock lags (a move not yet followed) adds no refill
            at = max(now, row["At"])
            refilled = row["Level"] + (at - row["At"]) * row["Rate"]
            last = self._reported.get(key, _NONE)
            spent = mine - last[0]
            row.update(Level=min(refilled, row["Capacity"]) - self._charge(
                last, bucket, spent, level, now), At=at, Spent=row["Spent"] + spent)
        await unit.put(THROUGHPUT, hk, b"", 0, orjson.dumps(row))
        return row
