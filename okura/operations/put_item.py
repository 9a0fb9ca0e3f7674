"""PutItem: create or replace one item, optionally under a condition."""
from __future__ import annotations

from okura import errors, expressions, shapes
from okura.expressions import legacy
from okura.core import items
from okura.operations.single_item import (active_table, condition_check, item_collection_metrics,
                                          reply, resolver, write_capacity)
from okura.values import key_rules, validation


async def handle(request, body: dict):
    shapes.check("PutItem", body)
    item = body["Item"]
    validation.check_item(item)
    return_values = body.get("ReturnValues", "NONE")
    if return_values not in ("NONE", "ALL_OLD"):
        raise errors.validation("ReturnValues can only be ALL_OLD or NONE")
    legacy.check_mixing(body, "PutItem")
    names = resolver(body, ("ConditionExpression",))
    text = body.get("ConditionExpression")
    condition = (legacy.condition(body, "Expected") if text is None
                 else expressions.condition(text, names))
    names.finish()
    table = await active_table(request, body["TableName"])
    key_rules.check_item_keys(item, table.schema)

    def change(old):
        condition_check(condition, body, old)
        return item

    written = await items.write(request.app.db, table, item, change)
    old = written.old
    return reply(old if return_values == "ALL_OLD" else None,
                 ConsumedCapacity=write_capacity(table, body, old, item),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, item, written.collection_size))
