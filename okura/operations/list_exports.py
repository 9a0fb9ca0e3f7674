"""ListExports: the region's exports (or one table's), oldest first, a page at a time."""
from __future__ import annotations

from okura.core import spaces
from okura.core.context import Context
from okura.operations.shared import transfer_jobs

DEFAULT_LIMIT = 25  # the model's maximum (unverified as the default)


async def handle(ctx: Context, body: dict) -> dict:
    records = await transfer_jobs.listed(ctx, spaces.EXPORTS, body.get("TableArn"))
    chosen, after = transfer_jobs.page(ctx, records, body.get("NextToken"),
                                       body.get("MaxResults") or DEFAULT_LIMIT, "ExportArn")
    return transfer_jobs.summaries("ExportSummaries", chosen, after,
                                   ("ExportArn", "ExportStatus", "ExportType"))
