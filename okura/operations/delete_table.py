"""DeleteTable: drop a table and its items; the name stays taken while DELETING."""
from __future__ import annotations

from okura import errors
from okura.core.catalog import ACTIVE, DELETING
from okura.core.context import Context
from okura.core.replication import group
from okura.operations.shared import replica_updates
from okura.operations.shared.table_description import describe
from okura.operations.shared.table_drop import drop
from okura.core import table_lookup
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
        if group.others(table):
            await replica_updates.leave(db, table, now)
        await drop(db, table, now)
    return {"TableDescription": description}
