"""Background jobs: long work (a backup's copy, a restore, a history's upkeep; exports
and imports may add theirs) that runs in steps, off the request path, under a lease,
and survives a restart.

A job is one row in the JOBS row space (rk: its id), holding its kind and its state
(a JSON object). A kind is a step function registered with `kind`: it takes the
database and the state, does a bounded piece of the work (one storage transaction or
a few) and returns the state to resume from, or None when the job is finished (its
row is then removed). The state is saved after every step, so a job resumes where
it stopped after a restart or on another node. Every node runs a `Runner`; the node
holding the lease "job/<id>" runs that job's steps (renewed with each step), the
others leave it alone until the lease runs out (its holder died; moving the clock
forward also ends it). A step must tolerate being run again from the state saved
before it (its holder may have died after doing the work, before saving). A step that
waits for something else (another job, a snapshot) returns the very state object it
was given: nothing is saved, and the runner looks again at its next poll instead of
spinning.

Progress: a state may hold "Done" and "Total" (units of the kind's choosing); the
runner logs them every LOG_EVERY seconds while a job runs.
"""
from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import TYPE_CHECKING, Awaitable, Callable

import orjson

from okura.core import leases
from okura.core.spaces import JOBS
from okura.storage.engine import Conflict, doc_of

if TYPE_CHECKING:
    from okura.core.database import Database

Step = Callable[["Database", dict], Awaitable["dict | None"]]
KINDS: dict[str, Step] = {}
POLL = 0.2  # seconds between looks for jobs when none is under way here
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
    doc = orjson.dumps({"Id": job_id, "Kind": kind_name, "State": state,
                        "Created": db.clock.now()})
    async with db.engine.transaction() as unit:
        await unit.put(JOBS, _HK, job_id.encode(), 0, doc)
    db.jobs.wake()
    return job_id


async def pending(db: Database) -> list[dict]:
    """Every job not finished yet ({"Id", "Kind", "State", "Created"}), oldest id first."""
    async with db.engine.reader() as unit:
        rows = await unit.query(JOBS, _HK, None, None, True, 1 << 30)
    return [orjson.loads(doc) for _, _, doc in rows]


class Runner:
    """Runs the jobs of every node's database whose lease this node holds."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._wake = asyncio.Event()
        self._logged: dict[str, float] = {}

    def wake(self) -> None:
        """A job was submitted here: look now rather than at the next poll."""
        self._wake.set()

    async def run(self) -> None:
        """Run jobs until cancelled."""
        while True:
            try:
                busy = await self.round()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("running background jobs failed; retrying")
                busy = False
            if busy:
                await asyncio.sleep(0)  # requests waiting run between steps
                continue
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), POLL)
            except asyncio.TimeoutError:
                pass

    async def round(self) -> bool:
        """One step of each job whose lease this node holds or takes; whether any ran."""
        ran = False
        for job in await pending(self.db):
            now = self.db.clock.now()
            if job["Kind"] not in KINDS or not await leases.acquire(
                    self.db, f"job/{job['Id']}", leases.NODE, now, now + LEASE_TIME):
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
            log.exception("job %s (%s) failed a step; it runs again", job_id, job["Kind"])
            return False
        if state is given:
            return False  # waiting: it looks again at the next poll
        async with self.db.engine.transaction() as unit:
            key = job_id.encode()
            if doc_of(await unit.get(JOBS, _HK, key, lock=True)) is None:
                return True  # cancelled meanwhile
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
