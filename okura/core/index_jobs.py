"""Online index changes: backfilling a global secondary index added to a populated
table, and dropping a deleted one, in the background while the server keeps serving.

UpdateTable records each job in the table's catalog document (private member
"IndexJobs": {index name: {"Action": "Create" | "Delete", "Start": time, "After":
[hk hex, rk hex] | null, "Done": rows read, "Total": the table's rows when it began}}),
so the job survives a restart and its progress is
durable: a backfill indexes the table's rows in bounded chunks, each chunk in its
own storage transaction, then records the position it reached. Writes maintain a
CREATING index from the moment it is declared, so a row the backfill has passed
and a row it has not reached yet both end up indexed; re-indexing a row is
idempotent; the backfill reads each row locked, so a write in flight on another
node finishes before the row is indexed (or waits until it is). The work is a job of
the one job runner (core/jobs.py, kind "index-jobs", one per table: id
"index-jobs-<table id>", its lease "job/<that id>"), recorded by the node that sees
the document with jobs it has not recorded yet (loaded or changed); each step runs
a chunk of the table's first job, reading the document afresh. A chunk whose progress
could not be saved (the document changed meanwhile) is done again: indexing is
idempotent.
"""
from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import orjson

from okura.core import features, index_entries, jobs
from okura.core.catalog import ACTIVE, DELETING, CatalogChanged, Table
from okura.last_resort import log_unexpected
from okura.storage.engine import Conflict

if TYPE_CHECKING:
    from okura.core.database import Database

CHUNK = 256  # rows indexed per transaction: bounds the pause other requests see
KIND = "index-jobs"
GLOBAL = "GlobalSecondaryIndexes"
log = logging.getLogger("okura.index_jobs")


def progress(job: dict) -> float:
    """How far a backfill has come, in percent (OnlineIndexPercentageProgress): rows
    read of the rows the table held when it began (rows written since count too, so
    it stops at 100)."""
    total = job.get("Total")
    if not total:
        return 0.0
    return min(100.0, 100.0 * job.get("Done", 0) / total)


@features.register
class IndexJobs(features.Feature):
    def __init__(self, db: Database) -> None:
        super().__init__(db)
        # table id -> the jobs (index name, action) this node has recorded a job for
        self._recorded: dict[int, frozenset] = {}
        self._recording: set[asyncio.Task] = set()

    def notice(self, table: Table) -> None:
        """Record a job for the table's pending index jobs unless done already."""
        pending = frozenset((name, job["Action"])
                            for name, job in table.doc.get("IndexJobs", {}).items())
        if not pending:
            self._recorded.pop(table.id, None)
        elif self._recorded.get(table.id) != pending:
            self._recorded[table.id] = pending
            task = asyncio.get_running_loop().create_task(self._record(table))
            self._recording.add(task)
            task.add_done_callback(self._recording.discard)

    async def _record(self, table: Table) -> None:
        try:
            await jobs.submit(self.db, KIND, {"Region": table.region, "Name": table.name,
                                              "TableId": table.id}, f"{KIND}-{table.id}")
        except Exception:
            self._recorded.pop(table.id, None)  # recorded when the document is seen again
            log_unexpected(log, "recording the index jobs of table %s failed", table.name)

    async def step(self, state: dict) -> dict | None:
        """A chunk of the table's first index job: `state` itself while it is not due,
        None once the table has none left."""
        db = self.db
        table = await db.catalog.get(state["Region"], state["Name"])
        if table is None or table.id != state["TableId"] or table.doc["TableStatus"] == DELETING \
                or not table.doc.get("IndexJobs"):
            self._recorded.pop(state["TableId"], None)
            return None
        index_name, job = next(iter(table.doc["IndexJobs"].items()))
        if job["Start"] > db.clock.now():
            return state
        try:
            if job["Action"] == "Delete":
                await self._drop(table, index_name)
            else:
                await self._backfill(table, index_name, job)
        except (CatalogChanged, Conflict):
            pass  # reload the document and go on from its saved progress
        return dict(state)

    async def _backfill(self, table: Table, index_name: str, job: dict) -> None:
        index = next(index for index in table.indexes if index.name == index_name)
        reached = job["After"]  # [hk hex, rk hex] of the last row indexed, or None
        after = None if reached is None else (bytes.fromhex(reached[0]), bytes.fromhex(reached[1]))
        async with self.db.engine.transaction() as unit:
            # Still the job it was: a Delete ending it (on another node, perhaps, which
            # took the lease over) changes the document first, and a backfill committing
            # after that would leave rows the drop never sees. Reading the version holds
            # it (PostgreSQL: FOR SHARE) until this chunk commits.
            if await unit.catalog_version(table.id) != table.version:
                self.db.catalog.invalidate(table.id)  # the next pass plans with the new one
                raise CatalogChanged(table)
            if "Total" not in job:  # for OnlineIndexPercentageProgress
                job = dict(job, Total=(await unit.table_stats(table.id))[0])
            rows = await unit.scan(table.id, after, None, None, CHUNK)
            for hk, rk, _, _ in rows:
                row = await unit.get(table.id, hk, rk, lock=True)
                if row is None:
                    continue  # deleted since the scan
                item = orjson.loads(row[1])
                if not index_entries.indexable(index, item):
                    continue  # an index key violation stays out of the index
                found = index_entries.entry(index, table, item, hk, rk)
                if found is not None:
                    await index_entries.store_entry(unit, index, found)
        doc = dict(table.doc)
        jobs = dict(doc["IndexJobs"])
        if len(rows) < CHUNK:
            del jobs[index_name]
            # an index added to a table says it is done backfilling; CreateTable's never do
            status = {"IndexStatus": ACTIVE, "Backfilling": False}
        else:
            jobs[index_name] = dict(job, After=[rows[-1][0].hex(), rows[-1][1].hex()],
                                    Done=job.get("Done", 0) + len(rows))
            status = {"IndexStatus": "CREATING", "Backfilling": True}
        _set_jobs(doc, jobs)
        doc[GLOBAL] = [_with_status(entry, status) if entry["IndexName"] == index_name
                       else entry for entry in doc[GLOBAL]]
        await self.db.catalog.save(table, doc)

    async def _drop(self, table: Table, index_name: str) -> None:
        doc = dict(table.doc)
        ids = dict(doc["IndexIds"])
        async with self.db.engine.transaction() as unit:
            await unit.drop_rows(ids.pop(index_name))
        doc["IndexIds"] = ids
        jobs = dict(doc["IndexJobs"])
        del jobs[index_name]
        _set_jobs(doc, jobs)
        remaining = [entry for entry in doc[GLOBAL] if entry["IndexName"] != index_name]
        if remaining:
            doc[GLOBAL] = remaining
        else:
            del doc[GLOBAL]
        await self.db.catalog.save(table, doc)


def _set_jobs(doc: dict, jobs: dict) -> None:
    if jobs:
        doc["IndexJobs"] = jobs
    else:
        doc.pop("IndexJobs", None)


def _with_status(entry: dict, status: dict) -> dict:
    updated = {name: value for name, value in entry.items() if name != "Backfilling"}
    updated.update(status)
    return updated


@jobs.kind(KIND)
async def _step(db: Database, state: dict) -> dict | None:
    return await db.features[IndexJobs].step(state)
