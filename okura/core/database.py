"""The Database: what the operations reach core through (by the request context)."""
from __future__ import annotations

from okura.core.catalog import Catalog, Table
from okura.core import features
from okura.core.clock import Clock
from okura.core.consistency.lag import Lag
from okura.core.faults import Faults
from okura.core.index_jobs import IndexJobs
from okura.core.jobs import Runner
from okura.core.metrics import Metrics
from okura.core.scheduler import Scheduler
from okura.core.sealed import Seal, load
from okura.core.spaces import CLOCK
from okura.core.throughput import OFF, Throughput
from okura.core.transfer import bulk, exporter, importer  # noqa: F401 (their job kinds)
from okura.core.transfer.job_records import Transfers
from okura.core.transfer.objects import LocalStore, ObjectStore
# the features, registered as they are imported (core/features.py)
from okura.core import insights  # noqa: F401
from okura.core.replication import applier, copy  # noqa: F401 (and the replica job)
from okura.core.ttl import due  # noqa: F401
from okura.core.vectors import backfill, maintenance  # noqa: F401
from okura.storage.engine import Engine


class Database:
    def __init__(self, engine: Engine, account: str, status_delay: float = 0.0,
                 clock: Clock | None = None, stream_retention: float = 86400.0,
                 s3: ObjectStore | None = None, import_errors: str = "import-errors",
                 throttling: str = OFF):
        self.engine = engine
        self.seal: Seal  # tokens handed to clients are sealed with it (loaded by open)
        self.account = account
        self.status_delay = status_delay
        self.stream_retention = stream_retention  # seconds stream records stay readable
        self.clock = clock or Clock()
        self.metrics = Metrics(self.clock)
        self.catalog = Catalog(engine, self.clock, account)
        self.index_jobs = IndexJobs(self)
        # the one scheduler of background work (core/scheduler.py): the server adds duties
        self.background = Scheduler(self)
        self.jobs = Runner(self)  # background jobs (core/jobs.py): a duty of the server's
        self.catalog.changed = self._changed
        engine.watch_catalog(self._heard)
        # S3 exports and imports: where the objects are, where bad import lines are logged
        self.transfers = Transfers(s3 or LocalStore("s3"), import_errors)
        self.faults = Faults(self.clock, self.metrics)  # injected faults (docs/admin.md)
        # Every registered feature's state in this database (core/features.py)
        self.features: dict[type, features.Feature] = {
            kind: kind(self) for kind in features.KINDS}
        # Capacity budgets (core/throughput.py); `gate` is them while any table may be
        # throttled, None otherwise (the hot paths' one test)
        self.throughput = Throughput(throttling, self.clock, engine.shared)
        self.gate: Throughput | None = None
        self.throttle(throttling)
        # Eventual consistency (core/consistency/): `lag` is it while any table is
        # eventual, None otherwise (the request path's one test)
        self.consistency = Lag()
        self.lag: Lag | None = None

    def consist(self, mode: str | None, table: str | None = None) -> None:
        """Set every table's consistency mode, or one table's by name (`mode` None: it
        follows every table's again)."""
        consistency = self.consistency
        consistency.set_mode(mode, table)
        self.lag = consistency if consistency.active else None

    def throttle(self, mode: str | None, table: str | None = None) -> None:
        """Set the throttling mode of every table, or of one table by name (`mode` None:
        it follows every table's again)."""
        throughput = self.throughput
        if table is None:
            assert mode is not None  # every table has a mode
            throughput.mode = mode
        elif mode is None:
            throughput.overrides.pop(table, None)
        else:
            throughput.overrides[table] = mode
        throughput.modes_changed()
        active = throughput.mode != OFF or any(m != OFF for m in throughput.overrides.values())
        self.gate = throughput if active else None

    def _changed(self, table: Table) -> None:
        """A table document was loaded or saved: its background work may be due, its
        Contributor Insights watched or not, and its throughput budgets changed."""
        self.background.signal("catalog")
        self.index_jobs.notice(table)
        for feature in self.features.values():
            feature.notice(table)
        if self.gate is not None:
            self.gate.notice(table, self.clock.now())

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
