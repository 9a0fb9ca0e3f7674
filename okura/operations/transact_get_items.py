"""TransactGetItems: up to 100 Gets read from one committed state."""
from __future__ import annotations

import orjson

from okura import expressions, shapes
from okura.core import transactions
from okura.operations.single_item import active_table, check_key, resolver
from okura.operations.table_rules import table_name
from okura.operations.transact_capacity import READ, Tally, read_units
from okura.values import validation


async def handle(request, body: dict):
    shapes.check("TransactGetItems", body)
    targets, projections = [], []
    for entry in body["TransactItems"]:
        get = entry["Get"]
        key = get["Key"]
        validation.check_item(key)
        names = resolver(get, ("ProjectionExpression",))
        text = get.get("ProjectionExpression")
        projections.append(None if text is None else expressions.projection(text, names))
        names.finish()
        table = await active_table(request, table_name(get["TableName"]))
        check_key(table, key)
        targets.append((table, key))
    docs = await transactions.read(request.app.db, targets)
    responses, tally = [], Tally()
    for (table, _), projection, doc in zip(targets, projections, docs):
        item = None if doc is None else orjson.loads(doc)
        tally.add(table.name, read_units(item))
        if item is None:
            responses.append({})
        else:
            responses.append({"Item": item if projection is None
                              else expressions.project(projection, item)})
    out = {"Responses": responses}
    capacity = tally.reply(body, READ)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
