"""DeleteItem: remove one item by key, optionally under a condition."""
from __future__ import annotations

from okura import errors, expressions, shapes
from okura.expressions import legacy
from okura.core import items
from okura.operations.single_item import (active_table, check_key, condition_check,
                                          item_collection_metrics, reply, resolver,
                                          write_capacity)
from okura.values import validation


async def handle(request, body: dict):
    shapes.check("DeleteItem", body)
    key = body["Key"]
    validation.check_item(key)
    return_values = body.get("ReturnValues", "NONE")
    if return_values not in ("NONE", "ALL_OLD"):
        raise errors.validation("ReturnValues can only be ALL_OLD or NONE")
    legacy.check_mixing(body, "DeleteItem")
    names = resolver(body, ("ConditionExpression",))
    text = body.get("ConditionExpression")
    condition = (legacy.condition(body, "Expected") if text is None
                 else expressions.condition(text, names))
    names.finish()
    table = await active_table(request, body["TableName"])
    check_key(table, key)

    def change(old):
        condition_check(condition, body, old)
        return None if old is not None else items.UNCHANGED

    written = await items.write(request.app.db, table, key, change)
    old = written.old
    return reply(old if return_values == "ALL_OLD" else None,
                 ConsumedCapacity=write_capacity(table, body, old, None),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, key, written.collection_size))
