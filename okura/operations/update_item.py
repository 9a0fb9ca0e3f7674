"""UpdateItem: change attributes of one item (creating it if absent), optionally
under a condition."""
from __future__ import annotations

from okura import errors, expressions, shapes
from okura.expressions import legacy
from okura.core import items
from okura.operations.single_item import (active_table, check_key, condition_check,
                                          item_collection_metrics, reply, resolver,
                                          write_capacity)
from okura.values import sizes, validation


async def handle(request, body: dict):
    shapes.check("UpdateItem", body)
    key = body["Key"]
    validation.check_item(key)
    return_values = body.get("ReturnValues", "NONE")
    legacy.check_mixing(body, "UpdateItem")
    names = resolver(body, ("ConditionExpression", "UpdateExpression"))
    text = body.get("UpdateExpression")
    updates = body.get("AttributeUpdates")
    update = (expressions.update(text, names) if text is not None
              else legacy.update(updates) if updates else None)
    text = body.get("ConditionExpression")
    condition = (legacy.condition(body, "Expected") if text is None
                 else expressions.condition(text, names))
    names.finish()
    table = await active_table(request, body["TableName"])
    check_key(table, key)
    if update is not None:
        for path in update.paths():
            name = path.elements[0]
            if name in table.key_names:
                raise errors.validation(
                    "One or more parameter values were invalid: Cannot update attribute "
                    f"{name}. This attribute is part of the key")
    changed = []

    def change(old):
        condition_check(condition, body, old)
        if old is None and updates and not (update.sets or update.adds):
            return items.UNCHANGED  # legacy DELETEs alone create no item
        base = dict(key) if old is None else old
        if update is None:
            return base if old is None else items.UNCHANGED
        new, paths = expressions.apply_update(update, base)
        changed.extend(paths)
        return new

    written = await items.write(request.app.db, table, key, change, sizes.UPDATE_TOO_LARGE)
    old, new = written.old, written.new
    return reply(_returned(return_values, old, new, changed),
                 ConsumedCapacity=write_capacity(table, body, old, new),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, key, written.collection_size))


def _returned(return_values: str, old: dict | None, new: dict | None, paths: list) -> dict | None:
    if return_values == "ALL_OLD":
        return old
    if return_values == "ALL_NEW":
        return new
    if return_values == "UPDATED_OLD":
        return None if old is None else expressions.project(expressions.Projection(paths), old)
    if return_values == "UPDATED_NEW":
        return expressions.project(expressions.Projection(paths), new)
    return None
