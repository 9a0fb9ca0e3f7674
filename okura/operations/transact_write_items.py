"""TransactWriteItems: up to 100 Put, Update, Delete and ConditionCheck actions on
distinct items, applied all or nothing, optionally idempotent by client token."""
from __future__ import annotations

import orjson

from okura import errors
from okura.core import items, table_lookup, transactions
from okura.core.context import Context
from okura.operations.shared import write_actions
from okura.operations.shared.single_item import item_collection_metrics
from okura.values import sizes

MAX_REQUEST_BYTES = 4 * 1024 * 1024


async def handle(ctx: Context, body: dict) -> dict:
    actions: list[write_actions.Action] = []
    # DynamoDB names the first refused key only: every other action's reason is None,
    # another refused one's too (issue 39, recorded)
    refused: tuple[int, errors.DynamoError] | None = None
    for i, entry in enumerate(body["TransactItems"]):
        try:
            actions.append(await write_actions.from_request(ctx, entry))
        except write_actions.KeyRefused as refusal:
            refused = refused or (i, refusal.error)
    if refused is not None:
        first, error = refused
        raise errors.transaction_canceled([transactions.reason(error if i == first else None)
                                           for i in range(len(body["TransactItems"]))])
    write_actions.check_unique(actions)
    if sum(sizes.item_size(action.change.key) for action in actions) > MAX_REQUEST_BYTES:
        # recorded: "size cannot exceed" in a ValidationException; the rest unverified
        raise errors.validation("Transaction request size cannot exceed 4 MB")
    return await run_transaction(ctx, body, "TransactWriteItems", body["TransactItems"], actions)


async def run_transaction(ctx: Context, body: dict, operation: str, parameters: object,
                          actions: list[write_actions.Action]) -> dict:
    """Run write actions as one transaction, honouring ClientRequestToken; shared with
    ExecuteTransaction. `parameters` is what a repeat of the token must match."""
    db = ctx.db
    token = body.get("ClientRequestToken")
    key = None
    if token is not None:
        key = f"{operation}/{ctx.region}/{token}"
        replayed = await transactions.claim(db, key, transactions.digest(parameters))
        if replayed is not None:
            return await _replay(ctx, body, replayed)
    def outcome(written: list[items.Written]) -> bytes:
        # What a replay reports: each item's table and size as the transaction left
        # it (a replay is billed as reading them).
        return orjson.dumps([[action.change.table.name, sizes.item_size(new) if new else 0]
                             for action, (_, new) in zip(actions, written)])

    written = await transactions.transact_write(ctx, [action.change for action in actions], key,
                                                outcome)
    metrics: dict[str, list] = {}
    for action, done in zip(actions, written):
        change = action.change
        collection = None if action.check else item_collection_metrics(
            change.table, body, change.key, done.collection_size)
        if collection is not None:
            metrics.setdefault(change.table.name, []).append(collection)
    out = _reply(ctx, body)
    if body.get("ReturnItemCollectionMetrics") == "SIZE":
        out["ItemCollectionMetrics"] = metrics
    return out


async def _replay(ctx: Context, body: dict, outcome: bytes) -> dict:
    """A repeated token's reply: billed as reading each item as the transaction left it."""
    for name, size in orjson.loads(outcome):
        table = await table_lookup.table_or_none(ctx, name)
        if table is not None:
            ctx.ledger.read(table, None, size, True)
    return _reply(ctx, body)


def _reply(ctx: Context, body: dict) -> dict:
    capacity = ctx.ledger.consumed(body.get("ReturnConsumedCapacity"), named=True)
    return {} if capacity is None else {"ConsumedCapacity": capacity}
