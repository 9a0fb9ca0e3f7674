"""ExportTableToPointInTime: start a job that writes a table's items to S3 (a full
export of the table as of ExportTime, or an incremental one of the changes in a window)
from its point-in-time history, and answer at once with its description, IN_PROGRESS;
core.transfer.exporter does the work in the background."""
from __future__ import annotations

from okura import arns, errors
from okura.core import history as histories, jobs as background, spaces, table_lookup
from okura.core.context import Context
from okura.core.history import History
from okura.core.transfer import job_records
from okura.operations.shared import transfer_jobs

FULL, INCREMENTAL = "FULL_EXPORT", "INCREMENTAL_EXPORT"
# An incremental export's window: "from 15 minutes up to 24 hours" (developer guide)
SHORTEST_WINDOW, LONGEST_WINDOW = 15 * 60, 24 * 3600


def _in_window(when: float, history: History, now: float, member: str) -> float:
    earliest = history.window(now)[0]
    if when > now:
        raise errors.invalid_export_time(f"{member} cannot be in the future")  # unverified
    if when < earliest:
        raise errors.invalid_export_time(
            f"{member} is outside of the point in time recovery window")  # unverified
    return float(when)


def _incremental(body: dict, history: History, now: float) -> dict:
    """The incremental export's specification, completed, after DynamoDB's rules (the
    messages are okura's: DynamoDB's are not documented)."""
    spec = body.get("IncrementalExportSpecification") or {}
    if body.get("ExportTime") is not None:
        raise errors.validation("ExportTime cannot be specified for an incremental export")
    if spec.get("ExportFromTime") is None:
        raise errors.validation("ExportFromTime must be specified for an incremental export")
    start = _in_window(spec["ExportFromTime"], history, now, "ExportFromTime")
    end = _in_window(spec.get("ExportToTime", now), history, now, "ExportToTime")
    if end - start < SHORTEST_WINDOW:
        raise errors.validation("The incremental export period must be at least 15 minutes")
    if end - start > LONGEST_WINDOW:
        raise errors.validation("The incremental export period must be at most 24 hours")
    return {"ExportFromTime": start, "ExportToTime": end,
            "ExportViewType": spec.get("ExportViewType") or "NEW_AND_OLD_IMAGES"}


async def handle(ctx: Context, body: dict) -> dict:
    table = await table_lookup.table_by_arn(ctx, body["TableArn"], errors.backup_table_not_found)
    history = await histories.of_table(ctx.db, table)
    if history is None:
        raise errors.point_in_time_recovery_unavailable(table.name)
    now = ctx.db.clock.now()
    export_type = body.get("ExportType") or FULL
    timing: dict = ({"IncrementalExportSpecification": _incremental(body, history, now)}
                    if export_type == INCREMENTAL else
                    {"ExportTime": _in_window(body.get("ExportTime", now), history, now,
                                              "ExportTime")})
    earlier = await transfer_jobs.with_token(ctx, spaces.EXPORTS, body, errors.export_conflict)
    if earlier is not None:
        return {"ExportDescription": earlier["Description"]}
    arn = arns.export(table.arn, background.fresh_id(now))
    description = {
        "ExportArn": arn,
        "ExportStatus": job_records.IN_PROGRESS,
        "StartTime": now,
        "TableArn": table.arn,
        "TableId": table.doc["TableId"],
        **timing,
        "S3Bucket": body["S3Bucket"],
        "S3SseAlgorithm": body.get("S3SseAlgorithm") or "AES256",
        "ExportFormat": body.get("ExportFormat") or "DYNAMODB_JSON",
        "ExportType": export_type,
    }
    record = transfer_jobs.new_record(
        ctx, table, body, description,
        ("ClientToken", "S3BucketOwner", "S3Prefix", "S3SseKmsKeyId"))
    if export_type == FULL:  # the progress logged: items written of about this many
        record["Total"] = (await ctx.db.catalog.stats((table.id,)))[table.id][0]
    await job_records.start(ctx.db, spaces.EXPORTS, record)
    return {"ExportDescription": description}
