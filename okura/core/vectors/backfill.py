"""Backfilling a vector index added to a populated table: a job of the one job runner
(core/jobs.py, kind "vector-backfill", id "vector-backfill-<index id>") that stores
each existing item's row in bounded chunks, each in its own transaction, and finally
marks the index ACTIVE and done backfilling.

Writes keep the index from the moment UpdateTable declares it, so an item the backfill
has passed and one it has not reached both end up indexed; storing a row again is
idempotent, and each item is read locked, so a write in flight elsewhere finishes first.
A step whose index is gone (deleted, or its table) ends the job.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from okura.core import jobs
from okura.core.catalog import ACTIVE, CatalogChanged
from okura.core.vectors.definitions import MEMBER, of_table
from okura.core.vectors.maintenance import Vectors
from okura.storage import keys

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database

KIND = "vector-backfill"
CHUNK = 256  # items per transaction: bounds the pause other requests see


async def start(db: Database, table: Table, index_id: int) -> None:
    """Submit the backfill; it begins once the table's status delay has passed (as a
    global index's does: core/index_jobs.py)."""
    await jobs.submit(db, KIND, {"Region": table.region, "Name": table.name,
                                 "TableId": table.id, "IndexId": index_id, "After": None,
                                 "Done": 0, "Start": db.status_until(db.clock.now())},
                      f"{KIND}-{index_id}")


@jobs.kind(KIND)
async def _step(db: Database, state: dict) -> dict | None:
    table = await db.catalog.get(state["Region"], state["Name"])
    if table is None or table.id != state["TableId"]:
        return None
    index = next((index for index in of_table(table) if index.id == state["IndexId"]), None)
    if index is None:
        return None
    if state["Start"] > db.clock.now():
        return state  # not due yet
    reached = state["After"]
    after = None if reached is None else (bytes.fromhex(reached[0]), bytes.fromhex(reached[1]))
    stored = []
    async with db.engine.transaction() as unit:
        if "Total" not in state:
            state = dict(state, Total=(await unit.table_stats(table.id))[0])
        rows = await unit.scan(table.id, after, None, None, CHUNK)
        for hk, rk, _, _ in rows:
            found = await unit.get(table.id, hk, rk, lock=True)
            if found is None:
                continue  # deleted since the scan
            row = index.row(orjson.loads(found[1]))
            if row is not None:
                await unit.put(index.id, hk, rk, len(row), row)
                stored.append((keys.terminated(hk) + rk, row))
    vectors = db.features[Vectors]
    for key, row in stored:
        vectors.committed(index, key, row)
    if len(rows) == CHUNK:
        return dict(state, After=[rows[-1][0].hex(), rows[-1][1].hex()],
                    Done=state["Done"] + len(rows))
    doc = dict(table.doc)
    doc[MEMBER] = [dict(entry, IndexStatus=ACTIVE, Backfilling=False)
                   if entry["IndexName"] == index.name else entry for entry in doc[MEMBER]]
    try:
        await db.catalog.save(table, doc)
    except CatalogChanged:
        return dict(state)  # again with the new document (storing rows again is harmless)
    return None
