"""Capacity units as DynamoDB bills them, and the ledger of what one request spent.

Core charges the ledger as it does the work, where item sizes are known: every read
and write of every request, whether or not the client asked for ReturnConsumedCapacity
(the figures feed metrics, and later throttling). A reply's ConsumedCapacity is only
rendered from the ledger (`Ledger.consumed`).

The rules (developer guide, "Read/write capacity mode" and the index pages): a read
is 4 KB units of the bytes read, rounded up once per request (per item for GetItem,
BatchGetItem and transactions), and for a Scan at least one unit per partition it
searched (core/reads.py), half for an eventually consistent read; a write is
1 KB units of the larger of the old and the new item; a transaction doubles both; an
index entry written costs its own size in 1 KB units (a moved index key is a delete
and a put), outside the transaction's doubling; TTL deletions cost nothing. Vector
indexes are metered apart, in bytes (`vector`): VectorWriteRequestBytes per index a
write changed, reported under ConsumedCapacity's VectorIndexes with INDEXES
(core/vectors/maintenance.py says how many).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Tuple

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.indexes import Index

READ_UNIT = 4096
WRITE_UNIT = 1024
TOTAL, INDEXES = "TOTAL", "INDEXES"
READ, WRITE = "ReadCapacityUnits", "WriteCapacityUnits"


# Units spent on a table (index None) or one of its indexes, in one partition (hk,
# None for a read across partitions: a Scan): (table, index, hk, units, write). A plain
# tuple: one is made per item a request touches.
Charge = Tuple["Table", Optional["Index"], Optional[bytes], float, bool]


class Ledger:
    """What one request spent: its Charges, in the order it spent them."""

    __slots__ = ("charges", "vectors")

    def __init__(self) -> None:
        # a list the callers index, cut and sum directly: the gate spends from a position
        # on, a lost write's attempt is cut off
        self.charges: list[Charge] = []
        # (table id, vector index name) -> VectorWriteRequestBytes; None until one is spent
        self.vectors: dict[tuple[int, str], float] | None = None

    def vector(self, table: Table, index: str, size: int) -> None:
        """Charge `size` bytes written to a vector index."""
        if self.vectors is None:
            self.vectors = {}
        place = (table.id, index)
        self.vectors[place] = self.vectors.get(place, 0.0) + size

    def read(self, table: Table, hk: bytes | None, size: int, consistent: bool,
             index: Index | None = None, transactional: bool = False, least: int = 1) -> None:
        """Charge a read of `size` bytes at once: 4 KB units rounded up, at least `least`
        (a Scan's partitions searched); half for an eventually consistent read, double
        for a transactional one."""
        units = -(-size // READ_UNIT)
        if units < least:  # not max(): a builtin's call costs more than this test
            units = least
        self.charges.append((table, index, hk, units * 2.0 if transactional
                             else float(units) if consistent else units / 2, False))

    def write(self, table: Table, hk: bytes | None, size: int, transactional: bool = False,
              index: Index | None = None) -> None:
        """Charge a write of one item (or index entry) of `size` bytes: 1 KB units
        rounded up, at least one; double in a transaction."""
        units = -(-size // WRITE_UNIT) or 1
        self.charges.append((table, index, hk, units * 2.0 if transactional else float(units),
                             True))

    def consumed(self, mode: object, named: bool = False) -> list[dict] | None:
        """ConsumedCapacity of each table the request spent on, in order of first use,
        for the request's ReturnConsumedCapacity `mode` (None unless TOTAL or INDEXES).
        INDEXES breaks each total down into the table and its indexes (those the request
        spent on). `named` (transactions) repeats each figure as ReadCapacityUnits or
        WriteCapacityUnits, as DynamoDB reports them there."""
        if mode != TOTAL and mode != INDEXES:
            return None
        # by table id: a document reloaded mid-request is still one table (its indexes
        # by name, likewise)
        spent: dict[int, tuple[Table, dict]] = {}
        for table, index, _, units, write in self.charges:
            held = spent.get(table.id)
            if held is None:
                held = spent[table.id] = (table, {None: [0.0, 0.0]})
            parts = held[1]
            name = None if index is None else index.name
            part = parts.get(name)
            if part is None:
                part = parts[name] = [0.0, 0.0, index]
            part[write] += units
        consumed = [_consumed(table, parts, mode == INDEXES, named)
                    for table, parts in spent.values()]
        if self.vectors and mode == INDEXES:
            for (table, _), out in zip(spent.values(), consumed):
                written = {name: {"VectorWriteRequestBytes": size}
                           for (tid, name), size in self.vectors.items() if tid == table.id}
                if written:
                    out["VectorIndexes"] = written
        return consumed

    def consumed_one(self, mode: object) -> dict | None:
        """ConsumedCapacity of a request on one table (GetItem, Query, ...)."""
        consumed = self.consumed(mode)
        return consumed[0] if consumed else None


def _consumed(table: Table, parts: dict, indexes: bool, named: bool) -> dict:
    """One table's ConsumedCapacity from its parts: {None: [read, write], index name:
    [read, write, Index]}."""
    def units(read: float, write: float) -> dict:
        out = {"CapacityUnits": read + write}
        if named:
            if read:
                out[READ] = read
            if write:
                out[WRITE] = write
        return out

    read = sum(part[0] for part in parts.values())
    write = sum(part[1] for part in parts.values())
    out = {"TableName": table.name, **units(read, write)}
    if indexes:
        # unverified: whether DynamoDB also lists the indexes a write left untouched (no)
        out["Table"] = units(*parts[None])
        for name, part in parts.items():
            if name is not None:
                group = ("GlobalSecondaryIndexes" if part[2].is_global
                         else "LocalSecondaryIndexes")
                out.setdefault(group, {})[name] = units(part[0], part[1])
    return out
