"""The Database: what the operations reach core through (by the request context).

It holds the database itself: its storage, catalog, clock, account, settings, the
scheduler of background work and the secret that seals tokens. Every feature's state
(throughput budgets, metrics, injected faults, jobs, ...) is the feature's own, in its
module, reached through `features` (core/features.py); tests/unit/test_features.py
keeps this list of members fixed.
"""
from __future__ import annotations

from okura.core import features, write_hooks
from okura.core.catalog import Catalog, Table
from okura.core.clock import Clock
from okura.core.scheduler import Scheduler
from okura.core.sealed import Seal, load
from okura.core.spaces import CLOCK
from okura.storage.engine import Engine, Transaction
# the features, registered as they are imported (core/features.py)
from okura.core import faults, index_jobs, insights, jobs, metrics, throughput  # noqa: F401
from okura.core.consistency import lag  # noqa: F401
from okura.core.replication import applier, copy  # noqa: F401 (and the replica job)
from okura.core.transfer import bulk, exporter, importer, job_records  # noqa: F401
from okura.core.ttl import due  # noqa: F401
from okura.core.vectors import backfill, maintenance  # noqa: F401


class Database:
    def __init__(self, engine: Engine, account: str, status_delay: float = 0.0,
                 clock: Clock | None = None, stream_retention: float = 86400.0):
        self.engine = engine
        self.seal: Seal  # tokens handed to clients are sealed with it (loaded by open)
        self.account = account
        self.status_delay = status_delay
        self.stream_retention = stream_retention  # seconds stream records stay readable
        self.clock = clock or Clock()
        self.catalog = Catalog(engine, self.clock, account)
        # the one scheduler of background work (core/scheduler.py): the server adds duties
        self.background = Scheduler(self)
        self.catalog.changed = self._changed
        self.catalog.dropping = self._dropping
        engine.watch_catalog(self._heard)
        self.features = features.made(self)

    def _changed(self, table: Table) -> None:
        """A table document was loaded or saved: its background work may be due, and
        every feature's state may follow it."""
        self.background.signal("catalog")
        for feature in self.features.values():
            feature.notice(table)

    async def _dropping(self, unit: Transaction, table: Table) -> None:
        """The table's items are being dropped in `unit`: no write follows, and each
        feature drops its part of the table."""
        write_hooks.forget(table.id)
        for feature in self.features.values():
            await feature.drop(unit, table)

    def _heard(self, tid: int) -> None:
        """Another process changed a table's document, or the shared clock."""
        if tid == CLOCK:
            self.background.signal("clock")
        else:
            self.catalog.invalidate(tid)

    def status_until(self, now: float) -> float:
        """When a status change made at `now` ends. With no delay it has already ended,
        even if the wall clock then steps back (0 is before every clock reading)."""
        return now + self.status_delay if self.status_delay else 0.0

    async def open(self) -> None:
        await self.engine.open()
        self.seal = await load(self.engine)

    async def close(self) -> None:
        await self.engine.close()
