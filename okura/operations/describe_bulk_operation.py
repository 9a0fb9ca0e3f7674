"""DescribeBulkOperation: a bulk put's description, its progress and outcome."""
from __future__ import annotations

from okura import errors
from okura.core.context import Context
from okura.core.transfer import bulk
from okura.operations.shared import transfer_jobs


async def handle(ctx: Context, body: dict) -> dict:
    return {"BulkOperationDescription": await transfer_jobs.described(
        ctx, bulk.SPACE, body["BulkOperationArn"], errors.bulk_operation_not_found)}
