"""What PutItem, GetItem, UpdateItem and DeleteItem share: the plain form's table,
compiling their expressions, and the optional parts of their replies."""
from __future__ import annotations

from functools import lru_cache

from okura import errors, expressions
from okura.expressions import legacy
from okura.core import item_collections, table_lookup
from okura.core.catalog import Table
from okura.core.context import Context
from okura.values import fast_path, validation


def plain_table(ctx: Context, body: dict, members: frozenset) -> Table | None:
    """The table of a request in its commonest form: only `members`, naming by its
    exact name a table this process holds, which serves data. None sends the request
    the general way (which gives every error)."""
    if not body.keys() <= members:
        return None
    return table_lookup.cached_serving_table(ctx, body.get("TableName"))


_RETURN_VALUES = frozenset(("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"))


def plain_expression_members(body: dict, pending: list) -> bool:
    """Whether a request's expression members are all of the plain kinds the request
    model certainly accepts (strings, names, flat values; see values/fast_path.py)."""
    for member in ("UpdateExpression", "ConditionExpression"):
        if type(body.get(member, "")) is not str:
            return False
    names = body.get("ExpressionAttributeNames")
    if names is not None:
        if type(names) is not dict:
            return False
        for name in names.values():
            if type(name) is not str or len(name) > fast_path.MAX_NAME:
                return False
    values = body.get("ExpressionAttributeValues")
    if values is not None and fast_path.sized_item(values, pending) is None:
        return False
    return_values = body.get("ReturnValues")
    return return_values is None or (type(return_values) is str
                                     and return_values in _RETURN_VALUES)


def placeholders(body: dict, expression_params: tuple[str, ...], takes_values: bool = True,
                 values_checked: bool = False) -> expressions.Resolver:
    """The names/values resolver of a request, after DynamoDB's checks on
    ExpressionAttributeNames/Values themselves (`values_checked`: the plain path has
    checked the values). An operation without an ExpressionAttributeValues member
    (GetItem) ignores one, as any unknown member."""
    names = body.get("ExpressionAttributeNames")
    values = body.get("ExpressionAttributeValues") if takes_values else None
    used = False
    for param in expression_params:
        if body.get(param) is not None:
            used = True
            break
    if values is not None:
        if not used:
            # A write whose one expression member is ConditionExpression names it:
            # recorded for PutItem, the same rule for DeleteItem and a transaction's Put
            # and Delete (unverified). Other operations' wording is not recorded.
            detail = (": ConditionExpression is null"
                      if expression_params == ("ConditionExpression",) else "")
            raise errors.validation(
                "ExpressionAttributeValues can only be specified when using expressions" + detail)
        if not values:
            raise errors.validation("ExpressionAttributeValues must not be empty")
        if not values_checked:
            validation.check_expression_values(values)
    if names is not None:
        if not used:
            raise errors.validation(
                "ExpressionAttributeNames can only be specified when using expressions")
        if not names:
            raise errors.validation("ExpressionAttributeNames must not be empty")
    return expressions.Resolver(names, values)


def write_expressions(body: dict, operation: str,
                      plain: bool = False) -> tuple[object, expressions.UpdateExpression | None]:
    """(condition, update) of an item write, from its expressions or its legacy
    parameters, after every check that needs no table. `update` is None but for
    UpdateItem (and a transaction's Update). A `plain` request (see
    plain_expression_members) has no legacy parameters and checked values."""
    if not plain:
        legacy.check_mixing(body, operation)
    updating = operation == "UpdateItem"
    names = placeholders(body, ("ConditionExpression", "UpdateExpression") if updating
                         else ("ConditionExpression",), values_checked=plain)
    update = None
    if updating:
        text = body.get("UpdateExpression")
        updates = body.get("AttributeUpdates")
        update = (expressions.update(text, names) if text is not None
                  else legacy.update(updates) if updates else None)
    text = body.get("ConditionExpression")
    condition = (legacy.condition(body, "Expected") if text is None
                 else expressions.condition(text, names))
    names.finish()
    return condition, update


def old_or_none(body: dict) -> str:
    """ReturnValues of PutItem and DeleteItem, which return nothing but the old item."""
    return_values = body.get("ReturnValues")
    if return_values is None:  # absent, or a JSON null, which means the same
        return "NONE"
    if return_values not in ("NONE", "ALL_OLD"):
        raise errors.validation("ReturnValues can only be ALL_OLD or NONE")
    return return_values


def returned_values(return_values: str | None, old: dict | None, new: dict | None,
                    paths: list) -> dict | None:
    """What ReturnValues (or PartiQL's RETURNING) asks of an update: `paths` are the
    ones it wrote, for UPDATED_OLD and UPDATED_NEW."""
    if return_values == "ALL_OLD":
        return old
    if return_values == "ALL_NEW":
        return new
    if return_values == "UPDATED_OLD":
        return None if old is None else expressions.project(_projection(tuple(paths)), old)
    if return_values == "UPDATED_NEW":
        return None if new is None else expressions.project(_projection(tuple(paths)), new)
    return None


@lru_cache(maxsize=1024)
def _projection(paths: tuple) -> expressions.Projection:
    """The projection of an update's written paths, built once per set of paths."""
    return expressions.Projection(paths)


def check_key_untouched(table: Table, update: expressions.UpdateExpression) -> None:
    """An update may not write a key attribute."""
    for path in update.paths:
        name = path.elements[0]
        if name in table.key_names:
            raise errors.validation(
                "One or more parameter values were invalid: Cannot update attribute "
                f"{name}. This attribute is part of the key")


def condition_check(condition: object, body: dict, old: dict | None) -> None:
    """Raise ConditionalCheckFailedException when the condition is false for `old`."""
    if condition is not None and not expressions.evaluate(
            condition, old, body.get("ExpressionAttributeValues")):
        raise errors.conditional_check_failed(
            old if old is not None and body.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
            else None)


def item_collection_metrics(table: Table, body: dict, key: dict,
                            size: int | None = None) -> dict | None:
    """ItemCollectionMetrics: DynamoDB reports them only for tables with local
    secondary indexes, whose item collections are size-limited; `size` is the
    collection's size after the write (items.Written.collection_size)."""
    if body.get("ReturnItemCollectionMetrics") != "SIZE" or not table.doc.get(
            "LocalSecondaryIndexes"):
        return None
    return {"ItemCollectionKey": {table.hash_key: key[table.hash_key]},
            "SizeEstimateRangeGB": item_collections.size_range_gb(size or 0)}


def reply(attributes: dict | None = None, **parts: object) -> dict:
    """A reply with the optional parts that are present."""
    out = {name: value for name, value in parts.items() if value is not None}
    if attributes:
        out["Attributes"] = attributes
    return out
