"""GetResourcePolicy: the resource-based policy of a table or stream."""
from __future__ import annotations

from okura.core.context import Context
from okura.operations.shared.resource_policies import current, not_found, resource


async def handle(ctx: Context, body: dict) -> dict:
    arn = body["ResourceArn"]
    table, key = await resource(ctx, arn)
    found = current(table, key)
    if found is None:
        raise not_found(arn)
    return {"Policy": found["Policy"], "RevisionId": found["RevisionId"]}
