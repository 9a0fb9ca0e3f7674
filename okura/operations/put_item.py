"""PutItem: create or replace one item, optionally under a condition."""
from __future__ import annotations

from okura import shapes
from okura.core import items, resolve
from okura.core.context import Context
from okura.operations.shared import write_actions
from okura.operations.shared.single_item import (item_collection_metrics, old_or_none,
                                                 plain_table, reply, write_expressions)
from okura.values import key_rules, plain, validation
from okura.values.sizes import MAX_ITEM_SIZE

_PLAIN = frozenset(("TableName", "Item"))


async def handle(ctx: Context, body: dict) -> dict | bytes:
    table = plain_table(ctx, body, _PLAIN)
    if table is not None:
        # The commonest form: a flat item, checked and sized in one walk.
        item = body.get("Item")
        pending: list[tuple[dict, str]] = []  # numbers to normalise (values/plain.py)
        size = plain.sized_item(item, pending)
        if size is not None and size <= MAX_ITEM_SIZE:
            assert item is not None  # sized_item() took it: a dict
            if plain.item_keys(item, table.schema, pending):
                if pending:
                    plain.apply(pending)
                await items.write(ctx, write_actions.put_change(table, item, None, body, size))
                return b"{}"
    shapes.check("PutItem", body)
    item = body["Item"]
    validation.check_item(item)
    return_values = old_or_none(body)
    condition, _ = write_expressions(body, "PutItem")
    table = await resolve.serving(ctx, body["TableName"])
    key_rules.check_item_keys(item, table.schema)
    written = await items.write(ctx, write_actions.put_change(table, item, condition, body))
    return reply(written.old if return_values == "ALL_OLD" else None,
                 ConsumedCapacity=ctx.ledger.consumed_one(body.get("ReturnConsumedCapacity")),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, item, written.collection_size))
