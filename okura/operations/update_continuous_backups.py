"""UpdateContinuousBackups: turn point-in-time recovery on or off, or change its
recovery period (core.history keeps the history)."""
from __future__ import annotations

from okura import errors
from okura.core import history
from okura.core.catalog import CREATING, DELETING
from okura.core.context import Context
from okura.operations.shared.backup_replies import continuous_backups, source_table

DEFAULT_PERIOD = 35  # days, when RecoveryPeriodInDays is not given (API reference)


async def handle(ctx: Context, body: dict) -> dict:
    spec = body["PointInTimeRecoverySpecification"]
    table = await source_table(ctx, body["TableName"])
    enabled = spec["PointInTimeRecoveryEnabled"]
    days = spec.get("RecoveryPeriodInDays")
    if days is not None and not enabled:
        raise errors.validation(  # unverified
            "One or more parameter values were invalid: RecoveryPeriodInDays can only be "
            "specified when PointInTimeRecoveryEnabled is true")
    status = table.status(ctx.clock.now())
    if status in (CREATING, DELETING):
        raise errors.backup_error(  # users' reports, for a table being created
            "ContinuousBackupsUnavailableException",
            f"Backups are being enabled for the table: {table.name}. Please retry later")
    if enabled:
        days = DEFAULT_PERIOD if days is None else days
        if history.log_of(table) is None:
            table = await history.enable(ctx.db, table, days)
        elif table.doc["PointInTime"]["Period"] != days:
            table = await history.set_period(ctx.db, table, days)
    elif history.log_of(table) is not None:
        table = await history.disable(ctx.db, table)
    return {"ContinuousBackupsDescription": await continuous_backups(ctx, table)}
