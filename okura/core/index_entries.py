"""Keeping secondary-index entries in step with the items they index.

Every write calls `check` on the new item before anything is stored (a wrong index
key type refuses the whole write), then `store` inside the same storage
transaction: per index, the old entry goes and the new one (projected as the
index declares) comes, only where they differ. Tables with local secondary indexes
also keep each item collection's size (`core.item_collections`) for the 10 GB limit and
ItemCollectionMetrics.
"""
from __future__ import annotations

import orjson

from okura.core import item_collections
from okura.core.capacity import Ledger
from okura.core.catalog import CREATING, DELETING, Table
from okura.core.indexes import Index
from okura.errors import DynamoError
from okura.storage.engine import Transaction
from okura.values.key_rules import check_index_keys
from okura.values.sizes import item_size


def live(table: Table) -> list[Index]:
    """The indexes writes maintain: all but those being deleted (their rows are dropped)."""
    return [index for index in table.indexes if index.status != DELETING]


def _key_schemas(index: Index) -> list[list[tuple[str, str]]]:
    """Index key attributes as check_index_keys takes them: each partition-key attribute
    in first place (the partition-key size limit), each sort-key attribute in second."""
    first = index.hash_keys[0]
    return [[part] for part in index.hash_keys] + [[first, part] for part in index.range_keys]


def check_keys(table: Table, item: dict) -> None:
    """DynamoDB's rules on the index key attributes an item carries. An index being
    created refuses nothing: "after the backfill phase completes, all writes to items
    that violate the new index key schema will be rejected" (developer guide); until
    then a violating item stays out of it (`store`)."""
    for index in live(table):
        if index.status != CREATING:
            for schema in _key_schemas(index):
                check_index_keys(item, index.name, schema)


def indexable(index: Index, item: dict) -> bool:
    """Whether a stored item obeys the index's key rules (a backfill skips those that
    do not, as DynamoDB leaves index key violations out of a new index)."""
    try:
        for schema in _key_schemas(index):
            check_index_keys(item, index.name, schema)
    except DynamoError:
        return False
    return True


def projected(index: Index, table: Table, item: dict) -> dict:
    """The attributes of `item` the index holds: its keys and the table's, plus the
    projection's non-key attributes (all of them for ALL)."""
    projection = index.projection
    kind = projection["ProjectionType"]
    if kind == "ALL":
        return item
    names = [*table.key_names, *index.key_names]
    if kind == "INCLUDE":
        names += projection["NonKeyAttributes"]
    return {name: item[name] for name in dict.fromkeys(names) if name in item}


def entry(index: Index, table: Table, item: dict, hk: bytes,
          rk: bytes) -> tuple[bytes, bytes, dict] | None:
    """(index hk, index rk, projected item) of an item's entry, None if it has none."""
    located = index.locate(item, hk, rk)
    if located is None:
        return None
    return located[0], located[1], projected(index, table, item)


async def store_entry(unit: Transaction, index: Index, found: tuple[bytes, bytes, dict]) -> int:
    """Store an entry (as `entry` found it); returns its size."""
    size = item_size(found[2])
    await unit.put(index.id, found[0], found[1], size, orjson.dumps(found[2]))
    return size


async def store(unit: Transaction, table: Table, hk: bytes, rk: bytes, old: dict | None,
                new: dict | None, old_size: int, new_size: int,
                ledger: Ledger | None) -> int | None:
    """Replace the item's entries in every live index, charging `ledger` (None: a write
    that costs nothing, TTL's) what each index's change costs; returns the size of its
    item collection after the write for tables with local secondary indexes, else None.
    `old_size` and `new_size` are the item's sizes (0 when absent)."""
    growth = new_size - old_size
    for index in live(table):
        creating = index.status == CREATING
        before = None if old is None or (creating and not indexable(index, old)) else entry(
            index, table, old, hk, rk)
        after = None if new is None or (creating and not indexable(index, new)) else entry(
            index, table, new, hk, rk)
        if before == after:
            continue
        after_size = before_size = None
        if after is not None:
            after_size = await store_entry(unit, index, after)
        moved = before is not None and (after is None or before[:2] != after[:2])
        if before is not None:
            before_size = item_size(before[2])
            if moved:
                await unit.delete(index.id, before[0], before[1])
        if ledger is not None:
            # Developer guide, "Global secondary indexes": an entry put or deleted is one
            # write of its size, a moved index key two (a delete and a put, in their own
            # partitions), a changed projection one of the larger size.
            if moved and after is not None:
                assert before is not None  # moved
                ledger.write(table, before[0], before_size or 0, index=index)
                ledger.write(table, after[0], after_size or 0, index=index)
            else:
                changed = after or before
                assert changed is not None  # they differ: not both None
                ledger.write(table, changed[0],
                             max(before_size or 0, after_size or 0), index=index)
        if not index.is_global:
            growth += (after_size or 0) - (before_size or 0)
    if not table.doc.get("LocalSecondaryIndexes"):
        return None
    return await item_collections.grow(unit, table, hk, growth)
