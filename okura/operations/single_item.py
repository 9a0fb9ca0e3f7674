"""What PutItem, GetItem, UpdateItem and DeleteItem share: finding the table,
compiling their expressions, and the optional parts of their replies."""
from __future__ import annotations

from okura import errors, expressions
from okura.core import collections
from okura.core.catalog import ACTIVE, Table
from okura.values import key_rules, sizes, validation


async def active_table(request, name: str) -> Table:
    """The table a data operation addresses; DynamoDB reports a missing table (or one
    not yet ACTIVE) as not found."""
    db = request.app.db
    table = await db.catalog.get(request.region, name)
    if table is None or table.status(db.clock.now()) != ACTIVE:
        raise errors.resource_not_found()
    return table


def resolver(body: dict, expression_params: tuple[str, ...],
             takes_values: bool = True) -> expressions.Resolver:
    """The names/values resolver of a request, after DynamoDB's checks on
    ExpressionAttributeNames/Values themselves. An operation without an
    ExpressionAttributeValues member (GetItem) ignores one, as any unknown member."""
    names = body.get("ExpressionAttributeNames")
    values = body.get("ExpressionAttributeValues") if takes_values else None
    used = any(body.get(param) is not None for param in expression_params)
    if values is not None:
        if not used:
            raise errors.validation(
                "ExpressionAttributeValues can only be specified when using expressions")
        if not values:
            raise errors.validation("ExpressionAttributeValues must not be empty")
        validation.check_expression_values(values)
    if names is not None:
        if not used:
            raise errors.validation(
                "ExpressionAttributeNames can only be specified when using expressions")
        if not names:
            raise errors.validation("ExpressionAttributeNames must not be empty")
    return expressions.Resolver(names, values)


def check_key(table: Table, key: dict) -> None:
    key_rules.check_key(key, table.schema)


def condition_check(condition, body: dict, old: dict | None) -> None:
    """Raise ConditionalCheckFailedException when the condition is false for `old`."""
    if condition is not None and not expressions.evaluate(condition, old):
        raise errors.conditional_check_failed(
            old if old is not None and body.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
            else None)


def write_capacity(table: Table, body: dict, old: dict | None, new: dict | None) -> dict | None:
    """ConsumedCapacity of a single-item write: the larger of the old and new item."""
    mode = body.get("ReturnConsumedCapacity")
    if mode not in ("TOTAL", "INDEXES"):
        return None
    size = max(sizes.item_size(old) if old else 0, sizes.item_size(new) if new else 0)
    return capacity_reply(table, mode, sizes.write_units(size))


def capacity_reply(table: Table, mode: str, units: float) -> dict:
    consumed = {"TableName": table.name, "CapacityUnits": units}
    if mode == "INDEXES":
        consumed["Table"] = {"CapacityUnits": units}
    return consumed


def item_collection_metrics(table: Table, body: dict, key: dict,
                            size: int | None = None) -> dict | None:
    """ItemCollectionMetrics: DynamoDB reports them only for tables with local
    secondary indexes, whose item collections are size-limited; `size` is the
    collection's size after the write (items.Written.collection_size)."""
    if body.get("ReturnItemCollectionMetrics") != "SIZE" or not table.doc.get(
            "LocalSecondaryIndexes"):
        return None
    return {"ItemCollectionKey": {table.hash_key: key[table.hash_key]},
            "SizeEstimateRangeGB": collections.size_range_gb(size or 0)}


def reply(attributes: dict | None = None, **parts) -> dict:
    """A reply with the optional parts that are present."""
    out = {name: value for name, value in parts.items() if value is not None}
    if attributes:
        out["Attributes"] = attributes
    return out
