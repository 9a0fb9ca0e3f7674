"""Throughput budgets shared by the nodes over one database (PostgreSQL).

The database holds each table and GSI budget: a row of the THROUGHPUT space with its
level at a time, the rate and capacity of the newest table document a node has seen,
and what all nodes have spent of it. Each node spends from a copy of its own with no
database round trip, and every SHARE_EVERY seconds, for each budget it holds, adds what
it spent since to the row (under the row's lock) and takes the row's level as its
copy's. So a copy misses at most SHARE_EVERY seconds of the other nodes' spending:
together the nodes run at most that far ahead of the budget, a lead the bucket then
pays back, and copies never drift apart (docs/throttling.md measures it).
Partition-key budgets stay per node.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import orjson

from okura.core.spaces import THROUGHPUT
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database
    from okura.core.throughput import Budget
    from okura.storage.engine import Transaction

SHARE_EVERY = 0.1  # seconds between a node's exchanges with the database
log = logging.getLogger("okura.throughput")


class Sharing:
    def __init__(self, db: Database) -> None:
        self.db = db
        # budget_key -> (what this node had spent, what all nodes had) at its last exchange
        self._reported: dict[str, tuple[float, float]] = {}
        self._failing = False

    async def run(self) -> None:
        """Exchange every SHARE_EVERY seconds until cancelled."""
        while True:
            await asyncio.sleep(SHARE_EVERY)
            if self.db.gate is None:  # nothing is throttled: nothing to share
                continue
            try:
                await self.exchange()
                self._failing = False
            except asyncio.CancelledError:
                raise
            except Exception:
                if not self._failing:  # once per run of failures, not ten times a second
                    log.exception("sharing throughput budgets failed; retrying")
                self._failing = True

    async def exchange(self) -> None:
        """Add what this node spent of each budget it holds to the database's, and take
        the database's level as this node's."""
        db = self.db
        held = db.throughput.budgets()
        if not held:
            return
        now = db.clock.now()
        # what each copy had spent, and its level, before any await lets requests on
        spent = [(budget.spent, budget.bucket.level(now)) for _, _, budget in held]
        rows = []
        async with db.engine.transaction() as unit:
            for (key, version, budget), (mine, level) in zip(held, spent):
                rows.append(await self._add(unit, key, version, budget, mine, level, now))
        for (key, _, budget), (mine, _), row in zip(held, spent, rows):
            last = self._reported.get(key)
            total = row["Spent"]
            self._reported[key] = (mine, total)
            # the copy: the database's level, less what this node spent while it was asked
            bucket = budget.bucket
            bucket.dry = row["At"] - (row["Level"] - (budget.spent - mine)) / bucket.rate
            if budget.on_demand and last is not None:  # the others' traffic raises
                budget.count(total - last[1] - (mine - last[0]), now)  # on-demand peaks too

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
            before = self._reported.get(key, (0.0, 0.0))[0]
            row.update(Level=min(refilled, row["Capacity"]) - (mine - before), At=at,
                       Spent=row["Spent"] + mine - before)
        await unit.put(THROUGHPUT, hk, b"", 0, orjson.dumps(row))
        return row
