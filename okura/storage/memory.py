"""In-memory backend (`okura serve --memory`): Python structures, nothing on disk.

Each table or index keeps its rows in dicts keyed by one bytes key per row (the
hash key bytes terminated, then the range key bytes: ordered as the pair), which
serve the point reads and writes, and a SortedList of those keys, which serves
Query and Scan. Keeping that list in order costs a few microseconds a
new key, so writes only note their new and removed keys; the first ordered read
after them files the notes in one pass (PutItem and BatchWriteItem never pay for
order, a Query after them pays once for many keys).

A unit's writes apply at once and each records how to undo itself: a unit that fails
is rolled back alone, with no journal copying pages (SQLite in memory copied a 16 KiB
page for each random insert: half of a BatchWriteItem's storage time). One process
owns everything and runs one unit at a time without suspending, so no unit sees
another half done, nothing waits for a commit, and nothing locks or conflicts.
"""
from __future__ import annotations

import heapq
from itertools import islice
from typing import Callable, Iterable

from sortedcontainers import SortedList

from okura.storage.keys import prefix_end, split_terminated, terminated


def _key(hk: bytes, rk: bytes) -> bytes:
    """One bytes key ordered as (hk, rk): the hash key terminated, then the range key
    (keys.terminated inlined: every read and write of an item passes here)."""
    return hk.replace(b"\x00", b"\x00\xff") + b"\x00\x00" + rk


# Notes of new and removed keys are filed without an ordered read once they outnumber
# twice the rows by this many (a table whose keys come and go and is never queried).
_NOTES = 1024


# A dict that grows past a power of two copies itself whole, the event loop stopped:
# 106 ms for a table's two dicts at 1.4 million rows. Rows are spread over buckets
# (dicts) by their key's hash instead, and the buckets split one at a time as the table
# grows (linear hashing): a split moves one bucket's rows once every _BUCKET new rows.
# 256 fixed shards, the first cure, filled evenly and so all outgrew their tables within
# the same second: at a million items, 512 copies of ~1 ms each in a burst, PutItem's p99
# 1.35-1.58 ms against ~0.6 at 10,000 items. A split's rows are cold in the cache at that
# size (115-190 µs for 256-row buckets): smaller buckets split more often but each delays
# its iteration less, p99 0.55-0.89 with 256 rows, 0.52-0.95 (median 0.57) with 64
# (docs/decisions.md, Storage).
_BUCKET = 64


class _Rows:
    """The rows of one table or index. Keys are bytes and the dicts hold only bytes and
    ints, which the garbage collector never tracks: with tuples, every insert re-tracked
    the whole dict and each young collection walked all of it (40 % of the CPU under
    BatchWriteItem load, by perf)."""

    __slots__ = ("docs", "sizes", "low", "split", "order", "fresh", "stale", "count", "size")

    def __init__(self):
        # bucket -> key -> the item's stored document; and its size
        self.docs: list[dict[bytes, bytes]] = [{}]
        self.sizes: list[dict[bytes, int]] = [{}]
        # Linear hashing: a round doubles the buckets from low + 1 (a power of two); those
        # below `split` have split in this round, their rows shared with bucket + low + 1.
        self.low = 0
        self.split = 0
        self.order = SortedList()  # every key once fresh and stale are filed
        self.fresh: list[bytes] = []  # keys added, not yet in order
        self.stale: set[bytes] = set()  # keys removed, still in order
        self.count = self.size = 0

    def _bucket(self, key: bytes) -> int:
        h = hash(key)
        bucket = h & self.low
        return h & (2 * self.low + 1) if bucket < self.split else bucket

    def doc(self, key: bytes) -> bytes | None:
        return self.docs[self._bucket(key)].get(key)

    def sized(self, key: bytes) -> tuple[int, bytes] | None:
        """(size, document) of a key, None if it is not there."""
        bucket = self._bucket(key)
        doc = self.docs[bucket].get(key)
        return None if doc is None else (self.sizes[bucket][key], doc)

    def row(self, key: bytes) -> tuple[int, bytes]:
        """(size, document) of a key that is there."""
        bucket = self._bucket(key)
        return self.sizes[bucket][key], self.docs[bucket][key]

    def rows(self, keys: Iterable[bytes], cut: int) -> list[tuple[bytes, int, bytes]]:
        """(key past its first `cut` bytes, size, document) of keys that are there (a
        Query's or Scan's, in order)."""
        docs, sizes, low, split = self.docs, self.sizes, self.low, self.split
        high = 2 * low + 1
        out = []
        for key in keys:  # _bucket inlined: a call per row was a fifth of this loop
            h = hash(key)
            bucket = h & low
            if bucket < split:
                bucket = h & high
            out.append((key[cut:], sizes[bucket][key], docs[bucket][key]))
        return out

    def put(self, key: bytes, size: int, doc: bytes | None) -> tuple[int, bytes | None]:
        """Set (with doc None remove) one row; the (size, doc) it replaced, (0, None) if
        none: what put() takes to undo this."""
        bucket = self._bucket(key)
        docs, sizes = self.docs[bucket], self.sizes[bucket]
        old_doc = docs.get(key)
        old_size = 0 if old_doc is None else sizes[key]
        if doc is not None:
            docs[key], sizes[key] = doc, size
            if old_doc is None:
                self.count += 1
                if key in self.stale:  # still in order: it stays there
                    self.stale.discard(key)
                else:
                    self.fresh.append(key)
                if self.count > _BUCKET * len(self.docs):
                    self._split()
        elif old_doc is not None:
            del docs[key], sizes[key]
            self.count -= 1
            self.stale.add(key)
        self.size += size - old_size
        if len(self.fresh) + len(self.stale) > 2 * self.count + _NOTES:
            self.ordered()  # keys come and go, unread in order: keep the notes bounded
        return old_size, old_doc

    def _split(self) -> None:
        """Split the next bucket of the round: the rows whose hash now names the new one
        move. Both halves are fresh dicts: a dict keeps its size when keys leave it (at a
        million rows, 104.5 MiB of dicts against 72.7)."""
        bucket, high = self.split, 2 * self.low + 1
        sizes = self.sizes[bucket]
        kept: tuple[dict[bytes, bytes], dict[bytes, int]] = ({}, {})
        moved: tuple[dict[bytes, bytes], dict[bytes, int]] = ({}, {})
        for key, doc in self.docs[bucket].items():
            into = kept if hash(key) & high == bucket else moved
            into[0][key], into[1][key] = doc, sizes[key]
        self.docs[bucket], self.sizes[bucket] = kept
        self.docs.append(moved[0])
        self.sizes.append(moved[1])
        if bucket == self.low:  # the round is over: twice the buckets
            self.low, self.split = high, 0
        else:
            self.split = bucket + 1

    def ordered(self) -> SortedList:
        """The keys in order, once the notes of the writes since the last call are filed."""
        order = self.order
        if self.fresh:
            order.update(self.fresh)
            self.fresh = []
        if self.stale:
            for key in self.stale:
                order.discard(key)
            self.stale = set()
        return order


_NONE = _Rows()  # the (empty) rows of a table that has none


class MemoryEngine:
    shared = False  # the process owns its memory
    group_commit = False  # nothing to commit
    hears_others = False  # there are none

    def __init__(self):
        self.tables: dict[int, _Rows] = {}
        self.catalog: dict[tuple[str, str], list] = {}  # (region, name) -> [id, doc, version]
        self.names: dict[int, tuple[str, str]] = {}  # table id -> (region, name)
        self.tokens: dict[str, tuple[bytes, bytes | None, float]] = {}  # (digest, outcome, expires)
        self.expiries: list[tuple[float, str]] = []  # a heap; entries outdated by later ones
        self.last_id = 0
        self._unit = _MemoryUnit(self)
        self._reader = _MemoryUnit(self)

    async def open(self) -> None:
        pass

    async def close(self) -> None:
        pass

    def watch_catalog(self, callback: Callable[[int], None]) -> None:
        """Nobody else writes this process's catalog: there is nothing to watch."""

    def after_commit(self, callback: Callable[[BaseException | None], None]) -> bool:
        return False  # a unit is complete when it ends

    def transaction(self) -> "_MemoryUnit":
        return self._unit

    def reader(self) -> "_MemoryUnit":
        return self._reader

    async def read_one(self, tid: int, hk: bytes, rk: bytes) -> tuple[int, bytes] | None:
        return self.tables.get(tid, _NONE).sized(_key(hk, rk))


class _MemoryUnit:
    """A unit (the engine's one, reused), or the reader: the same reads, and writes
    only inside a unit, where `undo` collects (function, *arguments) to run backwards
    should the unit fail."""

    __slots__ = ("engine", "undo")

    def __init__(self, engine: MemoryEngine):
        self.engine = engine
        self.undo: list[tuple] | None = None

    async def __aenter__(self) -> "_MemoryUnit":
        if self is self.engine._unit:
            if self.undo is not None:
                raise RuntimeError("storage units never nest")
            self.undo = []
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        undo = self.undo
        self.undo = None
        if exc_type is not None and undo:
            for step in reversed(undo):
                step[0](*step[1:])

    def _rows(self, tid: int) -> _Rows:
        rows = self.engine.tables.get(tid)
        if rows is None:
            rows = self.engine.tables[tid] = _Rows()
            assert self.undo is not None  # writes run inside a unit
            self.undo.append((self.engine.tables.pop, tid))
        return rows

    async def get(self, tid: int, hk: bytes, rk: bytes, lock: bool = False,
                  wait: bool = True) -> tuple[int, bytes] | None:
        return self.engine.tables.get(tid, _NONE).sized(_key(hk, rk))

    async def put(self, tid: int, hk: bytes, rk: bytes, size: int, doc: bytes) -> None:
        await self.put_many([(tid, hk, rk, size, doc)])

    async def put_many(self, rows: list[tuple[int, bytes, bytes, int, bytes]],
                       replaced: bool = False) -> list[int] | None:
        undo = self.undo
        assert undo is not None  # writes run inside a unit
        sizes = []
        held, table = None, _NONE  # the table of the rows so far (a batch's are all in one)
        for tid, hk, rk, size, doc in rows:
            if tid != held:
                held, table = tid, self._rows(tid)
            key = _key(hk, rk)
            # A copy of exactly the document's size: orjson.dumps() leaves its 1 KiB
            # buffer allocated behind a shorter document (1,057 B kept per ~260 B item).
            old = table.put(key, size, bytes(memoryview(doc)))
            undo.append((table.put, key, *old))
            sizes.append(old[0])
        return sizes if replaced else None

    async def delete(self, tid: int, hk: bytes, rk: bytes) -> None:
        rows = self.engine.tables.get(tid)
        if rows is not None:
            key = _key(hk, rk)
            old = rows.put(key, 0, None)
            if old[1] is not None:
                assert self.undo is not None  # writes run inside a unit
                self.undo.append((rows.put, key, *old))

    async def query(self, tid: int, hk: bytes, lo: bytes | None, hi: bytes | None,
                    forward: bool, limit: int) -> list[tuple[bytes, int, bytes]]:
        table, start = self.engine.tables.get(tid, _NONE), terminated(hk)
        keys = table.ordered().irange(start if lo is None else start + lo,
                                      prefix_end(start) if hi is None else start + hi,
                                      (True, False), not forward)
        return table.rows(islice(keys, max(limit, 0)), len(start))

    async def scan(self, tid: int, after: tuple[bytes, bytes] | None, hk_lo: bytes | None,
                   hk_hi: bytes | None, limit: int) -> list[tuple[bytes, bytes, int, bytes]]:
        table = self.engine.tables.get(tid, _NONE)
        # terminated() keeps order and no terminated key prefixes another, so a bound on
        # hk is the same bound on whole keys.
        low, inclusive = None if hk_lo is None else terminated(hk_lo), True
        if after is not None:
            resume = _key(*after)
            if low is None or resume >= low:
                low, inclusive = resume, False
        keys = table.ordered().irange(low, None if hk_hi is None else terminated(hk_hi),
                                      (inclusive, False))
        return [(*split_terminated(key), size, doc)
                for key, size, doc in table.rows(islice(keys, max(limit, 0)), 0)]

    async def table_stats(self, tid: int) -> tuple[int, int]:
        table = self.engine.tables.get(tid, _NONE)
        return table.count, table.size

    async def drop_rows(self, tid: int) -> None:
        rows = self.engine.tables.pop(tid, None)
        if rows is not None:
            assert self.undo is not None  # writes run inside a unit
            self.undo.append((self.engine.tables.__setitem__, tid, rows))

    async def new_id(self) -> int:
        # Not undone: an id is never handed out twice, used or not.
        self.engine.last_id += 1
        return self.engine.last_id

    async def catalog_get(self, region: str, name: str) -> tuple[int, bytes, int] | None:
        entry = self.engine.catalog.get((region, name))
        return None if entry is None else tuple(entry)

    async def catalog_regions(self) -> list[str]:
        return sorted({region for region, _ in self.engine.catalog})

    async def catalog_list(self, region: str) -> list[str]:
        return sorted(name for where, name in self.engine.catalog if where == region)

    async def catalog_insert(self, region: str, name: str, doc: bytes) -> int | None:
        if (region, name) in self.engine.catalog:
            return None
        tid = await self.new_id()
        self._set_entry(tid, (region, name), [tid, doc, 1])
        return tid

    async def catalog_update(self, tid: int, doc: bytes, expected: int | None = None) -> int | None:
        named = self.engine.names.get(tid)
        if named is None:
            return None
        version = self.engine.catalog[named][2]
        if expected is not None and version != expected:
            return None
        self._set_entry(tid, named, [tid, doc, version + 1])
        return version + 1

    async def catalog_version(self, tid: int) -> int | None:
        named = self.engine.names.get(tid)
        return None if named is None else self.engine.catalog[named][2]

    async def catalog_delete(self, tid: int) -> None:
        named = self.engine.names.get(tid)
        if named is not None:
            self._set_entry(tid, named, None)

    async def announce(self, tid: int) -> None:
        pass  # nobody else shares the memory

    def _set_entry(self, tid: int, named: tuple[str, str], entry: list | None) -> None:
        """Set (None: remove) one catalog entry, undoably."""
        assert self.undo is not None  # writes run inside a unit
        self.undo.append((self._apply_entry, tid, named, self.engine.catalog.get(named)))
        self._apply_entry(tid, named, entry)

    def _apply_entry(self, tid: int, named: tuple[str, str], entry: list | None) -> None:
        engine = self.engine
        if entry is None:
            engine.catalog.pop(named, None)
            engine.names.pop(tid, None)
        else:
            engine.catalog[named] = entry
            engine.names[tid] = named

    async def token_claim(self, key: str, digest: bytes, expires: float,
                          now: float) -> tuple[bytes, bytes | None] | None:
        tokens, expiries = self.engine.tokens, self.engine.expiries
        while expiries and expiries[0][0] <= now:
            at, expired = heapq.heappop(expiries)
            held = tokens.get(expired)
            if held is not None and held[2] == at:  # not since renewed
                self._set_token(expired, None)
        held = tokens.get(key)
        if held is not None:
            return held[0], held[1]
        self._set_token(key, (digest, None, expires))
        return None

    async def token_settle(self, key: str, outcome: bytes, expires: float) -> None:
        held = self.engine.tokens.get(key)
        if held is not None:
            self._set_token(key, (held[0], outcome, expires))

    async def token_release(self, key: str) -> None:
        self._set_token(key, None)

    def _set_token(self, key: str, held: tuple | None) -> None:
        """Set (None: forget) one token, undoably."""
        assert self.undo is not None  # writes run inside a unit
        self.undo.append((self._apply_token, key, self.engine.tokens.get(key)))
        self._apply_token(key, held)

    def _apply_token(self, key: str, held: tuple | None) -> None:
        """A token's heap entry may outlive it: the claim that pops it checks."""
        tokens = self.engine.tokens
        if held is None:
            tokens.pop(key, None)
        else:
            tokens[key] = held
            heapq.heappush(self.engine.expiries, (held[2], key))
