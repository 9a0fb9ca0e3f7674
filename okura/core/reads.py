"""Reading many items: the one entry point of Query, Scan and PartiQL SELECT.

A `Source` is the row space a read walks: a table's items, or an index's entries
(see core/indexes.py for their layout). A `Walk` says which rows: some partitions
in order, each between two sort-key byte bounds (`sort_range` turns a key condition
into them: a Query reads one, a PartiQL SELECT those its WHERE names), or a Scan of
partitions in hash order, optionally one parallel-scan segment of the hash space.
`read` takes its storage unit, resumes after a start position, stops at Limit rows
or once the rows read reach 1 MB (DynamoDB counts that before any filter), fetches
rows in bounded batches so a large partition is never loaded whole, and charges the
request's ledger for what it read. Rows come back undecoded: the operation decodes
only what its filter, projection or LastEvaluatedKey needs.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Awaitable, Callable, NamedTuple

import orjson

from okura.core.catalog import Table
from okura.core.consistency import views
from okura.core.consistency.lag import Lag
from okura.core.context import Context
from okura.core.indexes import Index
from okura.core.throughput import Throughput
from okura.storage import keys
from okura.storage.engine import Transaction

PAGE_BYTES = 1024 * 1024  # DynamoDB's 1 MB per Query or Scan page
_BATCH = 256  # rows fetched per engine call while no Limit is nearer
_SIZE, _DOC = itemgetter(-2), itemgetter(-1)  # of an engine's query or scan row


class Source:
    """A table or one of its indexes, as a read sees it."""

    __slots__ = ("table", "index", "id", "hash_keys", "range_keys", "key_names")

    def __init__(self, table: Table, index: Index | None = None) -> None:
        self.table = table
        self.index = index
        if index is None:
            self.id = table.id
            self.hash_keys = table.schema[:1]
            self.range_keys = table.schema[1:]
            self.key_names: tuple[str, ...] = table.key_names
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
        located = self.index.locate(key, *table.locate(key))
        assert located is not None  # the key holds the index key attributes
        return located

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


class Walk(NamedTuple):
    """The rows a read walks: `partitions` (their hk, in order) each with lo <= rk < hi
    (None: no bound), in rk order or reversed; or, with `partitions` None, a Scan of
    hk_lo <= hk < hk_hi."""
    partitions: list[bytes] | None
    lo: bytes | None = None
    hi: bytes | None = None
    forward: bool = True
    hk_lo: bytes | None = None
    hk_hi: bytes | None = None


class Page(NamedTuple):
    """Rows read for one request: their stored docs (the table items behind them when
    `read` fetched), how many rows were read (ScannedCount), and, when the read stopped
    early (at Limit or 1 MB), where: the last row's doc (for LastEvaluatedKey) and its
    position (the partition's place in the walk, hk, rk). What they cost is charged to
    the request's ledger."""
    docs: list[bytes]
    scanned: int
    last: bytes | None = None
    position: tuple[int, bytes, bytes] | None = None


async def read(ctx: Context, source: Source, walk: Walk, limit: int | None, consistent: bool,
               start: tuple[int, bytes, bytes] | None = None, fetch: bool = False) -> Page:
    """One page of `walk` from `source`, after the `start` position (a Page's).
    `fetch`: the rows are entries of a local secondary index, and the reply needs
    attributes it does not hold: return the table items behind them (each fetch is
    its own read, rounded up to 4 KB: developer guide, "Local secondary indexes")."""
    docs: list[bytes] = []
    size = 0
    last = position = None
    partitions = walk.partitions
    hk = partitions[0] if partitions and len(partitions) == 1 else None
    gate = ctx.db.features[Throughput]
    throttling = gate.on
    spent = len(ctx.ledger.charges)
    if throttling:
        gate.admit(ctx, source.table, hk, False, source.index)
    async with ctx.db.engine.reader() as unit:
        if partitions is None:
            after = None if start is None else start[1:]
            docs, size, last, position = await _collect(
                unit.scan, (source.id, after, walk.hk_lo, walk.hk_hi), limit, 0)
        else:
            for place in range(0 if start is None else start[0], len(partitions)):
                hk, lo, hi = partitions[place], walk.lo, walk.hi
                if start is not None and place == start[0]:
                    lo, hi = next_range(start[2], lo, hi, walk.forward)
                if lo is not None and hi is not None and lo >= hi:
                    continue
                more, more_size, last, position = await _collect(
                    unit.query, (source.id, hk, lo, hi, walk.forward),
                    None if limit is None else limit - len(docs), place, hk,
                    PAGE_BYTES - size)
                docs += more
                size += more_size
                if position is not None:
                    break
        lag = ctx.db.features[Lag]
        if lag.on and not consistent:  # what an eventual reader sees
            hidden = lag.hidden(source.table.id, ctx.clock.now())
            if hidden:
                docs, last, position = views.page(hidden, source, walk, limit, start, docs,
                                                  last, position)
        scanned = len(docs)
        if fetch:
            docs = await _fetch(ctx, unit, source.table, docs, consistent)
    searched = 1 if partitions is not None else _searched(
        source.table, walk, None if start is None else start[1],
        None if position is None else position[1])
    ctx.ledger.read(source.table, hk, size, consistent, source.index, least=searched)
    if throttling:
        gate.spend(ctx.ledger, spent)
    return Page(docs, scanned, last, position)


def partitions_of(table: Table) -> int:
    """How many partitions DynamoDB gives a table: one per 3,000 read or 1,000 write
    units of its warm throughput (4 for a new table)."""
    warm = table.doc.get("WarmThroughput") or {}
    return max(1, -(-warm.get("ReadUnitsPerSecond", 0) // 3000),
               -(-warm.get("WriteUnitsPerSecond", 0) // 1000))


def _searched(table: Table, walk: Walk, after: bytes | None, stopped: bytes | None) -> int:
    """The partitions a Scan page searched, from where it started to where it stopped
    (the end of its segment when it did not stop early): DynamoDB charges a Scan at
    least a read unit for each, even when they hold nothing (developer guide, "DynamoDB
    read and write operations"; a Scan of a one-item table costs 4 units)."""
    count = partitions_of(table)

    def hashed(hk: bytes) -> int:  # a partition key's place in the hash space
        return int.from_bytes(hk[:keys.HASH_BYTES], "big")

    first = hashed(after) if after is not None else (
        hashed(walk.hk_lo) if walk.hk_lo is not None else 0)
    last = hashed(stopped) if stopped is not None else (
        hashed(walk.hk_hi) - 1 if walk.hk_hi is not None else (1 << 8 * keys.HASH_BYTES) - 1)
    bits = 8 * keys.HASH_BYTES
    return (last * count >> bits) - (first * count >> bits) + 1


def next_range(rk: bytes, lo: bytes | None, hi: bytes | None,
               forward: bool) -> tuple[bytes | None, bytes | None]:
    """The next-key rule: what is left of [lo, hi) after row `rk` in walking order
    (rk + 0x00 is the next byte string up)."""
    return (rk + b"\x00", hi) if forward else (lo, rk)


async def _collect(call: Callable[..., Awaitable[list[tuple]]], arguments: tuple,
                   limit: int | None, place: int, hk: bytes | None = None,
                   budget: int = PAGE_BYTES
                   ) -> tuple[list[bytes], int, bytes | None, tuple[int, bytes, bytes] | None]:
    """(docs, summed sizes, last doc, position) of rows from `call(*arguments, want)`
    (an engine's scan, or its query of partition `hk`) in batches, until Limit rows,
    `budget` bytes of them (what is left of the page's 1 MB; then the last row's doc and
    position say where it stopped) or the end. Each batch resumes past the last row."""
    docs: list[bytes] = []
    size = 0
    scan = hk is None
    while True:
        want = _BATCH if limit is None else min(_BATCH, limit - len(docs))
        rows = await call(*arguments, want)
        more = sum(map(_SIZE, rows))
        if size + more < budget and (limit is None or len(docs) + len(rows) < limit):
            docs += map(_DOC, rows)  # the whole batch, without a step per row
            size += more
        else:
            for row in rows:
                docs.append(row[-1])
                size += row[-2]
                if size >= budget or len(docs) == limit:
                    return docs, size, row[-1], (place, *(row[:2] if scan else (hk, row[0])))
        if len(rows) < want:
            return docs, size, None, None
        last = rows[-1]
        if scan:
            arguments = (arguments[0], last[:2], *arguments[2:])
        else:
            _, _, lo, hi, forward = arguments
            arguments = (arguments[0], hk, *next_range(last[0], lo, hi, forward), forward)


async def _fetch(ctx: Context, unit: Transaction, table: Table, entries: list[bytes],
                 consistent: bool) -> list[bytes]:
    """The stored table item behind each index entry (skipping those gone since), each
    charged as its own read."""
    docs = []
    for doc in entries:
        hk, rk = table.locate(orjson.loads(doc))
        row = await unit.get(table.id, hk, rk)
        if row is not None:
            ctx.ledger.read(table, hk, row[0], consistent)
            docs.append(row[1])
    return docs
