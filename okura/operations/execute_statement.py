"""ExecuteStatement: one PartiQL statement; a SELECT pages with Limit and NextToken."""
from __future__ import annotations

from okura import partiql
from okura.core.context import Context
from okura.operations.shared import partiql_statements


async def handle(ctx: Context, body: dict) -> dict:
    stmt = partiql_statements.prepare(body)
    out: dict
    if type(stmt) is partiql.Select:
        page = await partiql_statements.select(
            ctx, stmt, body.get("Limit"), body.get("NextToken"), bool(body.get("ConsistentRead")))
        out = {"Items": page.items}
        if page.next_token is not None:
            out["NextToken"] = page.next_token
            out["LastEvaluatedKey"] = page.last_key
    else:
        _, _, _, returned = await partiql_statements.write_alone(ctx, stmt, body)
        out = {"Items": [] if returned is None else [returned]}
    capacity = ctx.ledger.consumed_one(body.get("ReturnConsumedCapacity"))
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
