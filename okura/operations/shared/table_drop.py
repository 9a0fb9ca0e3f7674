"""Dropping a table (DeleteTable, and a global table's replica deleted through
another region's UpdateTable)."""
from __future__ import annotations

from okura.core import backups, history, snapshots
from okura.core.catalog import DELETING, Table
from okura.core.database import Database
from okura.core.streams.state import follow_table


async def drop(db: Database, table: Table, now: float) -> None:
    """Drop an ACTIVE table's items; it stays DELETING for the status delay."""
    # Snapshots under way take the items before they go; the point-in-time history
    # outlives the table (a deleted table can be restored).
    await snapshots.copy_all(db, table)
    if history.log_of(table) is not None:  # a system backup of it, read from the history
        await backups.create_system(db, table, now)
        await history.table_deleted(db, table, now)
    doc = dict(table.doc, TableStatus=DELETING, StatusUntil=db.status_until(now))
    await db.catalog.delete(table, doc)
    await follow_table(db, table.region, table.name)
