"""BatchGetItem: up to 100 items by key across tables, each table with its own
projection and consistency. A reply holds at most 16 MB of items; the keys past
that come back in UnprocessedKeys, with their table's other parameters, to ask again."""
from __future__ import annotations

import orjson

from okura import errors, expressions
from okura.core import items, table_lookup
from okura.core.context import Context
from okura.core.faults import Faults
from okura.errors import THROTTLING_ERRORS, DynamoError
from okura.expressions import legacy
from okura.operations.shared.batch_keys import DistinctKeys
from okura.operations.shared.single_item import placeholders
from okura.values import key_rules, sizes, validation

MAX_KEYS = 100
REPLY_BYTES = 16 * 1024 * 1024


def _projection(wanted: dict) -> expressions.Projection | None:
    """The table's ProjectionExpression, or its legacy AttributesToGet, or None."""
    legacy.check_mixing(wanted, "GetItem")
    names_resolver = placeholders(wanted, ("ProjectionExpression",))
    text = wanted.get("ProjectionExpression")
    projection = None if text is None else expressions.projection(text, names_resolver)
    names_resolver.finish()
    names = wanted.get("AttributesToGet")
    return projection if names is None else legacy.projection(names)


async def handle(ctx: Context, body: dict) -> dict:
    request_items = body["RequestItems"]
    if not request_items:
        raise errors.validation("The requestItems parameter is required for BatchGetItem")
    # the model's length limit on a table's Keys, checked here as DynamoDB does: the
    # member named as sent, no value quoted
    too_many = [f"Value at 'RequestItems.{name}.member.Keys' failed to satisfy constraint: "
                f"Member must have length less than or equal to {MAX_KEYS}"
                for name, wanted in request_items.items() if len(wanted["Keys"]) > MAX_KEYS]
    if too_many:
        count = len(too_many)  # more than one: unverified
        raise errors.validation(f"{count} validation error{'' if count == 1 else 's'} "
                                f"detected: {'; '.join(too_many)}")
    if sum(len(wanted["Keys"]) for wanted in request_items.values()) > MAX_KEYS:
        raise errors.validation("Too many items requested for the BatchGetItem call")
    plans = []
    for name, wanted in request_items.items():
        projection = _projection(wanted)
        table = await table_lookup.serving_table(ctx, name)
        distinct = DistinctKeys(table)
        for key in wanted["Keys"]:
            validation.check_item(key)
            key_rules.check_key(key, table.schema)
            distinct.add(key)
        plans.append((name, wanted, table, projection))
    responses: dict[str, list] = {}
    unprocessed: dict[str, dict] = {}
    faults = ctx.db.features[Faults]
    if faults.rules:  # injected faults (core/faults.py) may leave keys unread
        plans, unprocessed = faults.unprocessed_keys(ctx, plans)
    replied = 0
    throttled: DynamoError | None = None  # the first key throttled, if any
    read = 0
    for name, wanted, table, projection in plans:
        found = responses[name] = []
        consistent = bool(wanted.get("ConsistentRead"))
        for position, key in enumerate(wanted["Keys"]):
            try:
                raw = None if replied > REPLY_BYTES else await items.fetch(
                    ctx, table, key, consistent)
            except DynamoError as refusal:
                if refusal.name not in THROTTLING_ERRORS:
                    raise
                throttled = throttled or refusal  # left unprocessed
                unprocessed.setdefault(name, dict(wanted, Keys=[]))["Keys"].append(key)
                continue
            read += 1
            if raw is not None:
                item = orjson.loads(raw)
                replied += sizes.item_size(item)
            if replied > REPLY_BYTES:
                unprocessed[name] = dict(wanted, Keys=wanted["Keys"][position:]
                                         + unprocessed.get(name, {}).get("Keys", []))
                break
            if raw is not None:
                found.append(item if projection is None else expressions.project(projection, item))
    if throttled is not None and not read:
        raise throttled  # every key throttled: the batch fails whole
    out: dict = {"Responses": responses, "UnprocessedKeys": unprocessed}
    capacity = ctx.ledger.consumed(body.get("ReturnConsumedCapacity"))
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
