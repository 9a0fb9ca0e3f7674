"""CancelBulkOperation: ask a bulk put to stop. It answers CANCELLING at once; the job's
next step ends it CANCELLED (items already written stay)."""
from __future__ import annotations

from okura import errors
from okura.core.context import Context
from okura.core.transfer import bulk
from okura.operations.shared import transfer_jobs


async def handle(ctx: Context, body: dict) -> dict:
    arn = body["BulkOperationArn"]
    await transfer_jobs.described(ctx, bulk.SPACE, arn, errors.bulk_operation_not_found)
    record = await bulk.cancel(ctx.db, arn)
    if record is None:  # gone meanwhile
        raise errors.bulk_operation_not_found(arn)
    status = record["Description"][bulk.STATUS]
    if status != bulk.CANCELLING:
        raise errors.validation(  # unverified
            f"Bulk operation {arn} cannot be cancelled in status {status}")
    return {"BulkOperationArn": arn, "BulkOperationStatus": status}
