"""RestoreTableFromBackup: a new table filled from a backup in the background
(core.restores), with the request's overrides."""
from __future__ import annotations

from okura import errors
from okura.core import backups
from okura.core.context import Context
from okura.operations.shared import restore_rules
from okura.operations.shared.backup_replies import existing_backup


async def handle(ctx: Context, body: dict) -> dict:
    backup = await existing_backup(ctx, body["BackupArn"])
    if backup.doc["Status"] != backups.AVAILABLE:
        raise errors.backup_error(  # unverified
            "BackupInUseException", f"Backup is being created: {backup.arn}")
    await restore_rules.check_target_free(ctx, body["TargetTableName"])
    summary = {"SourceBackupArn": backup.arn, "SourceTableArn": backup.doc["TableArn"],
               "RestoreDateTime": backup.doc["Created"]}
    doc = restore_rules.target_document(ctx, backup.doc["Table"], body, summary)
    return await restore_rules.create_target(ctx, doc, {"Backup": backup.arn})
