"""DeleteBackup: drop a backup that is neither being created nor restored from."""
from __future__ import annotations

from okura import errors
from okura.core import backups
from okura.core.context import Context
from okura.operations.shared.backup_replies import backup_description, existing_backup


async def handle(ctx: Context, body: dict) -> dict:
    backup = await existing_backup(ctx, body["BackupArn"])
    if backup.doc["Status"] == backups.CREATING or backup.doc["Restoring"]:
        raise errors.backup_error(  # unverified
            "BackupInUseException", f"Backup is in use: {backup.arn}")
    await backups.delete(ctx.db, backup)
    return {"BackupDescription": backup_description(backup, status=backups.DELETED)}
