"""DescribeBackup: a backup's details, its table as it was, and the table's features."""
from __future__ import annotations

from okura.core.context import Context
from okura.operations.shared.backup_replies import backup_description, existing_backup


async def handle(ctx: Context, body: dict) -> dict:
    backup = await existing_backup(ctx, body["BackupArn"])
    return {"BackupDescription": backup_description(backup)}
