"""DescribeExport: an export job's description, its progress and outcome."""
from __future__ import annotations

from okura import errors
from okura.core import spaces
from okura.core.context import Context
from okura.operations.shared import transfer_jobs


async def handle(ctx: Context, body: dict) -> dict:
    return {"ExportDescription": await transfer_jobs.described(
        ctx, spaces.EXPORTS, body["ExportArn"], errors.export_not_found)}
