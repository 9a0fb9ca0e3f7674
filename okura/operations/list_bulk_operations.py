"""ListBulkOperations: the region's bulk puts started within the past 90 days, most recent
first, a page at a time (MaxResults, 10 by default). The model asks for a NextToken of
hex digits in groups of 16: okura's is the last listed ARN sealed, in hex."""
from __future__ import annotations

from okura.core.context import Context
from okura.core.transfer import bulk
from okura.operations.shared import transfer_jobs

DEFAULT_LIMIT = 10  # the model's documented default
KEPT = 90 * 86400   # seconds an operation stays listed
_SUMMARY = ("BulkOperationArn", "BulkOperationStatus", "StartTime", "EndTime")


async def handle(ctx: Context, body: dict) -> dict:
    since = ctx.db.clock.now() - KEPT
    records = [record for record in reversed(await transfer_jobs.in_region(ctx, bulk.SPACE))
               if record["Description"]["StartTime"] >= since]
    chosen, after = transfer_jobs.page(ctx, records, body.get("NextToken"),
                                       body.get("MaxResults") or DEFAULT_LIMIT,
                                       "BulkOperationArn", True)
    return transfer_jobs.summaries("BulkOperationsSummaryList", chosen, after, _SUMMARY)
