"""Keeping vector indexes: the write hook that stores each item's row in its index's row
space (in the write's transaction) and the per-database state, `Vectors`, that holds
each index's vectors in memory for searches.

The rows in storage are the truth, on every backend; the in-memory Matrix of an index is
loaded from them on its first search (float32 bytes copied, no item decoded) and then
follows this process's writes, applied once their unit has committed. While a load is
under way, committed changes queue and are replayed after it (replaying one the load
already saw changes nothing). Matrices are keyed by the index's row space id, which a
deleted and re-created index does not share; a table document without the index drops
its matrix. On storage several nodes share, each write also notes the key in the
index's change log, from which a node catches up before each search (changes.py).
"""
from __future__ import annotations

import asyncio
import math
from functools import partial
from typing import TYPE_CHECKING

from okura.core import features, write_hooks
from okura.core.spaces import vector_log_of
from okura.core.vectors import changes
from okura.core.vectors.definitions import VectorIndex, of_table
from okura.core.vectors.matrix import Matrix
from okura.storage import keys
from okura.storage.engine import Transaction, doc_of

if TYPE_CHECKING:
    from okura.core.catalog import Table

LOAD_CHUNK = 4096  # rows per storage read while loading a matrix


@features.register
class Vectors(features.Feature):
    def __init__(self, db) -> None:
        super().__init__(db)
        self._matrices: dict[int, Matrix] = {}  # by index row space id
        self._loading: dict[int, list[tuple[bytes, bytes | None]]] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._ids: dict[int, frozenset[int]] = {}  # table id -> its vector index ids
        # on shared storage, by index id: the clock at the last catch-up and trim
        self._synced: dict[int, float] = {}
        self._trimmed: dict[int, float] = {}

    def notice(self, table: Table) -> None:
        ids = frozenset(index.id for index in of_table(table))
        for gone in self._ids.get(table.id, frozenset()) - ids:
            self.forget(gone)
        if ids:
            self._ids[table.id] = ids
        else:
            self._ids.pop(table.id, None)

    async def drop(self, unit: Transaction, table: Table) -> None:
        """Its indexes' change logs go with their rows."""
        for index in of_table(table):
            await unit.drop_rows(vector_log_of(index.id))

    def forget(self, index_id: int) -> None:
        self._matrices.pop(index_id, None)
        self._synced.pop(index_id, None)
        self._trimmed.pop(index_id, None)
        self._loading.pop(index_id, None)
        self._locks.pop(index_id, None)

    def committed(self, index: VectorIndex, key: bytes, row: bytes | None) -> None:
        """A committed write changed `key`'s row (None: removed)."""
        matrix = self._matrices.get(index.id)
        if matrix is not None:
            _apply(matrix, index, key, row)
        else:
            queued = self._loading.get(index.id)
            if queued is not None:
                queued.append((key, row))

    async def matrix(self, index: VectorIndex) -> Matrix:
        """The index's vectors, loaded from storage the first time (and, on shared
        storage, caught up with the other nodes' writes: changes.py)."""
        found = self._matrices.get(index.id)
        if found is not None and not self.db.engine.shared:
            return found
        lock = self._locks.setdefault(index.id, asyncio.Lock())
        async with lock:
            found = self._matrices.get(index.id)
            if found is not None and self.db.engine.shared:
                found = await self._catch_up(index, found)
            if found is None:
                self._synced[index.id] = self.db.clock.now()
                found = await self._load(index)
        return found

    async def _catch_up(self, index: VectorIndex, matrix: Matrix) -> Matrix | None:
        """Apply the rows other nodes changed since the last catch-up; None when that is
        too long ago for the log (the caller loads the index anew)."""
        now = self.db.clock.now()
        synced = self._synced.get(index.id, -math.inf)
        if not 0 <= now - synced < changes.RETAIN - changes.WINDOW:
            self._matrices.pop(index.id, None)
            return None
        engine = self.db.engine
        written = await changes.since(engine, index.id, synced - changes.WINDOW)
        if written:
            async with engine.reader() as unit:
                for hk, rk in written:
                    row = await unit.get(index.id, hk, rk)
                    _apply(matrix, index, keys.terminated(hk) + rk, doc_of(row))
        self._synced[index.id] = now
        if now - self._trimmed.get(index.id, -math.inf) > changes.WINDOW:
            self._trimmed[index.id] = now
            await changes.trim(engine, index.id, now - changes.RETAIN)
        return matrix

    async def _load(self, index: VectorIndex) -> Matrix:
        queued: list[tuple[bytes, bytes | None]] = []
        self._loading[index.id] = queued
        try:
            engine = self.db.engine
            async with engine.reader() as unit:
                count = (await unit.table_stats(index.id))[0]
            matrix = Matrix(index.dims, index.distance, index.names, count)
            after = None
            while True:
                async with engine.reader() as unit:
                    rows = await unit.scan(index.id, after, None, None, LOAD_CHUNK)
                vectors, values = index.parse_many([doc for _, _, _, doc in rows])
                matrix.extend([keys.terminated(hk) + rk for hk, rk, _, _ in rows], vectors,
                              values)
                if len(rows) < LOAD_CHUNK:
                    break
                after = (rows[-1][0], rows[-1][1])
            for key, row in queued:
                _apply(matrix, index, key, row)
        finally:
            self._loading.pop(index.id, None)
        if index.id in self._locks:  # not forgotten meanwhile
            self._matrices[index.id] = matrix
        return matrix


async def store_item(unit, table: Table, hk: bytes, rk: bytes, item: dict) -> None:
    """Store an item's rows in its table's vector indexes, outside the write loop (a
    restore filling a table nothing serves yet)."""
    for index in of_table(table):
        row = index.row(item)
        if row is not None:
            await unit.put(index.id, hk, rk, len(row), row)


def _apply(matrix: Matrix, index: VectorIndex, key: bytes, row: bytes | None) -> None:
    if row is None:
        matrix.remove(key)
    else:
        vector, values = index.parse(row)
        matrix.put(key, vector, values)


class _Hook(write_hooks.Hook):
    """Every write moves the item's row in each vector index of its table, and charges
    the bytes replicated (VectorWriteRequestBytes) when an indexed or projected
    attribute changed."""

    name = "vectors"
    checks = True

    def state(self, table: Table) -> list[VectorIndex] | None:
        return of_table(table) or None

    def check(self, indexes: list[VectorIndex], new: dict) -> None:
        for index in indexes:
            index.check(new)

    async def store(self, indexes: list[VectorIndex], write: write_hooks.ItemWrite) -> None:
        old, new = write.old, write.new
        vectors = write.db.features[Vectors]
        shared = write.db.engine.shared
        for index in indexes:
            before, after = index.row(old), index.row(new)
            if before is not None or after is not None:
                if after is None:
                    await write.unit.delete(index.id, write.hk, write.rk)
                else:
                    await write.unit.put(index.id, write.hk, write.rk, len(after), after)
            changed = before != after or (after is not None and (
                index.projection(old or {}) != index.projection(new or {})))
            if changed and write.ledger is not None:
                shown = new if after is not None else old
                assert shown is not None
                write.ledger.vector(write.table, index.name, index.write_bytes(shown))
            if before != after:
                if shared:
                    await changes.note(write.unit, index.id, write.now, write.hk, write.rk)
                key = keys.terminated(write.hk) + write.rk
                write.after.append(partial(vectors.committed, index, key, after))


write_hooks.register(_Hook())
