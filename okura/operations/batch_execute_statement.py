"""BatchExecuteStatement: up to 25 PartiQL statements, each succeeding or failing on
its own; reads must name a whole key."""
from __future__ import annotations

from okura import errors, partiql
from okura.core import items, transactions
from okura.core.context import Context
from okura.errors import DynamoError
from okura.operations.shared import partiql_statements


async def handle(ctx: Context, body: dict) -> dict:
    statements = [_prepared(entry) for entry in body["Statements"]]
    reads = {type(stmt) is partiql.Select for stmt in statements if type(stmt) is not DynamoError}
    if len(reads) > 1:
        # "The entire batch must consist of either read statements or write statements"
        raise errors.validation(
            "Batch must contain either all read statements or all write statements")  # unverified
    responses: list[dict] = []
    for entry, stmt in zip(body["Statements"], statements):
        try:
            if isinstance(stmt, DynamoError):
                raise stmt
            responses.append(await _one(ctx, entry, stmt))
        except DynamoError as error:
            # the item a failed condition saw, when the statement asked for it (ALL_OLD)
            responses.append({"Error": transactions.reason(error, (error.extra or {}).get("Item"))})
    out: dict = {"Responses": responses}
    capacity = ctx.ledger.consumed(body.get("ReturnConsumedCapacity"))
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out


def _prepared(entry: dict) -> partiql_statements.Statement | DynamoError:
    """The statement, or the error that is its response."""
    try:
        return partiql_statements.prepare(entry)
    except DynamoError as error:
        return error


async def _one(ctx: Context, entry: dict, stmt: partiql_statements.Statement) -> dict:
    if type(stmt) is partiql.Select:
        table, key = await partiql_statements.key_target(ctx, stmt)
        raw = await items.fetch(ctx, table, key, bool(entry.get("ConsistentRead")))
        found = partiql_statements.selected(ctx, stmt, raw)
        return {"TableName": table.name} if found is None else {"TableName": table.name,
                                                                 "Item": found}
    change, _, _, returned = await partiql_statements.write_alone(ctx, stmt, entry)
    reply = {"TableName": change.table.name}
    if returned is not None:
        reply["Item"] = returned
    return reply
