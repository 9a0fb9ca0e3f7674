"""PutItem: create or replace one item, optionally under a condition."""
from __future__ import annotations

from typing import Awaitable

from okura.core import items, table_lookup
from okura.core.catalog import Table
from okura.core.context import Context
from okura.operations.shared import write_actions
from okura.operations.shared.single_item import (item_collection_metrics, old_or_none,
                                                 plain_table, reply, write_expressions)
from okura.values import fast_path, key_rules, validation
from okura.values.sizes import MAX_ITEM_SIZE

_PLAIN = frozenset(("TableName", "Item"))


def fast(ctx: Context, body: dict) -> Awaitable[bytes] | None:
    """The commonest form: a flat item, checked and sized in one walk (None: any other)."""
    table = plain_table(ctx, body, _PLAIN)
    if table is None:
        return None
    item = body.get("Item")
    pending: list[tuple[dict, str]] = []  # numbers to normalise (values/fast_path.py)
    size = fast_path.sized_item(item, pending)
    if size is None or size > MAX_ITEM_SIZE:
        return None
    assert item is not None  # sized_item() took it: a dict
    if not fast_path.has_plain_keys(item, table.schema, pending):
        return None
    if pending:
        fast_path.normalize(pending)
    return _put(ctx, table, item, body, size)


async def _put(ctx: Context, table: Table, item: dict, body: dict, size: int) -> bytes:
    await items.write(ctx, write_actions.put_change(table, item, None, body, size))
    return b"{}"


async def handle(ctx: Context, body: dict) -> dict | bytes:
    item = body["Item"]
    validation.check_item(item)
    return_values = old_or_none(body)
    condition, _ = write_expressions(body, "PutItem")
    table = await table_lookup.serving_table(ctx, body["TableName"])
    key_rules.check_item_keys(item, table.schema)
    written = await items.write(ctx, write_actions.put_change(table, item, condition, body))
    return reply(written.old if return_values == "ALL_OLD" else None,
                 ConsumedCapacity=ctx.ledger.consumed_one(body.get("ReturnConsumedCapacity")),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, item, written.collection_size))
