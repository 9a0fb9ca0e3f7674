"""ListImports: the region's imports (or one table's), oldest first, a page at a time.
The model requires a NextToken of at least 112 hex digits, in groups of 16: okura's is
the last listed ARN sealed, in hex, padded with zero bytes."""
from __future__ import annotations

from okura.core import spaces
from okura.core.context import Context
from okura.operations.shared import transfer_jobs

DEFAULT_LIMIT = 25  # the model's maximum (unverified as the default)
_SUMMARY = ("ImportArn", "ImportStatus", "TableArn", "S3BucketSource",
            "CloudWatchLogGroupArn", "InputFormat", "StartTime", "EndTime")


async def handle(ctx: Context, body: dict) -> dict:
    records = await transfer_jobs.listed(ctx, spaces.IMPORTS, body.get("TableArn"))
    chosen, after = transfer_jobs.page(ctx, records, body.get("NextToken"),
                                       body.get("PageSize") or DEFAULT_LIMIT, "ImportArn", True)
    return transfer_jobs.summaries("ImportSummaryList", chosen, after, _SUMMARY)
