"""CreateBackup: an on-demand backup of a table as of now, taken in the background
(BackupStatus CREATING, then AVAILABLE: core.backups)."""
from __future__ import annotations

from okura import errors
from okura.core import backups
from okura.core.catalog import ACTIVE, UPDATING
from okura.core.context import Context
from okura.operations.shared.backup_replies import backup_details, source_table


async def handle(ctx: Context, body: dict) -> dict:
    table = await source_table(ctx, body["TableName"])
    if table.status(ctx.clock.now()) not in (ACTIVE, UPDATING):
        raise errors.backup_error(  # unverified
            "TableInUseException", f"Table is being created or deleted: {table.name}")
    backup = await backups.create(ctx.db, table, body["BackupName"])
    return {"BackupDetails": backup_details(backup)}
