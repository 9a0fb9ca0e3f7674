"""What the backup and point-in-time recovery operations share: finding the source
table (their errors differ from the table operations'), and the replies' descriptions."""
from __future__ import annotations

from okura import errors
from okura.core import history, resolve
from okura.core.catalog import Table
from okura.core.context import Context


async def source_table(ctx: Context, value: str) -> Table:
    """The table a backup or point-in-time operation names: TableNotFoundException
    if there is none (these operations do not answer ResourceNotFoundException)."""
    name = resolve.table_name(value)
    table = await ctx.db.catalog.get(ctx.region, name)
    if table is None or table.gone(ctx.clock.now()):
        raise errors.backup_table_not_found(name)
    if ctx.table is None:
        ctx.table = table
    return table


async def continuous_backups(ctx: Context, table: Table) -> dict:
    """ContinuousBackupsDescription: continuous backups are always on; point-in-time
    recovery with its window when enabled."""
    found = await history.of_table(ctx.db, table)
    if found is None:
        recovery: dict = {"PointInTimeRecoveryStatus": "DISABLED"}
    else:
        earliest, latest = found.window(ctx.clock.now())
        recovery = {"PointInTimeRecoveryStatus": "ENABLED",
                    "RecoveryPeriodInDays": found.doc["Period"],
                    "EarliestRestorableDateTime": round(earliest, 3),
                    "LatestRestorableDateTime": round(latest, 3)}
    return {"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": recovery}
