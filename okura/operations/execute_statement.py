"""ExecuteStatement: one PartiQL statement; a SELECT pages with Limit and NextToken."""
from __future__ import annotations

from okura import partiql, shapes
from okura.core import items
from okura.operations import partiql_statements
from okura.operations.single_item import capacity_reply, write_capacity
from okura.values import sizes


async def handle(request, body: dict):
    shapes.check("ExecuteStatement", body)
    stmt = partiql_statements.prepare(body)
    if type(stmt) is partiql.Select:
        table, page = await partiql_statements.select(
            request, stmt, body.get("Limit"), body.get("NextToken"))
        out = {"Items": page.items}
        if page.next_token is not None:
            out["NextToken"] = page.next_token
        mode = body.get("ReturnConsumedCapacity")
        if mode in ("TOTAL", "INDEXES"):
            units = sizes.read_units(page.size, consistent=bool(body.get("ConsistentRead")))
            out["ConsumedCapacity"] = capacity_reply(table, mode, units)
        return out
    if type(stmt) is partiql.Exists:
        raise partiql.messages.malformed("EXISTS is only allowed in transactions")  # unverified
    action = await partiql_statements.write_change(request, stmt, body)
    change = action.change
    old, new = await items.write(request.app.db, change)
    out = {"Items": []}
    capacity = write_capacity(change.table, body, old, new)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
