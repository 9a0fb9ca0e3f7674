"""PostgreSQL backend: the same catalog and item rows as SQLite, in a shared database.

Any number of okura processes may serve one database; isolation comes from it alone.
Transactions run at READ COMMITTED with row locks, which is what read-modify-write
needs and never fails a writer that merely waited:

- `get(lock=True)` is SELECT ... FOR UPDATE: a second writer of the same row waits
  for the first to commit, then reads its result.
- An absent row has nothing to lock, so a locked read that finds none claims the key
  by inserting a placeholder row (doc NULL). A concurrent writer of that key blocks
  on the placeholder's uniqueness until we finish, then sees our item (or, if we
  rolled back, claims the key itself). Two conditional puts with
  attribute_not_exists on one key thus have exactly one winner, and the other fails
  its condition as in DynamoDB. A claim the transaction leaves unused is deleted
  before COMMIT, so no placeholder is ever visible to anyone else.
- Unlocked reads inside a transaction take FOR SHARE, so rows read together stay as
  read until COMMIT (reads that must agree do agree).

Deadlocks between multi-row transactions, and serialization failures on engines
that run everything SERIALIZABLE (CockroachDB), surface as storage.engine.Conflict
after a rollback; the caller may run the unit again.

Statements are prepared once per connection (asyncpg's statement cache). Upserts
use INSERT ... ON CONFLICT, which CockroachDB and YugabyteDB also support.
"""
from __future__ import annotations

import contextlib

import asyncpg

from okura.storage.engine import Conflict
from okura.storage.postgres.migrations import migrate

_KEY = " WHERE tid=$1 AND hk=$2 AND rk=$3"
_GET = "SELECT doc FROM items" + _KEY
_GET_SHARED = _GET + " FOR SHARE"
_GET_LOCKED = _GET + " FOR UPDATE"
_CLAIM = ("INSERT INTO items(tid, hk, rk, size, doc) VALUES($1, $2, $3, 0, NULL)"
          " ON CONFLICT DO NOTHING RETURNING true")
_PUT = ("INSERT INTO items(tid, hk, rk, size, doc) VALUES($1, $2, $3, $4, $5)"
        " ON CONFLICT (tid, hk, rk) DO UPDATE SET size=excluded.size, doc=excluded.doc")
_DELETE = "DELETE FROM items" + _KEY
# count(doc) skips the transaction's own unused claims (doc NULL, size 0).
_STATS = "SELECT count(doc), coalesce(sum(size), 0) FROM items WHERE tid=$1"
_DROP = "DELETE FROM items WHERE tid=$1"
_CATALOG_GET = "SELECT id, doc FROM catalog WHERE region=$1 AND name=$2"
_CATALOG_LIST = "SELECT name FROM catalog WHERE region=$1"
_CATALOG_INSERT = ("INSERT INTO catalog(region, name, doc) VALUES($1, $2, $3)"
                   " ON CONFLICT (region, name) DO NOTHING RETURNING id")
_CATALOG_UPDATE = "UPDATE catalog SET doc=$2 WHERE id=$1"
_CATALOG_DELETE = "DELETE FROM catalog WHERE id=$1"


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Pool reset hook. okura sets no session state, so asyncpg's default reset
    (a RESET ALL round trip on every release) would be pure cost."""


class PostgresEngine:
    def __init__(self, dsn: str, min_connections: int = 1, max_connections: int = 20):
        """`dsn` is a postgresql:// URL; its unknown query parameters become session
        settings (`?search_path=okura` keeps okura's tables in that schema)."""
        self.dsn = dsn
        self.min_connections = min_connections
        self.max_connections = max_connections
        self.pool: asyncpg.Pool | None = None

    async def open(self) -> None:
        pool = await asyncpg.create_pool(self.dsn, min_size=self.min_connections,
                                         max_size=self.max_connections, reset=_keep_session)
        try:
            async with pool.acquire() as connection:
                await migrate(connection)
        except BaseException:
            await pool.close()
            raise
        self.pool = pool

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
            self.pool = None

    def transaction(self) -> "_PostgresTransaction":
        return _PostgresTransaction(self.pool)

    def reader(self) -> "_PostgresReader":
        return _PostgresReader(self.pool)


class _PostgresReader:
    """A pooled connection in autocommit: each statement sees one committed state."""

    __slots__ = ("pool", "connection")

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    async def __aenter__(self) -> "_PostgresReader":
        self.connection = await self.pool.acquire()
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        await self.pool.release(self.connection)

    async def get(self, tid: int, hk: bytes, rk: bytes, lock: bool = False) -> bytes | None:
        return await self.connection.fetchval(_GET, tid, hk, rk)

    async def put(self, tid: int, hk: bytes, rk: bytes, size: int, doc: bytes) -> None:
        await self.connection.execute(_PUT, tid, hk, rk, size, doc)

    async def delete(self, tid: int, hk: bytes, rk: bytes) -> None:
        await self.connection.execute(_DELETE, tid, hk, rk)

    async def table_stats(self, tid: int) -> tuple[int, int]:
        count, size = await self.connection.fetchrow(_STATS, tid)
        return count, size

    async def drop_rows(self, tid: int) -> None:
        await self.connection.execute(_DROP, tid)

    async def catalog_get(self, region: str, name: str) -> tuple[int, bytes] | None:
        row = await self.connection.fetchrow(_CATALOG_GET, region, name)
        return None if row is None else (row[0], row[1])

    async def catalog_list(self, region: str) -> list[str]:
        # Sorted here, not by ORDER BY: the database's collation may not order by code
        # point as DynamoDB does, and COLLATE "C" is not portable across engines.
        return sorted([row[0] for row in await self.connection.fetch(_CATALOG_LIST, region)])

    async def catalog_insert(self, region: str, name: str, doc: bytes) -> int | None:
        return await self.connection.fetchval(_CATALOG_INSERT, region, name, doc)

    async def catalog_update(self, tid: int, doc: bytes) -> None:
        await self.connection.execute(_CATALOG_UPDATE, tid, doc)

    async def catalog_delete(self, tid: int) -> None:
        await self.connection.execute(_CATALOG_DELETE, tid)


class _PostgresTransaction(_PostgresReader):
    """BEGIN ... COMMIT on one pooled connection, with the claims of absent keys."""

    __slots__ = ("claims",)

    async def __aenter__(self) -> "_PostgresTransaction":
        self.connection = await self.pool.acquire()
        self.claims: set[tuple[int, bytes, bytes]] = set()
        try:
            await self.connection.execute("BEGIN")
        except BaseException:
            await self.pool.release(self.connection)
            raise
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        connection = self.connection
        try:
            if exc_type is None:
                try:
                    if self.claims:
                        await connection.executemany(_DELETE, self.claims)
                    await connection.execute("COMMIT")
                    return
                except BaseException as failure:
                    await _rollback(connection)
                    _raise_conflict(failure)
                    raise
            await _rollback(connection)
            _raise_conflict(exc)
        finally:
            await self.pool.release(connection)

    async def get(self, tid: int, hk: bytes, rk: bytes, lock: bool = False) -> bytes | None:
        if not lock:
            return await self.connection.fetchval(_GET_SHARED, tid, hk, rk)
        while True:
            row = await self.connection.fetchrow(_GET_LOCKED, tid, hk, rk)
            if row is not None:
                return row[0]
            if await self.connection.fetchval(_CLAIM, tid, hk, rk):
                self.claims.add((tid, hk, rk))
                return None
            # Another writer committed the row between our two statements: lock it.

    async def put(self, tid: int, hk: bytes, rk: bytes, size: int, doc: bytes) -> None:
        await self.connection.execute(_PUT, tid, hk, rk, size, doc)
        self.claims.discard((tid, hk, rk))

    async def delete(self, tid: int, hk: bytes, rk: bytes) -> None:
        await self.connection.execute(_DELETE, tid, hk, rk)
        self.claims.discard((tid, hk, rk))


def _raise_conflict(error: BaseException) -> None:
    """Lost races (SQLSTATE class 40: serialization failure, deadlock) become Conflict."""
    if isinstance(error, asyncpg.TransactionRollbackError):
        raise Conflict(str(error)) from error


async def _rollback(connection: asyncpg.Connection) -> None:
    """Roll back after a failure; if the connection itself broke, the pool drops it on
    release, and the failure that brought us here is the one worth reporting."""
    with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
        await connection.execute("ROLLBACK")
