"""On storage several nodes share (PostgreSQL), each vector index's change log: what
keeps one node's matrix in step with the others' writes.

Every write that changes an index's row also adds, in its own transaction, an entry
to the index's log (its row space `spaces.vector_log_of(index id)`, one partition):
its sort key is the write's clock reading in microseconds, then the item's table key.
Before a search a node reads the entries stamped since its last catch-up, less WINDOW
(a write stamped before another may commit after it), and applies each key's current
row from the index, which is the truth: applying one twice changes nothing. Entries
older than RETAIN are dropped by whichever node catches up; a node whose last catch-up
is older than that loads the index anew. A single process needs none of this: its
matrix takes every write itself.
"""
from __future__ import annotations

from okura.core.spaces import vector_log_of
from okura.storage import keys
from okura.storage.engine import Engine, Transaction

WINDOW = 5.0  # seconds of entries read again at each catch-up
RETAIN = 120.0  # seconds entries are kept
_PART = b""
_BATCH = 4096


def _micros(seconds: float) -> bytes:
    return max(0, int(seconds * 1_000_000)).to_bytes(8, "big")


async def note(unit: Transaction, index_id: int, now: float, hk: bytes, rk: bytes) -> None:
    await unit.put(vector_log_of(index_id), _PART, _micros(now) + keys.terminated(hk) + rk,
                   0, b"")


async def since(engine: Engine, index_id: int, start: float) -> set[tuple[bytes, bytes]]:
    """The (hk, rk) of the items written from `start` on."""
    found: set[tuple[bytes, bytes]] = set()
    lo = _micros(start)
    async with engine.reader() as unit:
        while True:
            rows = await unit.query(vector_log_of(index_id), _PART, lo, None, True, _BATCH)
            for rk, _, _ in rows:
                found.add(keys.split_terminated(rk[8:]))
            if len(rows) < _BATCH:
                return found
            lo = rows[-1][0] + b"\x00"


async def trim(engine: Engine, index_id: int, before: float) -> None:
    """Drop the entries stamped before `before`."""
    space = vector_log_of(index_id)
    async with engine.transaction() as unit:
        for rk, _, _ in await unit.query(space, _PART, None, _micros(before), True, _BATCH):
            await unit.delete(space, _PART, rk)
