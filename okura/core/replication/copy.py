"""The job that fills a new replica with the items its source table holds.

The new replica's table is CREATING (it serves nothing) until the job ends. Writes to
the source from the moment the replica joined are logged for it already, so the job
only copies what is there: each item with the stamp of its last write in the source
(or the oldest stamp there is, for items written before the table was global),
through the applier's `apply`, so an item the log has brought over since is never
overwritten by an older copy, and a step run again changes nothing. Progress: Done of
Total items (ReplicaStatusPercentProgress).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from okura.core import jobs
from okura.core.catalog import CREATING, CatalogChanged, Table
from okura.core.context import Context
from okura.core.replication import log
from okura.core.replication.applier import Logged, apply, batches

if TYPE_CHECKING:
    from okura.core.database import Database

CHUNK = 128
UNTIL_DONE = 1e18  # StatusUntil of a replica being filled: CREATING until the job ends


def job_id(target: Table) -> str:
    return f"replica-{target.id}"


async def start(db: Database, source: Table, target: Table) -> None:
    total = (await db.catalog.stats((source.id,)))[source.id][0]
    await jobs.submit(db, "replica", {
        "Source": [source.region, source.name, source.id],
        "Target": [target.region, target.name, target.id],
        "After": None, "Done": 0, "Total": total}, job_id(target))


async def _table(db: Database, place: list) -> Table | None:
    table = await db.catalog.get(place[0], place[1])
    return table if table is not None and table.id == place[2] else None


@jobs.kind("replica")
async def _step(db: Database, state: dict) -> dict | None:
    source = await _table(db, state["Source"])
    target = await _table(db, state["Target"])
    if target is None:
        return None
    if source is not None:
        after = state["After"]
        async with db.engine.reader() as unit:
            rows = await unit.scan(source.id, None if after is None else (
                bytes.fromhex(after[0]), bytes.fromhex(after[1])), None, None, CHUNK)
            stamps = [await log.stamp_of(unit, source.id, hk, rk) or (0, source.region)
                      for hk, rk, _, _ in rows]
        ctx = Context(db, "Replication", target.region)
        copies = []
        for (_, _, _, doc), stamp in zip(rows, stamps):
            item = orjson.loads(doc)
            copies.append(Logged({"Key": source.key_of(item), "New": item, "Service": False},
                                 stamp, None))
        for batch in batches(target, copies):
            await apply(ctx, target, batch)
        if len(rows) == CHUNK:
            return dict(state, After=[rows[-1][0].hex(), rows[-1][1].hex()],
                        Done=state["Done"] + len(rows),
                        Total=max(state["Total"], state["Done"] + len(rows)))
    await _finish(db, state)
    return None


async def _finish(db: Database, state: dict) -> None:
    """The replica serves: ACTIVE once the status delay has passed."""
    for _ in range(5):
        target = await _table(db, state["Target"])
        if target is None:
            return
        try:
            await db.catalog.save(target, dict(target.doc, TableStatus=CREATING,
                                               StatusUntil=db.status_until(db.clock.now())))
            return
        except CatalogChanged:
            continue


async def progress(db: Database, target: Table) -> str | None:
    """ReplicaStatusPercentProgress of a replica being filled (None: none running)."""
    job = await jobs.find(db, job_id(target))
    if job is None:
        return None
    state = job["State"]
    return str(int(100 * state["Done"] / state["Total"])) if state["Total"] else "0"
