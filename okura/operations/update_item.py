"""UpdateItem: change attributes of one item (creating it if absent), optionally
under a condition."""
from __future__ import annotations

from typing import Awaitable

from okura import expressions
from okura.core import items, table_lookup
from okura.core.catalog import Table
from okura.core.context import Context
from okura.operations.shared import write_actions
from okura.operations.shared.single_item import (check_key_untouched, item_collection_metrics,
                                                 plain_expression_members, plain_table, reply,
                                                 returned_values, write_expressions)
from okura.values import fast_path, key_rules, validation

_PLAIN = frozenset(("TableName", "Key", "UpdateExpression", "ConditionExpression",
                    "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValues"))


def fast(ctx: Context, body: dict) -> Awaitable[dict] | None:
    """The commonest form: plain key and expression members, on a table this process
    holds (None: any other). Its expressions are still compiled and checked."""
    table = plain_table(ctx, body, _PLAIN)
    if table is None:
        return None
    pending: list[tuple[dict, str]] = []  # numbers to normalise (values/fast_path.py)
    if not (fast_path.is_plain_key(body.get("Key"), table.schema, pending)
            and plain_expression_members(body, pending)):
        return None
    if pending:
        fast_path.normalize(pending)
    return _update(ctx, body, table)


async def handle(ctx: Context, body: dict) -> dict:
    validation.check_item(body["Key"])
    return await _update(ctx, body, None)


async def _update(ctx: Context, body: dict, table: Table | None) -> dict:
    """The update, after the further checks in DynamoDB's order (`table`: the fast
    path's, whose key is checked)."""
    key = body["Key"]
    condition, update = write_expressions(body, "UpdateItem", plain=table is not None)
    if table is None:
        table = await table_lookup.serving_table(ctx, body["TableName"])
        key_rules.check_key(key, table.schema)
    if update is not None:
        check_key_untouched(table, update)
    changed: list[expressions.Path] = []
    change = write_actions.update_change(table, key, update, condition, body, changed=changed)
    written = await items.write(ctx, change)
    old, new = written.old, written.new
    return reply(returned_values(body.get("ReturnValues"), old, new, changed),
                 ConsumedCapacity=ctx.ledger.consumed_one(body.get("ReturnConsumedCapacity")),
                 ItemCollectionMetrics=item_collection_metrics(
                     table, body, key, written.collection_size))
