"""Restores: filling a new table from a backup or from a point-in-time history.

The operation creates the target table CREATING (StatusUntil UNTIL_DONE: it serves
nothing until the restore ends) with its RestoreSummary, and submits a "restore" job.
Each step of the job writes a chunk of items, with their index entries, vector index
rows and item-collection sizes, in one storage transaction, and the job resumes after the last
chunk written (a restart, another node); an item the target already holds is skipped,
so a step run again writes nothing twice. From a history, a chunk is a page of the
state as of the restore time in key order (History.page_at). At the end the
table becomes ACTIVE, its global indexes too, and RestoreInProgress false.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from okura.core import backups, history, index_entries, item_collections, jobs
from okura.core.catalog import ACTIVE, CatalogChanged, Table
from okura.core.vectors import maintenance
from okura.core.vectors.definitions import MEMBER as VECTORS
from okura.storage.engine import Transaction

if TYPE_CHECKING:
    from okura.core.database import Database

# StatusUntil of a table being restored: far past any clock reading, so it stays
# CREATING until the job finishes it.
UNTIL_DONE = 1e18
CHUNK = 256
# Per restore job from a history, the log's last entry per item up to the restore time
# (History.written_until): read once on the node running the job, not once per step.
_written: dict[str, dict[bytes, tuple]] = {}


async def start(db: Database, table: Table, source: dict) -> str:
    """Submit the job that fills `table`: `source` is {"Backup": arn} or {"History":
    [region, name, table id], "At": time}."""
    job_id = jobs.fresh_id(db.clock.now())
    state = {"Region": table.region, "TableName": table.name, "TableId": table.id,
             "Source": source, "After": None, "Done": 0, "Job": job_id}
    if "Backup" in source:
        backup = await backups.find(db, table.region, source["Backup"])
        if backup is not None:
            await backup.update(db, Restoring=[*backup.doc["Restoring"], job_id])
            state["Total"] = backup.doc["ItemCount"]
    return await jobs.submit(db, "restore", state, job_id)


async def _insert(unit: Transaction, table: Table, rows: list[tuple]) -> None:
    """Write restored items the table does not hold yet, with their index entries (an
    item that breaks an index's key rules stays out of it, as in a backfill)."""
    lsi = bool(table.doc.get("LocalSecondaryIndexes"))
    vectors = VECTORS in table.doc
    for hk, rk, size, doc in rows:
        if await unit.get(table.id, hk, rk) is not None:
            continue
        await unit.put(table.id, hk, rk, size, doc)
        if not table.indexes and not vectors:
            continue
        item = orjson.loads(doc)
        if vectors:
            await maintenance.store_item(unit, table, hk, rk, item)
        growth = size
        for index in table.indexes:
            found = index_entries.entry(index, table, item, hk, rk) if \
                index_entries.indexable(index, item) else None
            if found is not None:
                stored = await index_entries.store_entry(unit, index, found)
                if not index.is_global:
                    growth += stored
        if lsi:
            await item_collections.grow(unit, table, hk, growth)


async def _target(db: Database, state: dict) -> Table | None:
    table = await db.catalog.get(state["Region"], state["TableName"])
    return table if table is not None and table.id == state["TableId"] else None


@jobs.kind("restore")
async def _step(db: Database, state: dict) -> dict | None:
    table = await _target(db, state)
    if table is None:
        _written.pop(state["Job"], None)
        return None  # the target is gone
    source = state["Source"]
    backup = None
    if "Backup" in source:
        backup = await backups.find(db, state["Region"], source["Backup"])
        if backup is not None and backup.doc["Space"] is None:  # a system backup:
            source = {"History": backup.doc["History"], "At": backup.doc["At"]}
    if backup is not None and backup.doc["Space"] is not None:
        after = state["After"]
        async with db.engine.transaction() as unit:
            rows = await unit.scan(backup.doc["Space"], None if after is None else (
                bytes.fromhex(after[0]), bytes.fromhex(after[1])), None, None, CHUNK)
            await _insert(unit, table, rows)
        if len(rows) == CHUNK:
            return dict(state, After=[rows[-1][0].hex(), rows[-1][1].hex()],
                        Done=state["Done"] + len(rows))
    elif "History" in source:
        if "Reading" not in state:  # the first page: the history must be complete
            found = await history.load(db, *source["History"])
            if found is not None and not found.ready:
                return state  # wait: its base snapshot is still being taken
            if found is not None:  # kept in the state, its rows outlive a disable
                state = dict(state, Reading=history.reading(found))
        if "Reading" in state:  # else dropped before it could be read: nothing to restore
            found = history.History(state["Region"], state["Reading"])
            written = _written.get(state["Job"])
            if written is None:  # read once per job and node, kept between its steps
                written = _written[state["Job"]] = await found.written_until(db, source["At"])
            after = state["After"]
            rows, reached = await found.page_at(db, source["At"], None if after is None else (
                bytes.fromhex(after[0]), bytes.fromhex(after[1])), CHUNK, written)
            async with db.engine.transaction() as unit:
                await _insert(unit, table, rows)
            if reached is not None:
                return dict(state, After=[reached[0].hex(), reached[1].hex()],
                            Done=state["Done"] + len(rows))
            _written.pop(state["Job"], None)
    if backup is not None:
        await backup.update(db, Restoring=[job for job in backup.doc["Restoring"]
                                           if job != state["Job"]])
    await _finish(db, state)
    return None


async def _finish(db: Database, state: dict) -> None:
    """The table serves: ACTIVE, its global indexes too, the restore no longer in
    progress."""
    for _ in range(5):
        table = await _target(db, state)
        if table is None:
            return
        doc = dict(table.doc, TableStatus=ACTIVE, StatusUntil=0)
        doc["RestoreSummary"] = dict(doc["RestoreSummary"], RestoreInProgress=False)
        if "GlobalSecondaryIndexes" in doc:
            doc["GlobalSecondaryIndexes"] = [dict(index, IndexStatus=ACTIVE)
                                             for index in doc["GlobalSecondaryIndexes"]]
        try:
            await db.catalog.save(table, doc)
            return
        except CatalogChanged:
            continue
