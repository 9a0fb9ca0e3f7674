"""GetItem: read one item by key, whole or projected."""
from __future__ import annotations

import orjson

from okura import expressions, shapes
from okura.expressions import legacy
from okura.core import items
from okura.operations.single_item import (active_table, capacity_reply, check_key, plain_table,
                                          resolver)
from okura.values import plain, sizes, validation

_EMPTY = b"{}"
_PLAIN = frozenset(("TableName", "Key", "ConsistentRead"))


async def handle(request, body: dict):
    table, pending = plain_table(request, body, _PLAIN), []
    if (table is not None and plain.key(body.get("Key"), table.schema, pending)
            and type(body.get("ConsistentRead", False)) is bool):
        plain.apply(pending)
        # The commonest form, known valid: straight to storage.
        return _whole(await items.get_raw(request.app.db, table, body["Key"]))
    shapes.check("GetItem", body)
    key = body["Key"]
    validation.check_item(key)
    legacy.check_mixing(body, "GetItem")
    names = resolver(body, ("ProjectionExpression",), takes_values=False)
    text = body.get("ProjectionExpression")
    attributes = body.get("AttributesToGet")
    projection = (expressions.projection(text, names) if text is not None
                  else None if attributes is None else legacy.projection(attributes))
    names.finish()
    table = await active_table(request, body["TableName"])
    check_key(table, key)
    raw = await items.get_raw(request.app.db, table, key)
    mode = body.get("ReturnConsumedCapacity")
    if projection is None and mode not in ("TOTAL", "INDEXES"):
        return _whole(raw)
    item = None if raw is None else orjson.loads(raw)
    out = {}
    if item is not None:
        out["Item"] = item if projection is None else expressions.project(projection, item)
    if mode in ("TOTAL", "INDEXES"):
        size = 0 if item is None else sizes.item_size(item)
        out["ConsumedCapacity"] = capacity_reply(
            table, mode, sizes.read_units(size, consistent=bool(body.get("ConsistentRead"))))
    return out


def _whole(raw: bytes | None) -> bytes:
    """The reply with the whole item: its stored bytes are its wire JSON, copied,
    never decoded."""
    return _EMPTY if raw is None else b'{"Item":' + raw + b"}"
