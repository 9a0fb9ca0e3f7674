"""BatchExecuteStatement: up to 25 PartiQL statements, each succeeding or failing on
its own; reads must name a whole key."""
from __future__ import annotations

import orjson

from okura import errors, partiql, shapes
from okura.core import items, transactions
from okura.errors import DynamoError
from okura.operations import partiql_statements
from okura.operations.single_item import index_write_units
from okura.operations.transact_capacity import Tally, write_units
from okura.values import sizes


async def handle(request, body: dict):
    shapes.check("BatchExecuteStatement", body)
    statements = [_prepared(entry) for entry in body["Statements"]]
    reads = {type(stmt) is partiql.Select for stmt in statements if type(stmt) is not DynamoError}
    if len(reads) > 1:
        # "The entire batch must consist of either read statements or write statements"
        raise errors.validation(
            "Batch must contain either all read statements or all write statements")  # unverified
    responses, tally = [], Tally()
    for entry, stmt in zip(body["Statements"], statements):
        try:
            if type(stmt) is DynamoError:
                raise stmt
            responses.append(await _one(request, entry, stmt, tally))
        except DynamoError as error:
            # the item a failed condition saw, when the statement asked for it (ALL_OLD)
            responses.append({"Error": transactions.reason(error, (error.extra or {}).get("Item"))})
    out = {"Responses": responses}
    capacity = tally.reply(body, None)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out


def _prepared(entry: dict):
    """The statement, or the error that is its response."""
    try:
        return partiql_statements.prepare(entry)
    except DynamoError as error:
        return error


async def _one(request, entry: dict, stmt, tally: Tally) -> dict:
    if type(stmt) is partiql.Select:
        table, key = await partiql_statements.key_target(request, stmt)
        raw = await items.get_raw(request.app.db, table, key)
        item = None if raw is None else orjson.loads(raw)
        tally.add(table.name, sizes.read_units(0 if item is None else sizes.item_size(item),
                                               consistent=bool(entry.get("ConsistentRead"))))
        found = partiql_statements.selected(stmt, item)
        return {"TableName": table.name} if found is None else {"TableName": table.name,
                                                                 "Item": found}
    change, old, new, returned = await partiql_statements.write_alone(request, stmt, entry)
    tally.add(change.table.name, write_units(old, new, transactional=False),
              index_write_units(change.table, old, new))
    reply = {"TableName": change.table.name}
    if returned is not None:
        reply["Item"] = returned
    return reply
