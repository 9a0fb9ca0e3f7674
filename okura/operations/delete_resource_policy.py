"""DeleteResourcePolicy: remove a table's or stream's resource-based policy (a table's
takes its indexes' permissions with it); the reply names the revision removed."""
from __future__ import annotations

from okura.core.context import Context
from okura.operations.shared.resource_policies import (check_expected, current, not_found,
                                                       resource, save)


async def handle(ctx: Context, body: dict) -> dict:
    arn = body["ResourceArn"]
    table, key = await resource(ctx, arn)
    found = current(table, key)
    check_expected(body, found, arn)
    if found is None:
        raise not_found(arn)
    await save(ctx, table, key, None)
    return {"RevisionId": found["RevisionId"]}
