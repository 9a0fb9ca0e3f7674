"""The storage Engine protocol: what core needs from a backend, and nothing more.

A backend stores three things: the catalog (one document per table, per region),
item rows and (later) index rows, keyed by (table or index id, hash key bytes,
range key bytes) where the bytes come from storage/keys.py and compare as DynamoDB
compares keys. Item rows carry the item's DynamoDB size and its wire JSON.

Every method is a coroutine so that network backends (PostgreSQL) fit the same
interface. The embedded SQLite backend completes them without suspending, so a
whole request runs without yielding to the event loop.
"""
from __future__ import annotations

from typing import AsyncContextManager, Callable, Protocol


class Conflict(Exception):
    """A transaction lost a race with a concurrent one (a serialization failure or a
    deadlock reported by the database) and was rolled back: nothing of it was stored,
    and running the whole unit again is safe. Only backends with concurrent writers
    raise it, from any call or from the end of the `transaction()` block."""


class Locked(Exception):
    """`get(lock=True, wait=False)` met a row that another transaction in flight has
    locked (PostgreSQL: FOR UPDATE NOWAIT failing with lock_not_available). Nothing is
    rolled back by it; the caller ends the transaction. DynamoDB transactions do not
    queue behind each other: they fail with a TransactionConflict instead."""


def doc_of(row: tuple[int, bytes] | None) -> bytes | None:
    """The document of a row `get` returned (None for none): for reads that need no size."""
    return None if row is None else row[1]


class Transaction(Protocol):
    """A unit of reads and writes that commit together or not at all.

    Reads inside a write transaction see its own writes. `get(..., lock=True)`
    reads a row the transaction intends to change: backends with concurrent
    writers (PostgreSQL) lock it so that read-modify-write cannot lose an update.
    """

    async def get(self, tid: int, hk: bytes, rk: bytes, lock: bool = False,
                  wait: bool = True) -> tuple[int, bytes] | None:
        """(size, document) of one row, or None. With `wait` False (a transaction),
        raise Locked rather than wait for another transaction's lock on the row (or on
        the claim of an absent row): whether this read locks the row for update (`lock`)
        or, inside a transaction, holds it shared until commit. With `lock` and `wait`
        (a single-item write), wait for other single-item writes but raise Locked, with
        the unit then unusable, if a transaction (`wait` False) holds the row."""

    async def put(self, tid: int, hk: bytes, rk: bytes, size: int, doc: bytes) -> None:
        """Insert or replace one row; `size` is the item's DynamoDB size in bytes."""

    async def put_many(self, rows: list[tuple[int, bytes, bytes, int, bytes]],
                       replaced: bool = False) -> list[int] | None:
        """put() of each (tid, hk, rk, size, doc), all distinct rows, in one call. With
        `replaced`, return the size of the row each replaced (0: none), which a write
        bills when it has not read the row (the memory engine knows it for free)."""

    async def delete(self, tid: int, hk: bytes, rk: bytes) -> None:
        """Remove one row if present."""

    async def query(self, tid: int, hk: bytes, lo: bytes | None, hi: bytes | None,
                    forward: bool, limit: int) -> list[tuple[bytes, int, bytes]]:
        """(rk, size, doc) of the rows of one partition with lo <= rk < hi (None: no
        bound), in ascending rk order (descending when not `forward`), at most `limit`."""

    async def scan(self, tid: int, after: tuple[bytes, bytes] | None, hk_lo: bytes | None,
                   hk_hi: bytes | None, limit: int) -> list[tuple[bytes, bytes, int, bytes]]:
        """(hk, rk, size, doc) of rows with hk_lo <= hk < hk_hi (None: no bound) and
        (hk, rk) strictly after `after`, in ascending (hk, rk) order, at most `limit`."""

    async def table_stats(self, tid: int) -> tuple[int, int]:
        """(row count, summed sizes) of one table or index."""

    async def drop_rows(self, tid: int) -> None:
        """Remove every row of one table or index."""

    async def new_id(self) -> int:
        """A row-space id (for an index), never returned before; table ids come from the
        same sequence, so the two never collide."""

    async def catalog_get(self, region: str, name: str) -> tuple[int, bytes, int] | None:
        """(table id, catalog document, its version) of a table, or None."""

    async def catalog_regions(self) -> list[str]:
        """The regions that hold tables, in ascending order."""

    async def catalog_list(self, region: str) -> list[str]:
        """The names of all tables of a region, in ascending order."""

    async def catalog_insert(self, region: str, name: str, doc: bytes) -> int | None:
        """Add a table (version 1) and return its new id, unique forever; None if the
        name exists."""

    async def catalog_update(self, tid: int, doc: bytes, expected: int | None = None) -> int | None:
        """Replace a table's catalog document and return its new version (one more);
        with `expected`, only if the version is still that (else None: compare-and-swap)."""

    async def catalog_version(self, tid: int) -> int | None:
        """A table's catalog version (None once it is gone). In a write transaction on a
        shared engine it also holds the catalog row against change until the end, so a
        write and a catalog change (say, a new index) never overlap."""

    async def catalog_delete(self, tid: int) -> None:
        """Remove a table from the catalog."""

    async def announce(self, tid: int) -> None:
        """Tell the other processes sharing the storage, once this unit commits, that a
        row of space `tid` changed: their watch_catalog callbacks hear `tid` (an
        okura space of its own, such as the shared clock's). Nothing where nobody else
        shares the storage."""

    # Idempotency tokens of TransactWriteItems/ExecuteTransaction, shared by every node.
    async def token_claim(self, key: str, digest: bytes, expires: float,
                          now: float) -> tuple[bytes, bytes | None] | None:
        """Forget every token that expired at or before `now`; then, if `key` is held,
        return its (digest, outcome) (outcome None while its transaction runs);
        otherwise hold it as running until `expires` and return None. Committed at once
        by the caller's transaction, so other nodes see the claim."""

    async def token_settle(self, key: str, outcome: bytes, expires: float) -> None:
        """Record the outcome of a claimed token's transaction, kept until `expires`."""

    async def token_release(self, key: str) -> None:
        """Drop a claim whose transaction did not complete (the token may be reused)."""


class Engine(Protocol):
    # True when several okura processes may use the same storage at once (PostgreSQL):
    # then a catalog cached in one process can go stale, and writes check its version.
    shared: bool
    # False when after_commit() always returns False (every unit is committed as it ends):
    # the server then skips asking it for each reply.
    group_commit: bool
    # True once open when other processes' changes are heard (watch_catalog) as they
    # commit; a shared engine that cannot (CockroachDB has no LISTEN) leaves readers to poll.
    hears_others: bool

    def watch_catalog(self, callback: Callable[[int], None]) -> None:
        """Call `callback(table id)` whenever another process changes a table's catalog
        document (prompt cache invalidation; correctness rests on catalog_version), and
        for each table whose change a unit made but a failed group commit then lost."""

    async def open(self) -> None:
        """Create or migrate the schema; called once before serving."""

    async def close(self) -> None:
        """Flush and release everything; acknowledged writes are durable after it."""

    def transaction(self) -> AsyncContextManager[Transaction]:
        """A transaction: committed when the block exits normally, rolled back otherwise."""

    def after_commit(self, callback: Callable[[BaseException | None], None]) -> bool:
        """Group commit: if finished transactions still await their durable commit,
        arrange `callback(error)` for when it is done (error None) or has failed, and
        return True; return False when everything finished is already committed.
        A reply must not leave before the writes it acknowledges are committed."""

    async def read_one(self, tid: int, hk: bytes, rk: bytes) -> tuple[int, bytes] | None:
        """(size, document) of one committed row, or None, outside any unit (GetItem's
        read)."""

    def reader(self) -> AsyncContextManager[Transaction]:
        """A unit for reads only, where each call sees one committed state; backends may
        skip BEGIN/COMMIT. Several reads that must agree use transaction()."""
