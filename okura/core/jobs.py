"""Background jobs: long work (a backup's copy, a restore, a history's base snapshot,
exports and imports, index backfills and drops, a TTL table's expiry index) that runs
in steps, off the request path, under a lease, and survives a restart.

A job is one row in the JOBS row space (rk: its id), holding its kind and its state
(a JSON object). A kind is a step function registered with `kind`: it takes the
database and the state, does a bounded piece of the work (one storage transaction or
a few) and returns the state to resume from, or None when the job is finished (its
row is then removed). The state is saved after every step, so a job resumes where
it stopped after a restart or on another node. Every node runs a `Runner` (a duty of
core/scheduler.py, woken when a job is submitted); on shared storage the node
holding the lease "job/<id>" runs that job's steps (renewed with each step), the
others leave it alone until the lease runs out (its holder died; moving the clock
forward also ends it). A job recorded again under its id while a step runs (the same
work asked anew) keeps the new record: that step's result is dropped. A step must tolerate being run again from the state saved
before it (its holder may have died after doing the work, before saving). A step that
waits for something else (another job, a snapshot) returns the very state object it
was given: nothing is saved, and the runner looks again POLL seconds later instead of
spinning.

Progress: a state may hold "Done" and "Total" (units of the kind's choosing); the
runner logs them every LOG_EVERY seconds while a job runs.
"""
from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING, Awaitable, Callable

import orjson

from okura.core import features
from okura.core.scheduler import holds
from okura.last_resort import log_unexpected
from okura.core.spaces import JOBS
from okura.storage.engine import Conflict, doc_of

if TYPE_CHECKING:
    from okura.core.database import Database
    from okura.storage.engine import Transaction

Step = Callable[["Database", dict], Awaitable["dict | None"]]
KINDS: dict[str, Step] = {}
POLL = 0.2  # seconds between looks at jobs that wait (for a snapshot, another job)
LEASE_TIME = 10.0  # seconds a node holds a job without a step
LOG_EVERY = 5.0  # seconds between progress lines of a running job
_HK = b""
log = logging.getLogger("okura.jobs")


def kind(name: str) -> Callable[[Step], Step]:
    """Register the step function of a kind of job (at import of its module)."""
    def register(step: Step) -> Step:
        KINDS[name] = step
        return step
    return register


async def submit(db: Database, kind_name: str, state: dict, job_id: str | None = None) -> str:
    """Record a new job (committed when this returns) and wake this node's runner; its id."""
    job_id = job_id or uuid.uuid4().hex
    async with db.engine.transaction() as unit:
        await record(unit, db, kind_name, state, job_id)
    wake(db)
    return job_id


def wake(db: Database) -> None:
    """A job was submitted here: this node's runner looks now."""
    db.background.signal("jobs")


async def record(unit: Transaction, db: Database, kind_name: str, state: dict,
                 job_id: str) -> None:
    """Record a job in the caller's transaction (which wakes the runner once committed);
    a job of the same id starts again from `state`."""
    await unit.put(JOBS, _HK, job_id.encode(), 0, orjson.dumps(
        {"Id": job_id, "Kind": kind_name, "State": state, "Created": db.clock.now()}))


async def pending(db: Database) -> list[dict]:
    """Every job not finished yet ({"Id", "Kind", "State", "Created"}), oldest id first."""
    async with db.engine.reader() as unit:
        rows = await unit.query(JOBS, _HK, None, None, True, 1 << 30)
    return [orjson.loads(doc) for _, _, doc in rows]


@features.register
class Runner(features.Feature):
    """Runs the jobs of every node's database whose lease this node holds: a duty of
    the scheduler (core/scheduler.py), woken by the "jobs" signal of `submit`."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self._logged: dict[str, float] = {}
        self.waiting = False  # whether the last round left jobs that wait for something

    async def work(self) -> float | None:
        """The duty's round: a step of each job; at once again while steps run, every
        POLL seconds while jobs wait, and otherwise when woken (or at the duty's interval:
        on shared storage, another node's jobs whose holder died)."""
        if await self.round():
            return 0
        return POLL if self.waiting else None

    async def round(self) -> bool:
        """One step of each job whose lease this node holds or takes; whether any ran."""
        ran = False
        found = await pending(self.db)
        self.waiting = bool(found)
        for job in found:
            if job["Kind"] not in KINDS or not await holds(self.db, f"job/{job['Id']}",
                                                           LEASE_TIME):
                continue
            ran = await self._step(job) or ran
        return ran

    async def _step(self, job: dict) -> bool:
        """Run one step of the job; whether it did some work."""
        job_id = job["Id"]
        given = job["State"]
        try:
            state = await KINDS[job["Kind"]](self.db, given)
        except Conflict:
            return True  # lost a race with a request: the same step runs again
        except Exception:
            log_unexpected(log, "job %s (%s) failed a step; it runs again", job_id, job["Kind"])
            return False
        if state is given:
            return False  # waiting: it looks again at the next poll
        async with self.db.engine.transaction() as unit:
            key = job_id.encode()
            stored = doc_of(await unit.get(JOBS, _HK, key, lock=True))
            if stored is None or orjson.loads(stored) != job:
                return True  # cancelled or recorded anew meanwhile
            if state is None:
                await unit.delete(JOBS, _HK, key)
            else:
                await unit.put(JOBS, _HK, key, 0, orjson.dumps(dict(job, State=state)))
        self._progress(job, state)
        return True

    def _progress(self, job: dict, state: dict | None) -> None:
        job_id = job["Id"]
        if state is None:
            if self._logged.pop(job_id, None) is not None:
                log.info("job %s (%s) finished", job_id, job["Kind"])
            return
        now = time.monotonic()
        if now - self._logged.setdefault(job_id, now) >= LOG_EVERY:
            self._logged[job_id] = now
            log.info("job %s (%s): %s of %s done", job_id, job["Kind"],
                     state.get("Done", "?"), state.get("Total", "?"))


async def cancel(db: Database, job_id: str) -> None:
    """Forget a job (its next step's result is dropped)."""
    async with db.engine.transaction() as unit:
        await unit.delete(JOBS, _HK, job_id.encode())


def fresh_id(now: float) -> str:
    """A job or backup id that sorts by creation: milliseconds, then 8 hex digits
    (DynamoDB's backup ids read 01489602797149-73d8d5bc)."""
    return f"{int(now * 1000):014d}-{uuid.uuid4().hex[:8]}"


async def find(db: Database, job_id: str) -> dict | None:
    """A job not finished yet, by its id ({"Id", "Kind", "State", "Created"})."""
    async with db.engine.reader() as unit:
        found = doc_of(await unit.get(JOBS, _HK, job_id.encode()))
    return None if found is None else orjson.loads(found)
