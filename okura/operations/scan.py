"""Scan: every item of a table or index in partition-hash order, or one segment of
a parallel scan."""
from __future__ import annotations

from okura import errors
from okura.expressions import legacy
from okura.core import reads, table_lookup
from okura.core.context import Context
from okura.operations.shared.paged_reads import Reading, compile_expressions, requested_select
from okura.operations.shared.single_item import placeholders
from okura.storage import keys

_EXPRESSIONS = ("FilterExpression", "ProjectionExpression")


async def handle(ctx: Context, body: dict) -> dict | bytes:
    bounds = _segment(body)
    legacy.check_mixing(body, "Scan")
    select = requested_select(body, "Scan")
    names = placeholders(body, _EXPRESSIONS)
    filter_, projection = compile_expressions(body, names, "ScanFilter")
    names.finish()
    table = await table_lookup.serving_table(ctx, body["TableName"])
    reading = Reading(table, body, select, filter_, projection)
    hk_lo, hk_hi = bounds
    after = reading.start(body)
    if after is not None and ((hk_lo is not None and after[0] < hk_lo)
                              or (hk_hi is not None and after[0] >= hk_hi)):
        raise errors.validation(  # quoted from DynamoDB in a user's report
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
            f"ExclusiveStartKey with correct Segment. TotalSegments: {body['TotalSegments']} "
            f"Segment: {body['Segment']}")
    return await reading.page(ctx, reads.Walk(None, hk_lo=hk_lo, hk_hi=hk_hi), after)


def _segment(body: dict) -> tuple[bytes | None, bytes | None]:
    """The partition-bytes range of a parallel-scan segment (the whole space if none)."""
    segment, total = body.get("Segment"), body.get("TotalSegments")
    if segment is None and total is None:
        return None, None
    if total is None:
        raise errors.validation(  # unverified
            "The TotalSegments parameter is required but was not present in the request when "
            "Segment parameter is present")
    if segment is None:
        raise errors.validation(  # unverified
            "The Segment parameter is required but was not present in the request when "
            "parameter TotalSegments is present")
    if segment >= total:
        raise errors.validation(  # unverified
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
            f"Segment: {segment} is not less than TotalSegments: {total}")
    return keys.segment_bounds(segment, total)
