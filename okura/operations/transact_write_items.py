"""TransactWriteItems: up to 100 Put, Update, Delete and ConditionCheck actions on
distinct items, applied all or nothing, optionally idempotent by client token."""
from __future__ import annotations

import orjson

from okura import errors, shapes
from okura.core import transactions
from okura.operations import write_actions
from okura.operations.single_item import index_write_units, item_collection_metrics
from okura.operations.transact_capacity import READ, WRITE, Tally, write_units
from okura.values import sizes

MAX_REQUEST_BYTES = 4 * 1024 * 1024


async def handle(request, body: dict):
    shapes.check("TransactWriteItems", body)
    actions = [await write_actions.from_request(request, entry) for entry in body["TransactItems"]]
    write_actions.check_unique(actions)
    if sum(sizes.item_size(action.change.key) for action in actions) > MAX_REQUEST_BYTES:
        raise errors.validation("Transaction request cannot be larger than 4 MB")  # unverified
    return await run(request, body, "TransactWriteItems", body["TransactItems"], actions)


async def run(request, body: dict, operation: str, parameters, actions: list) -> dict:
    """Run write actions as one transaction, honouring ClientRequestToken; shared with
    ExecuteTransaction. `parameters` is what a repeat of the token must match."""
    db = request.app.db
    token = body.get("ClientRequestToken")
    key = None
    if token is not None:
        key = f"{operation}/{request.region}/{token}"
        replayed = await transactions.claim(db, key, transactions.digest(parameters))
        if replayed is not None:
            return _replay(body, replayed)
    def outcome(written) -> bytes:
        # What a replay reports: each item's table and size as the transaction left
        # it (a replay is billed as reading them).
        return orjson.dumps([[action.change.table.name, sizes.item_size(new) if new else 0]
                             for action, (_, new) in zip(actions, written)])

    written = await transactions.write(db, [action.change for action in actions], key, outcome)
    tally, metrics = Tally(), {}
    for action, done in zip(actions, written):
        change = action.change
        # index entries follow at the standard rate: they are not part of the transaction
        # (unverified)
        tally.add(change.table.name, write_units(done.old, done.old if action.check else done.new),
                  () if action.check else index_write_units(change.table, done.old, done.new))
        collection = None if action.check else item_collection_metrics(
            change.table, body, change.key, done.collection_size)
        if collection is not None:
            metrics.setdefault(change.table.name, []).append(collection)
    out = _reply(tally.reply(body, WRITE))
    if body.get("ReturnItemCollectionMetrics") == "SIZE":
        out["ItemCollectionMetrics"] = metrics
    return out


def _replay(body: dict, outcome: bytes) -> dict:
    tally = Tally()
    for name, size in orjson.loads(outcome):
        tally.add(name, sizes.read_units(size, consistent=True))
    return _reply(tally.reply(body, READ))


def _reply(capacity: list | None) -> dict:
    return {} if capacity is None else {"ConsumedCapacity": capacity}
