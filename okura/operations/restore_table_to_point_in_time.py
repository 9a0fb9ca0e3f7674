"""RestoreTableToPointInTime: a new table holding the source table's items as of a
time in its point-in-time recovery window (a table deleted with recovery on
included), filled in the background from its history (core.history, core.restores)."""
from __future__ import annotations

from okura import errors
from okura.core import history, table_lookup
from okura.core.context import Context
from okura.operations.shared import restore_rules


async def _source(ctx: Context, body: dict) -> tuple[dict, history.History | None, str]:
    """(the source's settings, its history, its ARN): a live table's current settings,
    or a deleted table's as they were."""
    arn, name = body.get("SourceTableArn"), body.get("SourceTableName")
    if (arn is None) == (name is None):
        raise errors.validation(  # unverified
            "One or more parameter values were invalid: exactly one of SourceTableArn and "
            "SourceTableName must be specified")
    name = table_lookup.table_name(ctx, arn, errors.backup_table_not_found) \
        if arn is not None else name
    assert name is not None
    table = await table_lookup.table_or_none(ctx, name)
    if table is not None:
        ctx.table = table
        return table.doc, await history.of_table(ctx.db, table), table.arn
    deleted = await history.of_deleted(ctx.db, ctx.region, name)
    if deleted is None:
        raise errors.backup_table_not_found(name)
    return deleted.doc["Table"], deleted, deleted.doc["TableArn"]


async def handle(ctx: Context, body: dict) -> dict:
    source, found, arn = await _source(ctx, body)
    if found is None:
        raise errors.backup_error(  # unverified
            "PointInTimeRecoveryUnavailableException",
            f"Point in time recovery is not enabled for table '{source['TableName']}'")
    await restore_rules.check_target_free(ctx, body["TargetTableName"])
    earliest, latest = found.window(ctx.clock.now())
    at = body.get("RestoreDateTime")
    if body.get("UseLatestRestorableTime"):
        if at is not None:
            raise errors.validation(  # unverified
                "One or more parameter values were invalid: RestoreDateTime cannot be "
                "specified when UseLatestRestorableTime is true")
        at = latest
    elif at is None:
        raise errors.validation(  # unverified
            "One or more parameter values were invalid: either RestoreDateTime or "
            "UseLatestRestorableTime must be specified")
    if int(earliest) <= at < earliest:
        # SDKs send whole seconds by default (boto3 truncates): the second that
        # EarliestRestorableDateTime falls in restores as of that moment
        at = earliest
    if not earliest <= at <= latest:
        raise errors.backup_error(  # unverified
            "InvalidRestoreTimeException",
            f"Restore time {at} is not between EarliestRestorableDateTime {earliest:.3f} "
            f"and LatestRestorableDateTime {latest:.3f}")
    summary = {"SourceTableArn": arn, "RestoreDateTime": round(at, 3)}
    doc = restore_rules.target_document(ctx, source, body, summary)
    return await restore_rules.create_target(ctx, doc, {
        "History": [found.region, found.doc["TableName"], found.doc["TableId"]], "At": at})
