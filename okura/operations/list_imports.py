"""ListImports: the region's imports (or one table's), oldest first, a page at a time.
The model requires a NextToken of at least 112 hex digits, in groups of 16: okura's is
the last listed ARN in hex, padded with zero bytes."""
from __future__ import annotations

from okura import errors, shapes
from okura.core import spaces
from okura.core.context import Context
from okura.operations.shared import transfer_jobs

DEFAULT_LIMIT = 25  # the model's maximum (unverified as the default)
_SUMMARY = ("ImportArn", "ImportStatus", "TableArn", "S3BucketSource",
            "CloudWatchLogGroupArn", "InputFormat", "StartTime", "EndTime")


def _token(arn: str) -> str:
    raw = arn.encode()
    raw += b"\0" * (max(56, -(-len(raw) // 8) * 8) - len(raw))
    return raw.hex()


def _arn(token: str) -> str:
    try:
        return bytes.fromhex(token).rstrip(b"\0").decode()
    except ValueError:
        raise errors.validation("Invalid NextToken") from None  # unverified


async def handle(ctx: Context, body: dict) -> dict:
    shapes.check("ListImports", body)
    records = await transfer_jobs.listed(ctx, spaces.IMPORTS, body.get("TableArn"))
    token = body.get("NextToken")
    chosen, after = transfer_jobs.page(records, None if token is None else _arn(token),
                                       body.get("PageSize") or DEFAULT_LIMIT, "ImportArn")
    reply: dict = {"ImportSummaryList": [
        {member: record["Description"][member] for member in _SUMMARY
         if member in record["Description"]} for record in chosen]}
    if after is not None:
        reply["NextToken"] = _token(after)
    return reply
