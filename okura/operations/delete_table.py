"""DeleteTable: drop a table and its items; the name stays taken while DELETING."""
from __future__ import annotations

from okura import errors
from okura.core.catalog import ACTIVE, DELETING
from okura.core.context import Context
from okura.core.streams.state import follow_table
from okura.operations.shared.table_description import describe
from okura.core import backups, history, snapshots, table_lookup
from okura.operations.shared.table_rules import in_use

# recorded: DeleteTable's TableDescription leaves these out
_OMITTED = frozenset(("CreationDateTime", "KeySchema", "AttributeDefinitions",
                      "GlobalSecondaryIndexes", "LocalSecondaryIndexes"))


async def handle(ctx: Context, body: dict) -> dict:
    db = ctx.db
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    now = db.clock.now()
    status = table.status(now)
    if status not in (ACTIVE, DELETING):
        raise in_use(table, status)
    if table.doc.get("DeletionProtectionEnabled"):
        raise errors.validation("Resource cannot be deleted as it is currently protected against "
                                "deletion. Disable deletion protection first.")  # unverified
    description = {name: value for name, value in
                   (await describe(db, table, status=DELETING)).items()
                   if name not in _OMITTED}
    if status == ACTIVE:
        # Snapshots under way take the items before they go; the point-in-time history
        # outlives the table (a deleted table can be restored).
        await snapshots.copy_all(db, table)
        if history.log_of(table) is not None:  # a system backup of it, read from the history
            await backups.create_system(db, table, now)
            await history.table_deleted(db, table, now)
        doc = dict(table.doc, TableStatus=DELETING, StatusUntil=db.status_until(now))
        await db.catalog.delete(table, doc)
        await follow_table(db, ctx.region, table.name)
    return {"TableDescription": description}
