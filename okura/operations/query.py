"""Query: the items of one partition of a table or index, in sort-key order."""
from __future__ import annotations

from okura import errors, expressions
from okura.core import reads, table_lookup
from okura.core.context import Context
from okura.expressions import legacy
from okura.expressions.legacy import check_mixing
from okura.operations.shared.key_condition import plan as plan_keys
from okura.operations.shared.paged_reads import Reading, compile_expressions, requested_select
from okura.operations.shared.single_item import placeholders

_EXPRESSIONS = ("KeyConditionExpression", "FilterExpression", "ProjectionExpression")


async def handle(ctx: Context, body: dict) -> dict | bytes:
    limit = body.get("Limit")
    if limit is not None and limit < 1:
        # the model's minimum, checked here as DynamoDB does: the member named as sent,
        # no value quoted
        raise errors.validation(
            "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1")
    check_mixing(body, "Query")
    select = requested_select(body, "Query")
    text = body.get("KeyConditionExpression")
    conditions = body.get("KeyConditions") or {}
    if text is None and not conditions:
        raise errors.validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in "
            "the request.")
    names = placeholders(body, _EXPRESSIONS)
    condition = (legacy.key_condition(conditions) if text is None
                 else expressions.key_condition(text, names))
    filter_, projection = compile_expressions(body, names, "QueryFilter")
    names.finish()
    table = await table_lookup.serving_table(ctx, body["TableName"])
    reading = Reading(table, body, select, filter_, projection)
    source = reading.source
    plan = plan_keys(condition, source.hash_keys, source.range_keys,
                     body.get("ExpressionAttributeValues"))
    if filter_ is not None:
        _check_filter(filter_, source.hash_keys + source.range_keys,
                      "Filter Expression" if body.get("QueryFilter") is None else "QueryFilter")
    hk = source.partition(plan.hash_values)
    lo, hi = reads.sort_range(source.range_keys, plan.equal, plan.op, plan.operands)
    start = reading.start(body, query=True)
    if start is not None:
        _check_start(start, hk, lo, hi)
    return await reading.page(ctx, reads.Walk([hk], lo, hi, body.get("ScanIndexForward", True)),
                              start)


def _check_start(start: tuple[bytes, bytes], hk: bytes, lo: bytes | None,
                 hi: bytes | None) -> None:
    """An ExclusiveStartKey must lie within what the key condition reads."""
    start_hk, start_rk = start
    # both messages as users' reports quote them
    if start_hk != hk:
        raise errors.validation(
            "The provided starting key is outside query boundaries based on provided condition(s)")
    if (lo is not None and start_rk < lo) or (hi is not None and start_rk >= hi):
        raise errors.validation("The provided starting key does not match the range key predicate")


def _check_filter(node: object, key_schema: list[tuple[str, str]], param: str) -> None:
    """A Query filter may not name the key attributes it reads by."""
    used: set[str] = set()
    _top_level_names(node, used)
    for name, _ in key_schema:
        if name in used:
            # DynamoDB words the legacy QueryFilter's rule differently
            detail = "non-primary key" if param == "Filter Expression" else "non-key"
            raise errors.validation(  # unverified
                f"{param} can only contain {detail} attributes: Primary key attribute: {name}")


def _top_level_names(node: object, out: set[str]) -> None:
    if type(node) is expressions.Path:
        first = node.elements[0]
        if type(first) is str:
            out.add(first)
        return
    for child in getattr(node, "__slots__", ()):
        value = getattr(node, child)
        if type(value) is tuple:
            for item in value:
                _top_level_names(item, out)
        elif not isinstance(value, (str, dict)):
            _top_level_names(value, out)
