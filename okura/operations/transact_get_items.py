"""TransactGetItems: up to 100 Gets read from one committed state."""
from __future__ import annotations

import orjson

from okura import errors, expressions
from okura.core import table_lookup, transactions
from okura.core.catalog import Table
from okura.core.context import Context
from okura.operations.shared.single_item import placeholders
from okura.values import key_rules, validation


async def handle(ctx: Context, body: dict) -> dict:
    targets: list[tuple[Table, dict]] = []
    projections: list[expressions.Projection | None] = []
    refused: dict[int, errors.DynamoError] = {}
    for i, entry in enumerate(body["TransactItems"]):
        get = entry["Get"]
        key = get["Key"]
        validation.check_item(key)
        names = placeholders(get, ("ProjectionExpression",))
        text = get.get("ProjectionExpression")
        projections.append(None if text is None else expressions.projection(text, names))
        names.finish()
        table = await table_lookup.serving_table(ctx, get["TableName"])
        try:
            key_rules.check_key(key, table.schema)
        except errors.DynamoError as error:
            refused[i] = error  # a ValidationError reason, not a ValidationException (recorded)
            continue
        targets.append((table, key))
    if refused:
        raise errors.transaction_canceled([transactions.reason(refused.get(i))
                                           for i in range(len(body["TransactItems"]))])
    if len({(table.id, *table.locate(key)) for table, key in targets}) < len(targets):
        raise errors.validation(  # a ValidationException (recorded); its wording unverified
            "Transaction request cannot include multiple operations on one item")
    docs = await transactions.transact_get(ctx, targets)
    responses: list[dict] = []
    for projection, doc in zip(projections, docs):
        if doc is None:
            responses.append({})
        else:
            item = orjson.loads(doc)
            responses.append({"Item": item if projection is None
                              else expressions.project(projection, item)})
    out: dict = {"Responses": responses}
    capacity = ctx.ledger.consumed(body.get("ReturnConsumedCapacity"), named=True)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
