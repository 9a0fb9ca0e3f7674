"""ListBackups: the region's backups, oldest first, filtered by table, creation time
(lower bound inclusive, upper exclusive) and type (USER unless asked), in pages."""
from __future__ import annotations

from okura import arns
from okura.core import backups, paging, table_lookup
from okura.core.context import Context
from okura.operations.shared.backup_replies import backup_summary

_TYPES = {"USER": (backups.USER,), "SYSTEM": (backups.SYSTEM,), "AWS_BACKUP": (),
          "ALL": (backups.USER, backups.SYSTEM)}


async def handle(ctx: Context, body: dict) -> dict:
    named = body.get("TableName")
    # another partition's, region's or account's table (None) has no backups here
    name = None if named is None else table_lookup.local_name(ctx, named)
    kinds = _TYPES[body.get("BackupType") or "USER"]
    lower, upper = body.get("TimeRangeLowerBound"), body.get("TimeRangeUpperBound")
    found = [backup for backup in await backups.every(ctx.db, ctx.region)  # in id order
             if backup.doc["Type"] in kinds
             and (named is None or backup.doc["Table"]["TableName"] == name)
             and (lower is None or backup.doc["Created"] >= lower)
             and (upper is None or backup.doc["Created"] < upper)]
    start = body.get("ExclusiveStartBackupArn")
    chosen, last = paging.page(found, body.get("Limit"), paging.after(
        [backup.doc["Id"] for backup in found], None if start is None else arns.backup_id(start)))
    reply: dict = {"BackupSummaries": [backup_summary(b) for b in chosen]}
    if last is not None:
        reply["LastEvaluatedBackupArn"] = last.arn
    return reply
