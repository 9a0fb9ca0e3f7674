"""The lag itself: per table, the items whose latest write is not yet visible to
eventually consistent readers, each with the versions those readers see until then.

A write noted at clock time t becomes visible at t + a drawn delay, and never before an
earlier write of the same item (so readers see an item's versions in order, never one
skipped back). Only versions not yet visible are kept: each is dropped once the clock
passes its time (a heap of those times, trimmed at every note), so memory holds at most
the writes of the last maximum delay. This is per node, in memory: storage has the
latest, and a restart makes everything visible.
"""
from __future__ import annotations

import heapq
from enum import Enum
from typing import TYPE_CHECKING, Iterator

import orjson

from okura.core import features
from okura.core.consistency.delays import Delays

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database
    from okura.storage.engine import Transaction

STRONG, EVENTUAL = "strong", "eventual"
MODES = (STRONG, EVENTUAL)


class Latest(Enum):
    """What `seen` returns when a reader sees what storage holds."""
    LATEST = 0


LATEST = Latest.LATEST

Key = tuple[bytes, bytes]
# One write not yet visible: (visible at, written at, the item before it as stored JSON or
# None for absent, the names of the table's indexes whose entries it changed)
Version = tuple[float, float, "bytes | None", tuple[str, ...]]


@features.register
class Lag(features.Feature):
    """The consistency feature (db.features[Lag]); the server sets its mode and delays."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.mode = STRONG
        self.overrides: dict[str, str] = {}  # table name -> its own mode
        # whether any table may lag: the request path's one test, after one look-up
        self.on = False
        self.delays = Delays(0, 2.0)
        self.tables: dict[int, Table] = {}  # the document last written through, by id
        self.pending: dict[int, dict[Key, list[Version]]] = {}
        self._due: list[tuple[float, int, bytes, bytes]] = []  # (visible at, tid, hk, rk)

    async def drop(self, unit: Transaction, table: Table) -> None:
        """A deleted table's versions go (their heap entries are skipped when due)."""
        self.pending.pop(table.id, None)
        self.tables.pop(table.id, None)

    def eventual(self, table: Table) -> bool:
        return self.overrides.get(table.name, self.mode) == EVENTUAL

    def set_mode(self, mode: str | None, table: str | None = None) -> None:
        """Every table's mode, or one table's (`mode` None: it follows every table's
        again). Tables no longer eventual show their latest at once."""
        if table is None:
            assert mode is not None
            self.mode = mode
        elif mode is None:
            self.overrides.pop(table, None)
        else:
            self.overrides[table] = mode
        self.on = self.mode == EVENTUAL or EVENTUAL in self.overrides.values()
        for tid in [tid for tid, t in self.tables.items() if not self.eventual(t)]:
            self.pending.pop(tid, None)

    def note(self, table: Table, hk: bytes, rk: bytes, prior: dict | None,
             new: dict | None, now: float) -> None:
        """The latest write of this item (it replaced `prior`) becomes visible after a
        drawn delay; until then eventually consistent readers see `prior`."""
        tid = table.id
        self.tables[tid] = table
        chains = self.pending.get(tid)
        if chains is None:
            chains = self.pending[tid] = {}
        chain = chains.get((hk, rk))
        visible = now + self.delays.draw()
        if chain is None:
            chain = chains[hk, rk] = []
        elif chain[-1][0] > visible:
            visible = chain[-1][0]  # never before the item's earlier write
        touched = () if not table.indexes else tuple(
            index.name for index in table.indexes
            if (prior is not None and index.locate(prior, hk, rk) is not None)
            or (new is not None and index.locate(new, hk, rk) is not None))
        chain.append((visible, now, None if prior is None else orjson.dumps(prior), touched))
        due = self._due
        heapq.heappush(due, (visible, tid, hk, rk))
        if due[0][0] <= now:
            self._trim(now)

    def seen(self, tid: int, hk: bytes, rk: bytes, now: float) -> bytes | None | Latest:
        """The item as an eventually consistent reader sees it now: its stored JSON, None
        for absent, or LATEST (what storage holds)."""
        chains = self.pending.get(tid)
        if chains:
            chain = chains.get((hk, rk))
            if chain is not None:
                for visible, _, prior, _ in chain:
                    if visible > now:
                        return prior
        return LATEST

    def hidden(self, tid: int, now: float) -> dict[Key, bytes | None]:
        """Every item of the table whose latest write is not yet visible, with what
        eventually consistent readers see of it instead."""
        out: dict[Key, bytes | None] = {}
        for key, chain in self.pending.get(tid, {}).items():
            for visible, _, prior, _ in chain:
                if visible > now:
                    out[key] = prior
                    break
        return out

    async def settle(self) -> int:
        """Make every write visible now; the number that were not yet."""
        count = sum(len(chain) for chains in self.pending.values() for chain in chains.values())
        self.pending.clear()
        self._due.clear()
        return count

    def report(self, now: float) -> Iterator[tuple[Table, str | None, int, float]]:
        """(table, index name or None, writes not yet visible, age of the oldest) per
        table and index with some (metrics and the console)."""
        for tid, chains in self.pending.items():
            counts: dict[str | None, list] = {}
            for chain in chains.values():
                for visible, written, _, touched in chain:
                    if visible > now:
                        for name in (None, *touched):
                            seen = counts.setdefault(name, [0, written])
                            seen[0] += 1
                            seen[1] = min(seen[1], written)
            for name, (count, oldest) in counts.items():
                yield self.tables[tid], name, count, now - oldest

    def _trim(self, now: float) -> None:
        """Drop the versions visible by now (all of an item's: then the item too)."""
        due = self._due
        while due and due[0][0] <= now:
            _, tid, hk, rk = heapq.heappop(due)
            chains = self.pending.get(tid)
            chain = None if chains is None else chains.get((hk, rk))
            if chain is None:
                continue
            while chain and chain[0][0] <= now:
                del chain[0]
            if not chain:
                del chains[hk, rk]  # type: ignore[union-attr]
                if not chains:
                    del self.pending[tid]
