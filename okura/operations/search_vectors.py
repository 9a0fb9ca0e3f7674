"""SearchVectors: the TopK items of a vector index nearest a search vector, best first
(docs/vectors.md). Messages the developer guide quotes are marked "guide"."""
from __future__ import annotations

import numpy as np
import orjson

from okura import errors, expressions
from okura.core import table_lookup
from okura.core.capacity import INDEXES, TOTAL
from okura.core.catalog import ACTIVE
from okura.core.context import Context
from okura.core.vectors import search_filter
from okura.core.vectors.definitions import VectorIndex, of_table
from okura.core.vectors.search import search
from okura.operations.shared.single_item import placeholders

MAX_TOP_K = 100
_EXPRESSIONS = ("SearchConditionExpression", "ProjectionExpression")


async def handle(ctx: Context, body: dict) -> dict | bytes:
    k = body["TopK"]
    if k > MAX_TOP_K:
        raise errors.validation("Provided TopK value is out of valid range")  # guide
    names = placeholders(body, _EXPRESSIONS)
    text = body.get("SearchConditionExpression")
    condition = None if text is None else expressions.condition(
        text, names, "SearchConditionExpression")
    wanted = body.get("ProjectionExpression")
    projection = None if wanted is None else expressions.projection(wanted, names)
    names.finish()
    table = await table_lookup.serving_table(ctx, body["TableName"])
    index = _index(table, body["IndexName"])
    query = _vector(body["SearchVector"], index)
    values = body.get("ExpressionAttributeValues") or {}
    if condition is None:
        if index.hash_keys:
            raise search_filter.hash_required()
        mask = None
    else:
        mask = search_filter.compile_mask(condition, index, values)
    if projection is not None:
        outside = sorted({path.elements[0] for path in projection.paths} - index.projected)
        if outside and not index.everything:
            raise errors.validation(
                "One or more parameter values were invalid: ProjectionExpression can only "
                f"retrieve attributes projected into the vector index: {outside[0]}")  # unverified
    found, metered = await search(ctx, table, index, query, k, mask)
    consumed = body.get("ReturnConsumedCapacity") in (INDEXES, TOTAL)
    if index.everything and projection is None:
        # the stored items as they are, undecoded (as GetItem's reply)
        raw = b'{"SearchResults":[' + b",".join(
            b'{"Item":%s,"Score":%s}' % (doc, orjson.dumps(score)) for doc, score in found) + b"]"
        if consumed:
            raw += b',"ConsumedCapacity":' + orjson.dumps({"VectorSearchRequestBytes": float(metered)})
        return raw + b"}"
    results = []
    for doc, score in found:
        item = index.projection(orjson.loads(doc))
        shown = item if projection is None else expressions.project(projection, item)
        results.append({"Item": shown, "Score": score})
    reply: dict = {"SearchResults": results}
    if consumed:
        reply["ConsumedCapacity"] = {"VectorSearchRequestBytes": float(metered)}
    return reply


def _index(table, name: str) -> VectorIndex:
    index = next((index for index in of_table(table) if index.name == name), None)
    if index is None:
        raise errors.validation(f"The table does not have the specified index: {name}")  # guide
    if index.status != ACTIVE or index.backfilling:
        raise errors.validation(f"Cannot search backfilling vector index: {name}")  # guide
    return index


def _vector(members: list, index: VectorIndex) -> np.ndarray:
    if any(type(member) is not dict or "N" not in member for member in members):
        raise errors.validation(
            "One or more parameter values were invalid: SearchVector must be a list of "
            "numbers")  # unverified
    if len(members) != index.dims:
        raise errors.validation(
            f"One or more parameter values were invalid: SearchVector has {len(members)} "
            f"dimensions, but vector index {index.name} expects {index.dims}")  # unverified
    try:
        return np.array([float(member["N"]) for member in members], np.float32)
    except ValueError:
        raise errors.validation(
            "One or more parameter values were invalid: SearchVector must be a list of "
            "numbers") from None  # unverified
