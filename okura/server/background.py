"""The background work of a server: the duties the one scheduler runs
(core/scheduler.py; docs/design.md, Background work)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from okura.core import history
from okura.core.clock import REFRESH, REFRESH_HEARING
from okura.core.jobs import Runner
from okura.core.metrics import Metrics
from okura.core.replication.applier import Replicas
from okura.core.scheduler import Duty
from okura.core.shared_budgets import SHARE_EVERY, Sharing
from okura.core.ttl.sweeper import TRIM_EVERY, Sweeper, trim_streams

if TYPE_CHECKING:
    from okura.config import Settings
    from okura.server.app import App


def duties(app: App, settings: Settings) -> list[Duty]:
    """All the background work of a server, run by the one scheduler (core/scheduler.py).
    Alone on its storage a node hears of every change it must act on (a job submitted, a
    table changed, a mapping made, an item that will expire) and idles until then; over
    shared storage, what another node changed is found at the duty's interval."""
    db = app.db
    shared = db.engine.shared

    async def roll_metrics() -> None:  # end each metrics period on time
        db.features[Metrics].roll()

    sweeper = Sweeper(db, settings.ttl_interval)
    replicas = db.features[Replicas]
    replicas.default_delay = settings.replication_delay
    duties = [
        Duty("ttl", sweeper.work, settings.ttl_interval, pending=sweeper.pending),
        Duty("stream-trim", lambda: trim_streams(db), TRIM_EVERY),
        Duty("metrics", roll_metrics, 1.0),
        Duty("jobs", db.features[Runner].work, 5.0 if shared else None, wakes_on=("jobs",)),
        Duty("histories", lambda: history.upkeep(db), history.UPKEEP_EVERY),
        Duty("replication", replicas.work, 1.0 if shared else None,
             pending=replicas.pending, wakes_on=("replication", "clock")),
        Duty("triggers", app.triggers.work, settings.trigger_interval,
             pending=app.triggers.pending)]
    if shared:
        sharing = Sharing(db)
        duties += [Duty("clock", db.clock.refresh,
                        REFRESH_HEARING if db.engine.hears_others else REFRESH,
                        wakes_on=("clock",)),
                   Duty("throughput", sharing.work, SHARE_EVERY, pending=sharing.pending)]
    if settings.idle_timeout:
        connections = app.connections
        duties.append(Duty("connections", connections.sweep, settings.idle_timeout / 2,
                           pending=lambda: bool(connections.open)))
    return duties
