"""BatchGetItem: up to 100 items by key across tables, each table with its own
projection and consistency. A reply holds at most 16 MB of items; the keys past
that come back in UnprocessedKeys, with their table's other parameters, to ask again."""
from __future__ import annotations

import orjson

from okura import errors, expressions, shapes
from okura.core import items
from okura.expressions import legacy
from okura.operations import table_rules
from okura.operations.batch_keys import DistinctKeys
from okura.operations.single_item import active_table, capacity_reply, resolver
from okura.values import key_rules, sizes, validation

MAX_KEYS = 100
REPLY_BYTES = 16 * 1024 * 1024


def _projection(request: dict):
    """The table's ProjectionExpression, or its legacy AttributesToGet, or None."""
    legacy.check_mixing(request, "GetItem")
    names_resolver = resolver(request, ("ProjectionExpression",))
    text = request.get("ProjectionExpression")
    projection = None if text is None else expressions.projection(text, names_resolver)
    names_resolver.finish()
    names = request.get("AttributesToGet")
    return projection if names is None else legacy.projection(names)


async def handle(request, body: dict) -> dict:
    shapes.check("BatchGetItem", body)
    request_items = body["RequestItems"]
    if sum(len(wanted["Keys"]) for wanted in request_items.values()) > MAX_KEYS:
        raise errors.validation("Too many items requested for the BatchGetItem call")
    plans = []
    for name, wanted in request_items.items():
        projection = _projection(wanted)
        table = await active_table(request, table_rules.table_name(name))
        distinct = DistinctKeys(table)
        for key in wanted["Keys"]:
            validation.check_item(key)
            key_rules.check_key(key, table.schema)
            distinct.add(key)
        plans.append((name, wanted, table, projection))
    db = request.app.db
    mode = body.get("ReturnConsumedCapacity")
    responses: dict[str, list] = {}
    unprocessed: dict[str, dict] = {}
    capacity = []
    replied = 0
    for name, wanted, table, projection in plans:
        found = responses[name] = []
        consistent = bool(wanted.get("ConsistentRead"))
        units = 0.0
        for position, key in enumerate(wanted["Keys"]):
            raw = None if replied > REPLY_BYTES else await items.get_raw(db, table, key)
            size = 0
            if raw is not None:
                item = orjson.loads(raw)
                size = sizes.item_size(item)
                replied += size
            if replied > REPLY_BYTES:
                unprocessed[name] = dict(wanted, Keys=wanted["Keys"][position:])
                break
            if raw is not None:
                found.append(item if projection is None else expressions.project(projection, item))
            units += sizes.read_units(size, consistent=consistent)
        if mode in ("TOTAL", "INDEXES"):
            capacity.append(capacity_reply(table, mode, units))
    out: dict = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if capacity:
        out["ConsumedCapacity"] = capacity
    return out
