"""DeleteItem: remove one item by key, optionally under a condition."""
from __future__ import annotations

from okura import shapes
from okura.core import items
from okura.operations import write_actions
from okura.operations.single_item import (active_table, check_key, item_collection_metrics,
                                          old_or_none, reply, write_capacity,
                                          write_expressions)
from okura.values import validation


async def handle(request, body: dict):
    shapes.check("DeleteItem", body)
    key = body["Key"]
    validation.check_item(key)
    return_values = old_or_none(body)
    condition, _ = write_expressions(body, "DeleteItem")
    table = await active_table(request, body["TableName"])
    check_key(table, key)
    written = await items.write(request.app.db, write_actions.delete(table, key, condition, body))
    return reply(written.old if return_values == "ALL_OLD" else None,
                 ConsumedCapacity=write_capacity(table, body, written.old, None),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, key, written.collection_size))
