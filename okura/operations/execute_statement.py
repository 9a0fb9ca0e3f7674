"""ExecuteStatement: one PartiQL statement; a SELECT pages with Limit and NextToken."""
from __future__ import annotations

from okura import partiql, shapes
from okura.operations import partiql_statements
from okura.operations.paged_reads import read_capacity
from okura.operations.single_item import write_capacity
from okura.values import sizes


async def handle(request, body: dict):
    shapes.check("ExecuteStatement", body)
    stmt = partiql_statements.prepare(body)
    if type(stmt) is partiql.Select:
        consistent = bool(body.get("ConsistentRead"))
        source, page = await partiql_statements.select(
            request, stmt, body.get("Limit"), body.get("NextToken"), consistent)
        out = {"Items": page.items}
        if page.next_token is not None:
            out["NextToken"] = page.next_token
            out["LastEvaluatedKey"] = page.last_key
        mode = body.get("ReturnConsumedCapacity")
        if mode in ("TOTAL", "INDEXES"):
            units = sizes.read_units(page.size, consistent=consistent)
            out["ConsumedCapacity"] = read_capacity(source, mode, units)
        return out
    change, old, new, returned = await partiql_statements.write_alone(request, stmt, body)
    out = {"Items": [] if returned is None else [returned]}
    capacity = write_capacity(change.table, body, old, new)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
