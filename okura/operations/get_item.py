"""GetItem: read one item by key, whole or projected."""
from __future__ import annotations

import orjson

from okura import expressions, shapes
from okura.expressions import legacy
from okura.core import items, resolve
from okura.core.context import Context
from okura.operations.shared.single_item import plain_table, placeholders
from okura.values import key_rules, plain, validation

_EMPTY = b"{}"
_PLAIN = frozenset(("TableName", "Key", "ConsistentRead"))


async def handle(ctx: Context, body: dict) -> dict | bytes:
    table = plain_table(ctx, body, _PLAIN)
    pending: list[tuple[dict, str]] = []  # numbers to normalise (values/plain.py)
    consistent = body.get("ConsistentRead", False)
    if (table is not None and plain.key(body.get("Key"), table.schema, pending)
            and type(consistent) is bool):
        if pending:
            plain.apply(pending)
        # The commonest form, known valid: straight to storage.
        return _whole(await items.fetch(ctx, table, body["Key"], consistent))
    shapes.check("GetItem", body)
    key = body["Key"]
    validation.check_item(key)
    legacy.check_mixing(body, "GetItem")
    names = placeholders(body, ("ProjectionExpression",), takes_values=False)
    text = body.get("ProjectionExpression")
    attributes = body.get("AttributesToGet")
    projection = (expressions.projection(text, names) if text is not None
                  else None if attributes is None else legacy.projection(attributes))
    names.finish()
    table = await resolve.serving(ctx, body["TableName"])
    key_rules.check_key(key, table.schema)
    raw = await items.fetch(ctx, table, key, bool(body.get("ConsistentRead")))
    capacity = ctx.ledger.consumed_one(body.get("ReturnConsumedCapacity"))
    if projection is None and capacity is None:
        return _whole(raw)
    out: dict = {}
    if raw is not None:
        item = orjson.loads(raw)
        out["Item"] = item if projection is None else expressions.project(projection, item)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out


def _whole(raw: bytes | None) -> bytes:
    """The reply with the whole item: its stored bytes are its wire JSON, copied,
    never decoded."""
    return _EMPTY if raw is None else b'{"Item":' + raw + b"}"
