"""DeleteItem: remove one item by key, optionally under a condition."""
from __future__ import annotations

from okura.core import items, table_lookup
from okura.core.context import Context
from okura.operations.shared import write_actions
from okura.operations.shared.single_item import (item_collection_metrics, old_or_none, reply,
                                                 write_expressions)
from okura.values import key_rules, validation


async def handle(ctx: Context, body: dict) -> dict:
    key = body["Key"]
    validation.check_item(key)
    return_values = old_or_none(body)
    condition, _ = write_expressions(body, "DeleteItem")
    table = await table_lookup.serving_table(ctx, body["TableName"])
    key_rules.check_key(key, table.schema)
    written = await items.write(ctx, write_actions.delete_change(table, key, condition, body))
    return reply(written.old if return_values == "ALL_OLD" else None,
                 ConsumedCapacity=ctx.ledger.consumed_one(body.get("ReturnConsumedCapacity")),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, key, written.collection_size))
