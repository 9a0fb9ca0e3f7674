"""Reading many items: what Query and Scan read, as byte ranges over stored rows.

A `Source` is the row space a read walks: a table's items, or an index's entries
(see core/indexes.py for their layout). A Query reads one partition of it between
two sort-key byte bounds (`sort_range` turns a key condition into them); a Scan
reads partitions in hash order, optionally one parallel-scan segment of the hash
space. Both stop at Limit rows or once the rows read reach 1 MB (DynamoDB counts
that before any filter), fetching rows in bounded batches so a large partition is
never loaded whole. Rows come back undecoded: the operation decodes only what its
filter, projection or LastEvaluatedKey needs.
"""
from __future__ import annotations

from typing import NamedTuple

from okura.core.catalog import Table
from okura.core.indexes import Index
from okura.storage import keys

PAGE_BYTES = 1024 * 1024  # DynamoDB's 1 MB per Query or Scan page
_BATCH = 256  # rows fetched per engine call while no Limit is nearer


class Source:
    """A table or one of its indexes, as a read sees it."""

    __slots__ = ("table", "index", "id", "hash_keys", "range_keys", "key_names")

    def __init__(self, table: Table, index: Index | None = None):
        self.table = table
        self.index = index
        if index is None:
            self.id = table.id
            self.hash_keys = table.schema[:1]
            self.range_keys = table.schema[1:]
            self.key_names = table.key_names
        else:
            self.id = index.id
            self.hash_keys = index.hash_keys
            self.range_keys = index.range_keys
            # An index position is its own key plus the table key (which may share names).
            self.key_names = tuple(dict.fromkeys(index.key_names + list(table.key_names)))

    def partition(self, values: list[dict]) -> bytes:
        """hk of the partition holding these HASH attribute values."""
        if self.index is None:
            type_ = self.hash_keys[0][1]
            return keys.partition(type_, values[0][type_])
        return self.index.partition(values)

    def position(self, key: dict) -> tuple[bytes, bytes]:
        """(hk, rk) of the row a full key (index key plus table key) names; the key's
        attributes are present and of the schema's types."""
        table = self.table
        if self.index is None:
            return table.locate(key)
        return self.index.locate(key, *table.locate(key))

    def last_key(self, item: dict) -> dict:
        """LastEvaluatedKey of a row: its key attributes, as DynamoDB returns them."""
        return {name: item[name] for name in self.key_names}


def sort_range(range_keys: list[tuple[str, str]], equal: list[dict], op: str | None,
               operands: tuple[dict, ...]) -> tuple[bytes | None, bytes | None]:
    """[lo, hi) over rk bytes for sort-key conditions: `equal` values for the leading
    RANGE attributes, then `op` ("=", "<", "<=", ">", ">=", "BETWEEN", "begins_with")
    with its operand values on the next one, or op None. Each value's bytes are
    terminated, so "all rows starting with these bytes" is exactly the rows holding
    these values, whatever table key an index row appends."""
    prefix = b"".join(keys.sort_key(type_, value[type_])
                      for (_, type_), value in zip(range_keys, equal))
    if op is None:
        return (prefix or None), (keys.prefix_end(prefix) if prefix else None)
    type_ = range_keys[len(equal)][1]
    first = prefix + keys.sort_key(type_, operands[0][type_])
    if op == "=":
        return first, keys.prefix_end(first)
    if op == "begins_with":
        # A value starts with s exactly when its escaped bytes start with s's escaped
        # bytes: the terminated encoding without its two-byte terminator.
        start = first[:-2]
        return (start or None), keys.prefix_end(start) if start else None
    below = prefix or None
    above = keys.prefix_end(prefix) if prefix else None
    if op == "<":
        return below, first
    if op == "<=":
        return below, keys.prefix_end(first)
    if op == ">":
        return keys.prefix_end(first), above
    if op == ">=":
        return first, above
    if op == "BETWEEN":
        return first, keys.prefix_end(prefix + keys.sort_key(type_, operands[1][type_]))
    raise ValueError(f"not a sort-key operator: {op!r}")


class Page(NamedTuple):
    """Rows read for one request: their stored docs, their summed sizes, and whether
    the read stopped early (at Limit or 1 MB), so a LastEvaluatedKey is due."""
    docs: list[bytes]
    size: int
    stopped: bool


async def query(unit, source: Source, hk: bytes, lo: bytes | None, hi: bytes | None,
                forward: bool, limit: int | None) -> Page:
    """Rows of one partition with lo <= rk < hi, in rk order (reversed unless forward)."""

    async def fetch(want: int, last: tuple | None) -> list:
        nonlocal lo, hi
        if last is not None:  # resume past the last row: rk + 0x00 is the next string up
            if forward:
                lo = last[0] + b"\x00"
            else:
                hi = last[0]
        return await unit.query(source.id, hk, lo, hi, forward, want)

    return await _collect(fetch, limit)


async def scan(unit, source: Source, after: tuple[bytes, bytes] | None, hk_lo: bytes | None,
               hk_hi: bytes | None, limit: int | None) -> Page:
    """Rows with hk_lo <= hk < hk_hi after the `after` position, in (hk, rk) order."""

    async def fetch(want: int, last: tuple | None) -> list:
        return await unit.scan(source.id, after if last is None else last[:2], hk_lo, hk_hi, want)

    return await _collect(fetch, limit)


async def _collect(fetch, limit: int | None) -> Page:
    """Rows from `fetch(want, last_row)` (rows ending in size, doc) in batches, until
    Limit rows, 1 MB of them, or the end."""
    docs: list[bytes] = []
    size = 0
    last = None
    while True:
        want = _BATCH if limit is None else min(_BATCH, limit - len(docs))
        rows = await fetch(want, last)
        for row in rows:
            docs.append(row[-1])
            size += row[-2]
            if size >= PAGE_BYTES or len(docs) == limit:
                return Page(docs, size, True)
        if len(rows) < want:
            return Page(docs, size, False)
        last = rows[-1]


async def table_items(unit, table: Table, entries: list[dict]) -> list[bytes | None]:
    """The stored table item behind each index entry, for attributes a local
    secondary index does not project (None: the item is gone since)."""
    return [await unit.get(table.id, *table.locate(entry)) for entry in entries]
