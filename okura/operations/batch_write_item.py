"""BatchWriteItem: up to 25 puts and deletes across tables. Every request is checked
before anything is written; then all are written in one storage transaction (no
request can refuse once checked, so this is DynamoDB's outcome at one commit's cost)."""
from __future__ import annotations

from typing import Awaitable

from okura import errors
from okura.core import index_entries, items, table_lookup
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.faults import Faults
from okura.core.throughput import Throughput
from okura.operations.shared import write_actions
from okura.operations.shared.batch_keys import DistinctKeys
from okura.operations.shared.single_item import item_collection_metrics
from okura.values import fast_path, key_rules, sizes, validation

MAX_REQUESTS = 25
# A write request once checked: (table, key, item or None (a delete), the item's size
# or None, its storage key or None).
Planned = tuple[Table, dict, dict | None, int | None, tuple[bytes, bytes] | None]


def _plain(ctx: Context, body: dict) -> list[Planned] | None:
    """The planned writes of a batch in its commonest form (only RequestItems, flat
    items and plain keys, distinct, on tables this process holds), checked as
    _checked() checks them; None sends the batch the general way, for its errors."""
    request_items = body.get("RequestItems")
    if len(body) != 1 or type(request_items) is not dict or not request_items or sum(
            len(writes) for writes in request_items.values() if type(writes) is list
    ) > MAX_REQUESTS:
        return None
    checked: list[tuple[Table, dict | None, dict | None, int | None]] = []
    pending: list[tuple[dict, str]] = []  # numbers to normalise (values/fast_path.py)
    for name, writes in request_items.items():
        table = table_lookup.cached_serving_table(ctx, name)
        if table is None or type(writes) is not list or not writes:
            return None
        for write in writes:
            if type(write) is not dict or len(write) != 1:
                return None
            put, delete = write.get("PutRequest"), write.get("DeleteRequest")
            if type(put) is dict and len(put) == 1:
                item = put.get("Item")
                size = fast_path.sized_item(item, pending)
                if size is None or size > sizes.MAX_ITEM_SIZE:
                    return None
                assert item is not None  # sized_item() took it: a dict
                if not fast_path.has_plain_keys(item, table.schema, pending):
                    return None
                checked.append((table, None, item, size))
            elif type(delete) is dict and len(delete) == 1 and fast_path.is_plain_key(
                    delete.get("Key"), table.schema, pending):
                checked.append((table, delete["Key"], None, None))
            else:
                return None
    fast_path.normalize(pending)  # every request is plain: its keys can be located now
    planned: list[Planned] = []
    seen = set()
    for table, key, item, size in checked:
        if item is not None:
            if table.indexes:
                try:
                    index_entries.check_keys(table, item)
                except errors.DynamoError:
                    return None
            key = table.key_of(item)
        assert key is not None  # a delete's, or the put item's
        at = table.locate(key)
        if (table.id, at) in seen:
            return None
        seen.add((table.id, at))
        planned.append((table, key, item, size, at))
    return planned


async def _checked(ctx: Context, body: dict) -> list[Planned]:
    """(table, key, item or None, item size or None, None) per write request, in
    request order, after every rule (the last: its storage key, which _plain() knows)."""
    request_items = body["RequestItems"]
    if not request_items:
        raise errors.validation("The requestItems parameter is required for BatchWriteItem")
    if sum(len(writes) for writes in request_items.values()) > MAX_REQUESTS:
        raise errors.validation("Too many items requested for the BatchWriteItem call")
    planned: list[Planned] = []
    per_table: dict[int, DistinctKeys] = {}
    for name, writes in request_items.items():
        table = await table_lookup.serving_table(ctx, name)
        # One table named twice (by name and by ARN) is still one table.
        distinct = per_table.setdefault(table.id, DistinctKeys(table))
        for write in writes:
            put, delete = write.get("PutRequest"), write.get("DeleteRequest")
            if (put is None) == (delete is None):
                raise errors.validation(  # unverified
                    "One or more parameter values were invalid: A WriteRequest must contain "
                    "exactly one of PutRequest or DeleteRequest")
            if put is not None:
                item = put["Item"]
                validation.check_item(item)
                key_rules.check_item_keys(item, table.schema)
                size = sizes.check_item_size(item)
                if table.indexes:
                    index_entries.check_keys(table, item)
                key = table.key_of(item)
            else:
                item, key, size = None, delete["Key"], None
                validation.check_item(key)
                key_rules.check_key(key, table.schema)
            distinct.add(key)
            planned.append((table, key, item, size, None))
    return planned


def fast(ctx: Context, body: dict) -> Awaitable[dict] | None:
    """A batch in its commonest form (_plain), known valid (None: any other)."""
    planned = _plain(ctx, body)
    return None if planned is None else _write(ctx, body, planned)


async def handle(ctx: Context, body: dict) -> dict:
    return await _write(ctx, body, await _checked(ctx, body))


async def _write(ctx: Context, body: dict, planned: list[Planned]) -> dict:
    unprocessed: dict = {}
    faults = ctx.db.features[Faults]
    if faults.rules:  # injected faults (core/faults.py) may leave writes undone
        planned, unprocessed = faults.unprocessed_writes(ctx, body, planned)
    metrics: dict[str, list] = {}
    gate = ctx.db.features[Throughput]
    if gate.on:
        planned = _admitted(ctx, gate, planned, unprocessed)
    changes = [write_actions.put_change(table, item, None, body, size, at) if item is not None
               else write_actions.delete_change(table, key, None, body)
               for table, key, item, size, at in planned]
    for (table, key, *_), written in zip(planned, await items.write_batch(
            ctx, changes, admit=False)):
        collection = item_collection_metrics(table, body, key, written.collection_size)
        if collection is not None:
            metrics.setdefault(table.name, []).append(collection)
    out: dict = {"UnprocessedItems": unprocessed}
    # each write billed as its PutItem or DeleteItem
    capacity = ctx.ledger.consumed(body.get("ReturnConsumedCapacity"))
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    if body.get("ReturnItemCollectionMetrics") == "SIZE":
        out["ItemCollectionMetrics"] = metrics
    return out


def _admitted(ctx: Context, gate: Throughput, planned: list, unprocessed: dict) -> list:
    """The planned writes the throughput gate lets through; the others go back in
    UnprocessedItems as they were asked. Throttled whole only when every one is."""
    admitted, first = [], None
    for plan in planned:
        table, key, item, _, at = plan
        refusal = gate.admit(ctx, table, (at or table.locate(key))[0], True, raising=False)
        if refusal is None:
            admitted.append(plan)
            continue
        first = first or refusal
        unprocessed.setdefault(table.name, []).append(
            {"PutRequest": {"Item": item}} if item is not None else {"DeleteRequest": {"Key": key}})
    if first is not None and not admitted:
        raise first
    return admitted
