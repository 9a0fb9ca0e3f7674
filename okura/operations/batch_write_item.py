"""BatchWriteItem: up to 25 puts and deletes across tables. Every request is checked
before anything is written; then each is its own single-item write, as in DynamoDB
(not a transaction: a later failure leaves earlier writes in place)."""
from __future__ import annotations

from okura import errors, shapes
from okura.core import index_entries, items
from okura.operations import table_rules, write_actions
from okura.operations.batch_keys import DistinctKeys
from okura.operations.single_item import (active_table, capacity_reply, item_collection_metrics,
                                          write_units)
from okura.values import key_rules, sizes, validation

MAX_REQUESTS = 25


async def _checked(request, body: dict) -> list[tuple]:
    """(table, key, item or None) per write request, in request order, after every rule."""
    request_items = body["RequestItems"]
    if sum(len(writes) for writes in request_items.values()) > MAX_REQUESTS:
        raise errors.validation("Too many items requested for the BatchWriteItem call")
    planned = []
    for name, writes in request_items.items():
        table = await active_table(request, table_rules.table_name(name))
        distinct = DistinctKeys(table)
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
                sizes.check_item_size(item)
                if table.indexes:
                    index_entries.check(table, item)
                key = table.key_of(item)
            else:
                item, key = None, delete["Key"]
                validation.check_item(key)
                key_rules.check_key(key, table.schema)
            distinct.add(key)
            planned.append((table, key, item))
    return planned


async def handle(request, body: dict) -> dict:
    shapes.check("BatchWriteItem", body)
    planned = await _checked(request, body)
    db = request.app.db
    mode = body.get("ReturnConsumedCapacity")
    units: dict[str, float] = {}
    index_units: dict[str, dict] = {}
    metrics: dict[str, list] = {}
    for table, key, item in planned:
        change = (write_actions.put(table, item, None, body) if item is not None
                  else write_actions.delete(table, key, None, body))
        written = await items.write(db, change)
        if mode in ("TOTAL", "INDEXES"):  # each write billed as its PutItem/DeleteItem
            spent, indexes = write_units(table, written.old, written.new)
            units[table.name] = units.get(table.name, 0.0) + spent
            per_index = index_units.setdefault(table.name, {})
            for index, index_spent in indexes:
                per_index[index] = per_index.get(index, 0.0) + index_spent
        collection = item_collection_metrics(table, body, key, written.collection_size)
        if collection is not None:
            metrics.setdefault(table.name, []).append(collection)
    out: dict = {"UnprocessedItems": {}}
    if mode in ("TOTAL", "INDEXES"):
        tables = {table.name: table for table, _, _ in planned}
        out["ConsumedCapacity"] = [
            capacity_reply(tables[name], mode, total, list(index_units[name].items()))
            for name, total in units.items()]
    if body.get("ReturnItemCollectionMetrics") == "SIZE":
        out["ItemCollectionMetrics"] = metrics
    return out
