"""GetItem: read one item by key, whole or projected."""
from __future__ import annotations

import orjson

from typing import Awaitable

from okura import expressions
from okura.expressions import legacy
from okura.core import items, table_lookup
from okura.core.context import Context
from okura.operations.shared.single_item import plain_table, placeholders
from okura.core.catalog import Table
from okura.values import fast_path, key_rules, validation

_EMPTY = b"{}"
_PLAIN = frozenset(("TableName", "Key", "ConsistentRead"))


def fast(ctx: Context, body: dict) -> Awaitable[bytes] | None:
    """The commonest form, known valid, straight to storage (None: any other)."""
    table = plain_table(ctx, body, _PLAIN)
    if table is None:
        return None
    pending: list[tuple[dict, str]] = []  # numbers to normalise (values/fast_path.py)
    consistent = body.get("ConsistentRead", False)
    if not (fast_path.is_plain_key(body.get("Key"), table.schema, pending)
            and type(consistent) is bool):
        return None
    if pending:
        fast_path.normalize(pending)
    return _fetch_whole(ctx, table, body["Key"], consistent)


async def _fetch_whole(ctx: Context, table: Table, key: dict, consistent: bool) -> bytes:
    return _whole(await items.fetch(ctx, table, key, consistent))


async def handle(ctx: Context, body: dict) -> dict | bytes:
    key = body["Key"]
    validation.check_item(key)
    legacy.check_mixing(body, "GetItem")
    names = placeholders(body, ("ProjectionExpression",), takes_values=False)
    text = body.get("ProjectionExpression")
    attributes = body.get("AttributesToGet")
    projection = (expressions.projection(text, names) if text is not None
                  else None if attributes is None else legacy.projection(attributes))
    names.finish()
    table = await table_lookup.serving_table(ctx, body["TableName"])
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
