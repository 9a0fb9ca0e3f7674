"""DescribeContinuousBackups: whether point-in-time recovery is on, and its window."""
from __future__ import annotations

from okura.core.context import Context
from okura.operations.shared.backup_replies import continuous_backups, source_table


async def handle(ctx: Context, body: dict) -> dict:
    table = await source_table(ctx, body["TableName"])
    return {"ContinuousBackupsDescription": await continuous_backups(ctx, table)}
