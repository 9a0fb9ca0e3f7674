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

Deadlocks between multi-row transactions, serialization failures on engines that run
everything SERIALIZABLE (CockroachDB) and statements refused or cancelled for a lock
not granted in time surface as storage.engine.Conflict after a rollback; the caller may
run the unit again.

Statements are prepared once per connection (asyncpg's statement cache). Upserts
use INSERT ... ON CONFLICT, which CockroachDB and YugabyteDB also support. Round trips
are what a write costs here: a single-item write's locked read is one function call
(okura_lock), and a transaction's writes wait in okura for its COMMIT, which sends them
and the COMMIT as one script (docs/postgres.md, Round trips).
"""
from __future__ import annotations

import asyncio
import contextlib
from typing import Callable

import asyncpg

from okura.storage.engine import Conflict, Locked
from okura.storage.postgres.migrations import migrate

_KEY = " WHERE tid=$1 AND hk=$2 AND rk=$3"
_GET = "SELECT size, doc FROM items" + _KEY
_GET_SHARED = _GET + " FOR SHARE"
# Single-item writes: FOR NO KEY UPDATE queues them behind each other, and their probe
# (FOR KEY SHARE NOWAIT) fails only against a transaction's FOR UPDATE, so a write that
# meets a transaction in flight is refused as DynamoDB refuses it instead of waiting.
# Both in one round trip: migrations.py's okura_lock, which also claims an absent key.
_LOCK = "SELECT * FROM okura_lock($1, $2, $3)"
# Without waiting (transactions): inside a savepoint, so that a refusal rolls back to it
# and the transaction stays usable. A present row is locked with NOWAIT; the claim of an
# absent row waits on another claim of it, which NOWAIT cannot express, so a lock_timeout
# of 1 ms covers that statement alone. PostgreSQL's lock timeout signals the backend
# twice (LockTimeoutHandler), so the statement after a timeout may be cancelled "due to
# user request" too: both errors mean the lock was not available.
_GET_NOWAIT = _GET + " FOR UPDATE NOWAIT"
_GET_SHARED_NOWAIT = _GET + " FOR SHARE NOWAIT"
_NOWAIT_BEGIN = "SAVEPOINT nowait"
_NOWAIT_END = "RELEASE SAVEPOINT nowait"
_NOWAIT_UNDO = "ROLLBACK TO SAVEPOINT nowait; RELEASE SAVEPOINT nowait"
_TIMEOUT_SET = "SET LOCAL lock_timeout = 1"
_TIMEOUT_RESET = "SET LOCAL lock_timeout TO DEFAULT"
_REFUSED = (asyncpg.LockNotAvailableError, asyncpg.QueryCanceledError)
_CLAIM = ("INSERT INTO items(tid, hk, rk, size, doc) VALUES($1, $2, $3, 0, NULL)"
          " ON CONFLICT DO NOTHING RETURNING true")
_PUT = ("INSERT INTO items(tid, hk, rk, size, doc) VALUES($1, $2, $3, $4, $5)"
        " ON CONFLICT (tid, hk, rk) DO UPDATE SET size=excluded.size, doc=excluded.doc")
_DELETE = "DELETE FROM items" + _KEY
# count(doc) skips the transaction's own unused claims (doc NULL, size 0).


def _query_sql(lower: bool, upper: bool, forward: bool) -> str:
    bounds = (" AND rk >= $3" if lower else "") + (f" AND rk < ${3 + lower}" if upper else "")
    return (f"SELECT rk, size, doc FROM items WHERE tid=$1 AND hk=$2{bounds}"
            f" AND doc IS NOT NULL ORDER BY rk {'ASC' if forward else 'DESC'}"
            f" LIMIT ${3 + lower + upper}")


def _scan_sql(after: bool, lower: bool, upper: bool) -> str:
    where, number = ["tid=$1"], 2
    for present, condition in ((after, "(hk, rk) > (${}, ${})"), (lower, "hk >= ${}"),
                               (upper, "hk < ${}")):
        if present:
            count = condition.count("{}")
            where.append(condition.format(*range(number, number + count)))
            number += count
    return (f"SELECT hk, rk, size, doc FROM items WHERE {' AND '.join(where)}"
            f" AND doc IS NOT NULL ORDER BY hk, rk LIMIT ${number}")


# doc IS NOT NULL: a transaction's own unused claims are not rows.
_QUERIES = {(lo, hi, fw): _query_sql(lo, hi, fw)
            for lo in (False, True) for hi in (False, True) for fw in (False, True)}
_SCANS = {(af, lo, hi): _scan_sql(af, lo, hi)
          for af in (False, True) for lo in (False, True) for hi in (False, True)}
_STATS = "SELECT count(doc), coalesce(sum(size), 0) FROM items WHERE tid=$1"
_DROP = "DELETE FROM items WHERE tid=$1"
_CATALOG_GET = "SELECT id, doc, version FROM catalog WHERE region=$1 AND name=$2"
_CATALOG_VERSION = "SELECT version FROM catalog WHERE id=$1"
# Holds the row against a catalog change until the writing transaction ends.
_CATALOG_VERSION_SHARED = _CATALOG_VERSION + " FOR SHARE"
_CATALOG_CHANNEL = "okura_catalog"
_CATALOG_NOTIFY = f"SELECT pg_notify('{_CATALOG_CHANNEL}', $1::text)"
_CATALOG_LIST = "SELECT name FROM catalog WHERE region=$1"
_CATALOG_REGIONS = "SELECT DISTINCT region FROM catalog"
_NEW_ID = "SELECT nextval('ids')"
_CATALOG_INSERT = ("INSERT INTO catalog(id, region, name, doc) VALUES(nextval('ids'), $1, $2, $3)"
                   " ON CONFLICT (region, name) DO NOTHING RETURNING id")
_CATALOG_UPDATE = "UPDATE catalog SET doc=$2, version=version+1 WHERE id=$1 RETURNING version"
_CATALOG_SWAP = ("UPDATE catalog SET doc=$2, version=version+1 WHERE id=$1 AND version=$3"
                 " RETURNING version")
_CATALOG_DELETE = "DELETE FROM catalog WHERE id=$1"
_TOKENS_EXPIRE = "DELETE FROM tokens WHERE expires <= $1"
_TOKEN_CLAIM = ("INSERT INTO tokens(key, digest, outcome, expires) VALUES($1, $2, NULL, $3)"
                " ON CONFLICT (key) DO NOTHING RETURNING true")
_TOKEN_GET = "SELECT digest, outcome FROM tokens WHERE key=$1"
_TOKEN_SETTLE = "UPDATE tokens SET outcome=$2, expires=$3 WHERE key=$1"
_TOKEN_RELEASE = "DELETE FROM tokens WHERE key=$1"


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Pool reset hook. okura sets no session state, so asyncpg's default reset
    (a RESET ALL round trip on every release) would be pure cost."""


class PostgresEngine:
    shared = True  # any number of okura processes may serve one database
    group_commit = False  # each transaction block commits as it ends
    hears_others = False  # True once LISTEN works (open)

    def __init__(self, dsn: str, min_connections: int = 1, max_connections: int = 20):
        """`dsn` is a postgresql:// URL; its unknown query parameters become session
        settings (`?search_path=okura` keeps okura's tables in that schema)."""
        self.dsn = dsn
        self.min_connections = min_connections
        self.max_connections = max_connections
        self.pool: asyncpg.Pool | None = None
        self._catalog_watchers: list[Callable[[int], None]] = []
        self._listener: asyncpg.Connection | None = None

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
        if self._catalog_watchers:
            # LISTEN is PostgreSQL's (CockroachDB lacks it): where it is missing, other
            # nodes' catalog changes are noticed by writes (catalog_version), not at once.
            self._listener = await pool.acquire()
            try:
                await self._listener.add_listener(_CATALOG_CHANNEL, self._catalog_changed)
                self.hears_others = True
            except asyncpg.PostgresError:
                await pool.release(self._listener)
                self._listener = None

    def watch_catalog(self, callback: Callable[[int], None]) -> None:
        self._catalog_watchers.append(callback)

    def _catalog_changed(self, connection: asyncpg.Connection, pid: int, channel: str,
                         payload: str) -> None:
        for callback in self._catalog_watchers:
            callback(int(payload))

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.remove_listener(_CATALOG_CHANNEL, self._catalog_changed)
            assert self.pool is not None  # the listener is one of its connections
            await self.pool.release(self._listener)
            self._listener = None
        if self.pool is not None:
            await self.pool.close()
            self.pool = None

    def transaction(self) -> "_PostgresTransaction":
        return _PostgresTransaction(self.pool)

    def reader(self) -> "_PostgresReader":
        return _PostgresReader(self.pool)

    async def read_one(self, tid: int, hk: bytes, rk: bytes) -> tuple[int, bytes] | None:
        async with self.reader() as unit:
            return await unit.get(tid, hk, rk)

    def after_commit(self, callback: Callable[[BaseException | None], None]) -> bool:
        # A transaction block ends with its COMMIT done: nothing is ever pending.
        return False


class _PostgresReader:
    """A pooled connection in autocommit: each statement sees one committed state."""

    __slots__ = ("pool", "connection")
    _version_sql = _CATALOG_VERSION

    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    async def __aenter__(self) -> "_PostgresReader":
        self.connection = await _acquire(self.pool)
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        await self.pool.release(self.connection)

    async def _ready(self) -> asyncpg.Connection:
        """The connection, once everything sent to it before has been stored."""
        return self.connection

    async def get(self, tid: int, hk: bytes, rk: bytes, lock: bool = False,
                  wait: bool = True) -> tuple[int, bytes] | None:
        return _sized(await self.connection.fetchrow(_GET, tid, hk, rk))

    async def put(self, tid: int, hk: bytes, rk: bytes, size: int, doc: bytes) -> None:
        await self.connection.execute(_PUT, tid, hk, rk, size, doc)

    async def put_many(self, rows: list[tuple[int, bytes, bytes, int, bytes]],
                       replaced: bool = False) -> list[int] | None:
        sizes = await _replaced_sizes(self.connection, rows) if replaced else None
        await self.connection.executemany(_PUT, rows)
        return sizes

    async def delete(self, tid: int, hk: bytes, rk: bytes) -> None:
        await self.connection.execute(_DELETE, tid, hk, rk)

    async def query(self, tid: int, hk: bytes, lo: bytes | None, hi: bytes | None,
                    forward: bool, limit: int) -> list[tuple[bytes, int, bytes]]:
        bounds = [bound for bound in (lo, hi) if bound is not None]
        rows = await (await self._ready()).fetch(_QUERIES[lo is not None, hi is not None, forward],
                                           tid, hk, *bounds, limit)
        return [tuple(row) for row in rows]

    async def scan(self, tid: int, after: tuple[bytes, bytes] | None, hk_lo: bytes | None,
                   hk_hi: bytes | None, limit: int) -> list[tuple[bytes, bytes, int, bytes]]:
        args = [*(after or ()), *(bound for bound in (hk_lo, hk_hi) if bound is not None)]
        rows = await (await self._ready()).fetch(
            _SCANS[after is not None, hk_lo is not None, hk_hi is not None], tid, *args, limit)
        return [tuple(row) for row in rows]

    async def table_stats(self, tid: int) -> tuple[int, int]:
        count, size = await (await self._ready()).fetchrow(_STATS, tid)
        return count, size

    async def drop_rows(self, tid: int) -> None:
        await (await self._ready()).execute(_DROP, tid)

    async def new_id(self) -> int:
        return await (await self._ready()).fetchval(_NEW_ID)

    async def catalog_get(self, region: str, name: str) -> tuple[int, bytes, int] | None:
        row = await (await self._ready()).fetchrow(_CATALOG_GET, region, name)
        return None if row is None else tuple(row)

    async def catalog_version(self, tid: int) -> int | None:
        return await (await self._ready()).fetchval(self._version_sql, tid)

    async def catalog_regions(self) -> list[str]:
        # sorted here, as catalog_list's names
        return sorted([row[0] for row in await (await self._ready()).fetch(_CATALOG_REGIONS)])

    async def catalog_list(self, region: str) -> list[str]:
        # Sorted here, not by ORDER BY: the database's collation may not order by code
        # point as DynamoDB does, and COLLATE "C" is not portable across engines.
        return sorted([row[0] for row in await (await self._ready()).fetch(_CATALOG_LIST, region)])

    async def catalog_insert(self, region: str, name: str, doc: bytes) -> int | None:
        return await (await self._ready()).fetchval(_CATALOG_INSERT, region, name, doc)

    async def catalog_update(self, tid: int, doc: bytes, expected: int | None = None) -> int | None:
        if expected is None:
            version = await (await self._ready()).fetchval(_CATALOG_UPDATE, tid, doc)
        else:
            version = await (await self._ready()).fetchval(_CATALOG_SWAP, tid, doc, expected)
        if version is not None:
            await (await self._ready()).execute(_CATALOG_NOTIFY, str(tid))
        return version

    async def catalog_delete(self, tid: int) -> None:
        await (await self._ready()).execute(_CATALOG_DELETE, tid)
        await (await self._ready()).execute(_CATALOG_NOTIFY, str(tid))

    async def announce(self, tid: int) -> None:
        await (await self._ready()).execute(_CATALOG_NOTIFY, str(tid))

    async def token_claim(self, key: str, digest: bytes, expires: float,
                          now: float) -> tuple[bytes, bytes | None] | None:
        await (await self._ready()).execute(_TOKENS_EXPIRE, now)
        # A concurrent claim of the same key from another node makes this insert wait
        # for it, then do nothing: the read below sees the winner's claim.
        if await (await self._ready()).fetchval(_TOKEN_CLAIM, key, digest, expires):
            return None
        digest_held, outcome = await (await self._ready()).fetchrow(_TOKEN_GET, key)
        return digest_held, outcome

    async def token_settle(self, key: str, outcome: bytes, expires: float) -> None:
        await (await self._ready()).execute(_TOKEN_SETTLE, key, outcome, expires)

    async def token_release(self, key: str) -> None:
        await (await self._ready()).execute(_TOKEN_RELEASE, key)


class _PostgresTransaction(_PostgresReader):
    """BEGIN ... COMMIT on one pooled connection, with the claims of absent keys.

    Writes are held back (`pending`) until the COMMIT, or a statement that could see
    them, and then sent, in order, as one script: a single-item write's puts (item, index
    entries, stream record) and its COMMIT cost one round trip, not one each."""

    __slots__ = ("claims", "pending")
    _version_sql = _CATALOG_VERSION_SHARED

    async def __aenter__(self) -> "_PostgresTransaction":
        self.connection = await _acquire(self.pool)
        self.claims: set[tuple[int, bytes, bytes]] = set()
        self.pending: list[tuple[int, bytes, bytes, int, bytes | None]] = []
        try:
            await self.connection.execute("BEGIN")
        except BaseException as failure:
            await self.pool.release(self.connection)
            _raise_conflict(failure)
            raise
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        connection = self.connection
        try:
            if exc_type is None:
                try:
                    # unused claims go with the writes: deleted before COMMIT
                    self.pending.extend((tid, hk, rk, 0, None) for tid, hk, rk in self.claims)
                    await connection.execute(_script(self.pending) + "COMMIT")
                    return
                except BaseException as failure:
                    await _rollback(connection)
                    _raise_conflict(failure)
                    raise
            await _rollback(connection)
            _raise_conflict(exc)
        finally:
            await self.pool.release(connection)

    async def _ready(self) -> asyncpg.Connection:
        connection = self.connection
        if self.pending:
            pending, self.pending = self.pending, []
            await connection.execute(_script(pending))
        return connection

    async def get(self, tid: int, hk: bytes, rk: bytes, lock: bool = False,
                  wait: bool = True) -> tuple[int, bytes] | None:
        # Only a write of this very row must reach the database before it is read (a
        # write's item and then its stream's row: one flush at COMMIT, not two).
        if any(row[2] == rk and row[1] == hk and row[0] == tid for row in self.pending):
            await self._ready()
        connection = self.connection
        if wait:
            if lock:
                try:
                    size, doc, claimed = await connection.fetchrow(_LOCK, tid, hk, rk)
                except asyncpg.LockNotAvailableError:
                    # The unit is aborted; it fails as a whole, which is what a single-item
                    # write refused by a transaction does.
                    raise Locked from None
                if claimed:
                    self.claims.add((tid, hk, rk))
                return None if doc is None else (size, doc)
            return _sized(await connection.fetchrow(_GET_SHARED, tid, hk, rk))
        await connection.execute(_NOWAIT_BEGIN)
        try:
            if lock:
                doc = await self._read_nowait(tid, hk, rk)
            else:
                doc = _sized(await connection.fetchrow(_GET_SHARED_NOWAIT, tid, hk, rk))
        except _REFUSED:
            try:
                await connection.execute(_NOWAIT_UNDO)
            except asyncpg.QueryCanceledError:  # the lock timeout's second signal
                await connection.execute(_NOWAIT_UNDO)
            raise Locked from None
        await connection.execute(_NOWAIT_END)
        return doc

    async def _read_nowait(self, tid: int, hk: bytes, rk: bytes) -> tuple[int, bytes] | None:
        """Read and lock one row NOWAIT, or claim it if absent, the claim's wait on
        another claim ending after 1 ms."""
        connection = self.connection
        while True:
            row = await connection.fetchrow(_GET_NOWAIT, tid, hk, rk)
            if row is not None:
                return _sized(row)
            await connection.execute(_TIMEOUT_SET)
            claimed = await connection.fetchval(_CLAIM, tid, hk, rk)
            await connection.execute(_TIMEOUT_RESET)
            if claimed:
                self.claims.add((tid, hk, rk))
                return None
            # Another writer committed the row between our two statements: lock it.

    async def put(self, tid: int, hk: bytes, rk: bytes, size: int, doc: bytes) -> None:
        self.pending.append((tid, hk, rk, size, doc))
        self.claims.discard((tid, hk, rk))

    async def put_many(self, rows: list[tuple[int, bytes, bytes, int, bytes]],
                       replaced: bool = False) -> list[int] | None:
        sizes = await _replaced_sizes(await self._ready(), rows) if replaced else None
        self.pending.extend(rows)
        for tid, hk, rk, _, _ in rows:
            self.claims.discard((tid, hk, rk))
        return sizes

    async def delete(self, tid: int, hk: bytes, rk: bytes) -> None:
        self.pending.append((tid, hk, rk, 0, None))
        self.claims.discard((tid, hk, rk))


async def _replaced_sizes(connection: asyncpg.Connection,
                          rows: list[tuple[int, bytes, bytes, int, bytes]]) -> list[int]:
    """The sizes of the rows `rows` will replace (0: none, or a claim). okura's writes on
    shared storage read the row first, so this serves the contract, not the hot path."""
    sizes = []
    for tid, hk, rk, _, _ in rows:
        row = _sized(await connection.fetchrow(_GET, tid, hk, rk))
        sizes.append(0 if row is None else row[0])
    return sizes


def _script(rows: list[tuple[int, bytes, bytes, int, bytes | None]]) -> str:
    """Held-back puts (doc not NULL) and deletes (doc NULL) as one script of okura_write
    calls (migrations.py) for the simple query protocol, which runs several statements
    (COMMIT among them) in one round trip but takes no parameters: every value is an
    integer or hex digits, so nothing needs quoting."""
    return "".join(f"SELECT okura_write({int(tid)},{_bytea(hk)},{_bytea(rk)},{int(size)},"
                   f"{'NULL' if doc is None else _bytea(doc)});"
                   for tid, hk, rk, size, doc in rows)


def _bytea(value: bytes) -> str:
    # decode(), not a '\x...' literal, whose meaning standard_conforming_strings changes
    return f"decode('{value.hex()}','hex')"


def _sized(row: asyncpg.Record | None) -> tuple[int, bytes] | None:
    """(size, doc) of a fetched row; None for none, or for a claim (an absent row
    locked by a writer: its doc is NULL)."""
    return None if row is None or row[1] is None else (row[0], row[1])


async def _acquire(pool: asyncpg.Pool) -> asyncpg.Connection:
    """A pooled connection. The server runs a handler outside any task until it first
    waits (docs/decisions.md, eager handlers), but asyncpg opens a new connection under
    asyncio.timeout, which needs a task: then the acquisition runs as one."""
    if asyncio.current_task() is None:
        return await asyncio.ensure_future(pool.acquire())
    return await pool.acquire()


def _raise_conflict(error: BaseException) -> None:
    """Every way PostgreSQL refuses a statement for a concurrent one becomes Conflict:
    lost races (SQLSTATE class 40: serialization failure, deadlock), a lock not
    available in time (55P03: a lock_timeout, okura's or the DSN's) and a cancelled
    statement (57014: the lock timeout's second signal, or a statement_timeout)."""
    if isinstance(error, (asyncpg.TransactionRollbackError, *_REFUSED)):
        raise Conflict(str(error)) from error


async def _rollback(connection: asyncpg.Connection) -> None:
    """Roll back after a failure; if the connection itself broke, the pool drops it on
    release, and the failure that brought us here is the one worth reporting."""
    with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
        await connection.execute("ROLLBACK")
