"""Item collections of tables with local secondary indexes: their sizes and limit.

An item collection is every item of one partition key value plus their entries in
the table's local secondary indexes; DynamoDB caps it at 10 GB. Its size is kept
as a counter row, updated by every write in the write's own transaction, so the
limit check costs one row read instead of summing the partition. The counters of
table T live in row space -T.id (ids are positive, so it is T's alone and needs no
allocation), at the table's own partition key bytes; the row's document is the
size in bytes as decimal text.
"""
from __future__ import annotations

import math

from okura import errors
from okura.core import spaces
from okura.core.catalog import Table
from okura.storage.engine import Transaction, doc_of

LIMIT = 10 * 1024 ** 3
_GB = 1024 ** 3


def row_space(table: Table) -> int:
    return spaces.collections_of(table.id)


async def grow(unit: Transaction, table: Table, hk: bytes, growth: int) -> int:
    """Add `growth` bytes to the collection at `hk` and return its new size; a write
    that grows a collection past 10 GB is refused."""
    space = row_space(table)
    stored = doc_of(await unit.get(space, hk, b"", lock=True))
    size = (0 if stored is None else int(stored)) + growth
    if growth == 0:
        return size
    if growth > 0 and size > LIMIT:
        raise errors.item_collection_size_limit_exceeded()
    if size > 0:
        await unit.put(space, hk, b"", 0, str(size).encode())
    else:
        await unit.delete(space, hk, b"")
    return size


def size_range_gb(size: int) -> list[float]:
    """SizeEstimateRangeGB: the whole gigabytes below and above the collection's size
    (DynamoDB answers [0.0, 1.0] for a small collection)."""
    low = math.floor(size / _GB)
    return [float(low), float(low + 1)]
