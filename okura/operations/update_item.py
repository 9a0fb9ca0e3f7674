"""UpdateItem: change attributes of one item (creating it if absent), optionally
under a condition."""
from __future__ import annotations

from okura import expressions, shapes
from okura.core import items, resolve
from okura.core.context import Context
from okura.operations.shared import write_actions
from okura.operations.shared.single_item import (check_key_untouched, item_collection_metrics,
                                                 plain_expression_members, plain_table, reply,
                                                 returned_values, write_expressions)
from okura.values import key_rules, plain, validation

_PLAIN = frozenset(("TableName", "Key", "UpdateExpression", "ConditionExpression",
                    "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValues"))


async def handle(ctx: Context, body: dict) -> dict:
    table = plain_table(ctx, body, _PLAIN)
    pending: list[tuple[dict, str]] = []  # numbers to normalise (values/plain.py)
    if table is not None and (plain.key(body.get("Key"), table.schema, pending)
                              and plain_expression_members(body, pending)):
        if pending:
            plain.apply(pending)
    else:
        table = None  # not the commonest form: every check, in DynamoDB's order
        shapes.check("UpdateItem", body)
        validation.check_item(body["Key"])
    key = body["Key"]
    condition, update = write_expressions(body, "UpdateItem", plain=table is not None)
    if table is None:
        table = await resolve.serving(ctx, body["TableName"])
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
