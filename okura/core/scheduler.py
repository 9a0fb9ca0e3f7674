"""The one scheduler of background work: every duty okura does off the request path
(TTL sweeps, jobs, history upkeep, triggers, metric periods, ...) is a `Duty` it runs.

A duty says what it does (`work`: one bounded round), how often (`every` seconds, None:
only when woken), under which lease when several nodes share storage (`lease`, taken
or renewed before each round that has work, never otherwise: core/leases.py), a cheap
test of whether there is work (`pending`: no I/O; a round runs only when it says yes)
and the events that wake it at once (`wakes_on`: names core signals with
`Scheduler.signal`, e.g. "jobs" when a job is submitted, "catalog" when a table's
document changes). A round returns when it wants to run again: 0 for at once (more
work waits; requests run first), a number of seconds, or None for its interval.

Every round is guarded: whatever a duty raises is logged by `report` (okura.last_resort,
which cannot fail itself), and the duty runs again at its next turn; nothing a duty does
stops another or the server. Each duty runs as a task of its own, so a slow round (a function a trigger
calls) holds up no other duty.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Awaitable, Callable, Iterable

from okura.core import leases
from okura.last_resort import log_unexpected

if TYPE_CHECKING:
    from okura.core.database import Database

log = logging.getLogger("okura.background")


def _always() -> bool:
    return True


class Duty:
    def __init__(self, name: str, work: Callable[[], Awaitable[float | None]],
                 every: float | None, lease: str | None = None, lease_time: float = 30.0,
                 pending: Callable[[], bool] = _always, wakes_on: Iterable[str] = ()) -> None:
        self.name = name
        self.work = work
        self.every = every
        self.lease = lease
        self.lease_time = lease_time  # seconds of the clock a lease lasts unrenewed
        self.pending = pending
        self.wakes_on = tuple(wakes_on)
        self.woken = asyncio.Event()
        self.rounds = 0  # rounds run (tests and benchmarks count them)

    def wake(self) -> None:
        self.woken.set()


def report(what: str, error: BaseException) -> None:
    """Log a duty's failure (through okura.last_resort: this never raises, whatever the
    exception does when formatted)."""
    log_unexpected(log, "%s failed; it runs again", what, error=error)


async def holds(db: Database, lease: str, seconds: float) -> bool:
    """Take or renew `lease` for this node for `seconds` of the clock; whether it holds
    it. A node alone on its storage (SQLite, memory) needs none."""
    if not db.engine.shared:
        return True
    now = db.clock.now()
    return await leases.acquire(db, lease, leases.NODE, now, now + seconds)


class Scheduler:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.duties: dict[str, tuple[Duty, asyncio.Task]] = {}
        self._listeners: dict[str, list[Duty]] = {}
        self._counts: dict[str, int] = {}

    def add(self, duty: Duty) -> Duty:
        """Run `duty` from now on (a duty of the same name stops first)."""
        self.remove(duty.name)
        self.duties[duty.name] = (duty, asyncio.ensure_future(self._drive(duty)))
        for event in duty.wakes_on:
            self._listeners.setdefault(event, []).append(duty)
        return duty

    def remove(self, name: str) -> None:
        found = self.duties.pop(name, None)
        if found is None:
            return
        duty, task = found
        task.cancel()
        for event in duty.wakes_on:
            self._listeners[event].remove(duty)

    def signal(self, event: str) -> None:
        """Something happened that some duties wait for: wake them (and count it, for
        the cheap tests of duties that act on it at their next turn: `count`)."""
        self._counts[event] = self._counts.get(event, 0) + 1
        for duty in self._listeners.get(event, ()):
            duty.woken.set()

    def count(self, event: str) -> int:
        """How many times `event` was signalled."""
        return self._counts.get(event, 0)

    def close(self) -> None:
        for name in list(self.duties):
            self.remove(name)

    async def _drive(self, duty: Duty) -> None:
        while True:
            duty.woken.clear()  # a wake during the round below is kept for after it
            wait = await self._round(duty)
            if wait == 0:
                await asyncio.sleep(0)  # requests waiting run first
                continue
            if wait is None:
                wait = duty.every
            try:
                await asyncio.wait_for(duty.woken.wait(), wait)
            except asyncio.TimeoutError:
                pass

    async def _round(self, duty: Duty) -> float | None:
        try:
            if not duty.pending():
                return None
            if duty.lease is not None and not await holds(self.db, duty.lease,
                                                          duty.lease_time):
                return None  # another node does it
            duty.rounds += 1
            return await duty.work()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            report(f"background duty {duty.name}", error)
            return None
