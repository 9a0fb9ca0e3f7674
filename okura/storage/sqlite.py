"""Embedded SQLite backend: one file (WAL mode) holding every table of a server.

Statements run synchronously on one connection inside the event loop: each call
takes microseconds and never suspends, so a request's transaction runs from
BEGIN to COMMIT without another request interleaving. That gives serialisable
transactions within the one process that owns the file.

Group commit: a unit is a SAVEPOINT (when it needs one: see _SqliteTransaction)
inside a transaction that stays open until the end of the event-loop iteration,
when one COMMIT covers every unit of that iteration. Replies wait for that COMMIT
(`after_commit`), so no client ever sees an acknowledgement, or data, that is not
yet committed; the cost of a commit is shared by all the requests that arrived
together.

Durability: WAL with synchronous=NORMAL (the default, "process") makes every
committed transaction survive the death of the okura process (kill -9), since
the commit is in the operating system's hands before the reply is sent; a power
failure may lose the last transactions. synchronous=FULL ("fsync") also survives
power failure at the cost of one fsync per commit.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Callable, cast

import apsw

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS okura_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS ids(id INTEGER PRIMARY KEY AUTOINCREMENT)",
    "CREATE TABLE IF NOT EXISTS catalog("
    " id INTEGER PRIMARY KEY, region TEXT NOT NULL, name TEXT NOT NULL,"
    " doc BLOB NOT NULL, version INTEGER NOT NULL DEFAULT 1, UNIQUE(region, name))",
    "CREATE TABLE IF NOT EXISTS items("
    " tid INTEGER NOT NULL, hk BLOB NOT NULL, rk BLOB NOT NULL, size INTEGER NOT NULL,"
    " doc BLOB NOT NULL, PRIMARY KEY(tid, hk, rk)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS tokens("
    " key TEXT PRIMARY KEY, digest BLOB NOT NULL, outcome BLOB, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS tokens_expiry ON tokens(expires)",
)
SCHEMA_VERSION = "1"


def _query_sql(lower: bool, upper: bool, forward: bool) -> str:
    bounds = (" AND rk >= ?" if lower else "") + (" AND rk < ?" if upper else "")
    order = "ASC" if forward else "DESC"
    return (f"SELECT rk, size, doc FROM items WHERE tid=? AND hk=?{bounds}"
            f" ORDER BY rk {order} LIMIT ?")


_QUERIES = {(lower, upper, forward): _query_sql(lower, upper, forward)
            for lower in (False, True) for upper in (False, True) for forward in (False, True)}
_GET = "SELECT size, doc FROM items WHERE tid=? AND hk=? AND rk=?"
# Rows written together go in one statement (a BatchWriteItem's 25 items: one statement
# is atomic, so the unit needs no savepoint, and SQLite prepares and steps it once).
ROWS_PER_STATEMENT = 100  # 500 parameters, within the 999 of SQLite before 3.32
_PUTS = ["INSERT OR REPLACE INTO items(tid, hk, rk, size, doc) VALUES" + ",".join(
    ["(?,?,?,?,?)"] * rows) for rows in range(ROWS_PER_STATEMENT + 1)]
_PUT = _PUTS[1]
_SYNC = {"process": "NORMAL", "fsync": "FULL"}
STATEMENT_CACHE = 256  # prepared statements kept per connection (apsw's default is 100)
BUSY_MS = 5000  # how long a connection waits for another's lock (the checkpoint thread's)
CHECKPOINT_SECONDS = 0.5
MMAP_BYTES = 1 << 30
CACHE_KIB = 8192  # SQLite's page cache (its default is 2 MiB)
# A checkpoint round copies what the writes of the round before added; rounds stop
# once one copied no more than CATCH_UP_FRAMES pages (well under a millisecond).
CHECKPOINT_ROUNDS = 8
CATCH_UP_FRAMES = 64
# The WAL is restarted (a commit finishes a pass, a few milliseconds of the event loop at
# full write load) once it holds this many frames (64 MiB of 4 KiB pages), not every pass.
RESTART_FRAMES = 16384
log = logging.getLogger("okura.storage")


def _connect(target: str) -> apsw.Connection:
    """A connection in autocommit mode (apsw opens no transaction by itself). Each is
    used by one thread at a time, so SQLite's per-call mutex is left out (NOMUTEX: a
    Query of 10 items 7.2 -> 6.4 µs)."""
    connection = apsw.Connection(target, statementcachesize=STATEMENT_CACHE, flags=(
        apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_NOMUTEX))
    connection.set_busy_timeout(BUSY_MS)
    # Plans never depend on bound values (they all follow the primary key): without this,
    # SQLite re-plans a statement whose LIMIT or range is bound, at every execution (a
    # Query of 10 items: 43 -> 32 µs in-process).
    connection.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, 1)
    return connection


class SqliteEngine:
    shared = False  # one process owns the file
    group_commit = True  # one COMMIT per event-loop iteration
    hears_others = False  # there are none

    def __init__(self, path: str, durability: str = "process"):
        self.path = path
        self.durability = durability
        self.db: apsw.Connection | None = None
        self._batch_open = False
        self._waiters: list[Callable[[BaseException | None], None]] = []
        self._checkpoints: threading.Thread | None = None
        self._closing = threading.Event()
        self._committed = threading.Event()  # a group committed since the last pass
        # Set by the checkpoint thread after each pass: the next commit finishes it.
        self._catch_up = False
        self.last_id = 0  # the largest id handed out, committed or in use (see new_id)
        self._catalog_watchers: list[Callable[[int], None]] = []
        self._catalog_changes: set[int] = set()  # tables whose documents the group changed

    async def open(self) -> None:
        os.makedirs(self.path, exist_ok=True)
        target = os.path.join(self.path, "okura.sqlite3")
        db = _connect(target)
        # SQLite's page cache: a commit after a page split scans its whole hash of pages
        # (pcache1TruncateUnsafe: the split renumbers pages through one far past the end
        # of the file, as gdb showed), so a large cache taxes writes. Reads hardly need
        # it: pages past it are read through a memory map of the file rather than a
        # read() each (GetItem in a table of 1,000,000 items: 34k -> 38k req/s).
        db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        # A unit's SAVEPOINT keeps the pages it changes in a statement journal, which
        # SQLite spills to a temporary file past 64 KiB (a BatchWriteItem of 25 items on
        # disk); kept in memory instead: 30-35 -> 22-23 µs of CPU per item (in-process).
        db.execute("PRAGMA temp_store=MEMORY")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={_SYNC[self.durability]}")
        # Checkpoints copy the WAL into the database file. SQLite would run them inside
        # the committing request every 1,000 pages (a latency spike); a thread of its
        # own does them instead, on its own connection, without blocking writers.
        db.execute("PRAGMA wal_autocheckpoint=0")
        self._files = (target + "-wal", target)
        self._checkpoints = threading.Thread(target=self._checkpoint_loop, args=(target,),
                                             name="okura-checkpoints", daemon=True)
        self._checkpoints.start()
        for statement in _SCHEMA:
            db.execute(statement)
        found = db.execute("SELECT value FROM okura_meta WHERE key='schema_version'").fetchone()
        if found is None:
            db.execute("INSERT INTO okura_meta VALUES('schema_version', ?)", (SCHEMA_VERSION,))
        elif found[0] != SCHEMA_VERSION:
            raise RuntimeError(f"data directory holds schema version {found[0]}, "
                               f"this okura knows {SCHEMA_VERSION}")
        # Ids start past every id ever committed, and past any in use: an id whose unit a
        # failed commit lost may still own rows, written later through the table's cached
        # document (see new_id).
        (self.last_id,), = db.execute(
            "SELECT max(coalesce((SELECT max(id) FROM ids), 0),"
            " coalesce((SELECT max(tid) FROM items), 0),"
            " coalesce((SELECT max(id) FROM catalog), 0))")
        self.db = db
        # Every statement runs through this one cursor: each reads its rows at once, and
        # connection.execute() would make a cursor per statement (~0.2 µs).
        self.sql = db.cursor()
        self._unit = _SqliteTransaction(self)
        self._reader = _SqliteReader(self)

    async def close(self) -> None:
        if self._checkpoints is not None:
            self._closing.set()
            self._committed.set()
            self._checkpoints.join()
            self._checkpoints = None
        if self.db is not None:
            self._commit()
            self.db.close()
            self.db = None

    def _checkpoint_loop(self, target: str) -> None:
        connection = _connect(target)
        try:
            # a pass CHECKPOINT_SECONDS after the first commit since the last: an idle
            # server does none
            while self._committed.wait() and not self._closing.wait(CHECKPOINT_SECONDS):
                self._committed.clear()
                try:
                    self._checkpoint_pass(connection)
                except apsw.Error:
                    log.exception("WAL checkpoint failed; the next one retries")
        finally:
            connection.close()

    def _checkpoint_pass(self, connection: apsw.Connection) -> None:
        """Copy the WAL into the database in rounds, each copying what the writes of
        the round before added, until little is left; once the WAL is long, leave the
        last few frames to the next commit, whose checkpoint completes and so lets
        SQLite restart the WAL (see _finish_checkpoint)."""
        copied_to = 0
        for _ in range(CHECKPOINT_ROUNDS):
            row = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            assert row is not None  # the pragma answers one row
            _, frames, _ = row
            fresh, copied_to = frames - copied_to, frames
            # A completing checkpoint syncs the WAL before it copies and the database
            # after; flush what this round wrote here, off the event loop.
            for path in self._files:
                written = os.open(path, os.O_RDONLY)
                try:
                    os.fdatasync(written)
                finally:
                    os.close(written)
            if 0 <= fresh <= CATCH_UP_FRAMES:
                break
        if copied_to >= RESTART_FRAMES:
            self._catch_up = True

    def end_lost_group(self) -> None:
        """After a failed statement: if SQLite rolled the whole group back itself (disk
        full, an I/O error), its units are lost, so their requests fail now, and the
        catalog forgets what they changed before another request reads it."""
        if self._batch_open:
            assert self.db is not None  # a group is open only while the engine is
            if not self.db.in_transaction:
                self._commit()

    def _join_group(self) -> None:
        self.end_lost_group()
        if not self._batch_open:
            self.sql.execute("BEGIN")
            self._batch_open = True
            asyncio.get_running_loop().call_soon(self._commit)

    def _commit(self) -> None:
        """End the group: one COMMIT for every unit since BEGIN, then the waiters."""
        if not self._batch_open:
            return
        self._batch_open = False
        waiters, self._waiters = self._waiters, []
        changed, self._catalog_changes = self._catalog_changes, set()
        error = None
        try:
            self.sql.execute("COMMIT")
        except apsw.Error as exc:
            log.exception("group commit failed; its %d requests get an error", len(waiters))
            error = exc
            assert self.db is not None  # as above
            if self.db.in_transaction:
                try:
                    self.sql.execute("ROLLBACK")
                except apsw.Error:  # the requests are told of the first failure
                    log.exception("rollback after a failed group commit failed")
            for tid in changed:
                for callback in self._catalog_watchers:
                    callback(tid)
        if not self._committed.is_set():
            self._committed.set()
        for waiter in waiters:
            waiter(error)
        if self._catch_up:
            self._finish_checkpoint()

    def _finish_checkpoint(self) -> None:
        """Copy into the database the few frames committed while the thread's pass ran.
        Only a write that starts with the WAL fully copied lets SQLite restart the WAL
        from its beginning; under steady writes the thread alone never gets there, and
        the WAL would grow without bound (gigabytes in a minute of BatchWriteItem)."""
        self._catch_up = False
        try:
            self.sql.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()  # ends the statement
        except apsw.Error:
            log.exception("WAL checkpoint failed; the next one retries")

    def watch_catalog(self, callback: Callable[[int], None]) -> None:
        """Nobody else writes this file's catalog, but a group whose COMMIT fails loses
        the catalog changes its units made: the callback hears of those tables."""
        self._catalog_watchers.append(callback)

    def after_commit(self, callback: Callable[[BaseException | None], None]) -> bool:
        if not self._batch_open:
            return False
        self._waiters.append(callback)
        return True

    def transaction(self) -> "_SqliteTransaction":
        return self._unit

    def reader(self) -> "_SqliteReader":
        return self._reader

    async def read_one(self, tid: int, hk: bytes, rk: bytes) -> tuple[int, bytes] | None:
        return self.sql.execute(_GET, (tid, hk, rk)).fetchone()


class _SqliteTransaction:
    """Both the context manager and the transaction: the connection is the unit.

    A unit is a SAVEPOINT of the group's transaction, taken only once it is needed.
    SQLite makes each statement atomic, so a unit whose one write is one statement
    (PutItem, UpdateItem or DeleteItem of a table without index or stream) needs no
    savepoint: that write is held until the unit ends, or until another statement
    follows it and so opens the savepoint first (SAVEPOINT and RELEASE cost 7 % of a
    PutItem's instructions). Units never nest (entering one inside another raises):
    nesting would mean a request yielded inside its unit, which the design rules out.
    """

    __slots__ = ("sql", "engine", "held", "saved", "open")

    def __init__(self, engine: SqliteEngine):
        self.engine = engine
        self.sql = engine.sql
        self.held: tuple | None = None  # (statement, parameters) of the unit's one write
        self.saved = False
        self.open = False

    async def __aenter__(self) -> "_SqliteTransaction":
        if self.open:  # the units share this object and its one savepoint
            raise RuntimeError("storage units never nest")
        self.engine._join_group()
        self.open = True
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        self.open = False
        held, self.held = self.held, None
        saved, self.saved = self.saved, False
        try:
            if not saved:
                if held is not None and exc_type is None:
                    self.sql.execute(*held)  # the unit's one statement: atomic by itself
            elif exc_type is None:
                self.sql.execute("RELEASE unit")
            else:
                assert self.engine.db is not None  # a unit runs on an open engine
                if self.engine.db.in_transaction:  # else the savepoint went with the group
                    self.sql.execute("ROLLBACK TO unit")
                    self.sql.execute("RELEASE unit")
        except apsw.Error:
            self.engine.end_lost_group()
            raise
        if exc_type is not None:
            self.engine.end_lost_group()

    def _save(self) -> None:
        if not self.saved:
            self.sql.execute("SAVEPOINT unit")
            self.saved = True

    def _flush(self) -> None:
        """Run a held write before another statement, in the savepoint it now needs."""
        if self.held is not None:
            self._save()
            held, self.held = self.held, None
            self.sql.execute(*held)

    def _run(self, statement: str, parameters=()) -> apsw.Cursor:
        """A read, after any held write."""
        self._flush()
        return self.sql.execute(statement, parameters)

    def _change(self, statement: str, parameters=()) -> apsw.Cursor:
        """A write run at once, in the savepoint: one whose result is needed, or another."""
        self._save()
        self._flush()
        return self.sql.execute(statement, parameters)

    def _write(self, statement: str, parameters) -> None:
        """A write of one statement: held while it may be the unit's only one."""
        if self.saved or self.held is not None:
            self._change(statement, parameters)
        else:
            self.held = (statement, parameters)

    async def get(self, tid: int, hk: bytes, rk: bytes, lock: bool = False,
                  wait: bool = True) -> tuple[int, bytes] | None:
        # One writer at a time: no row is ever locked by another transaction here.
        return self._run(_GET, (tid, hk, rk)).fetchone()

    async def put(self, tid: int, hk: bytes, rk: bytes, size: int, doc: bytes) -> None:
        self._write(_PUT, (tid, hk, rk, size, doc))

    async def put_many(self, rows: list[tuple[int, bytes, bytes, int, bytes]],
                       replaced: bool = False) -> list[int] | None:
        sizes = None
        if replaced:
            sizes = []
            for tid, hk, rk, _, _ in rows:
                row = self._run(_GET, (tid, hk, rk)).fetchone()
                sizes.append(0 if row is None else row[0])
        for start in range(0, len(rows), ROWS_PER_STATEMENT):
            chunk = rows[start:start + ROWS_PER_STATEMENT]
            parameters: list[int | bytes] = []
            for row in chunk:
                parameters += row
            self._write(_PUTS[len(chunk)], parameters)
        return sizes

    async def delete(self, tid: int, hk: bytes, rk: bytes) -> None:
        self._write("DELETE FROM items WHERE tid=? AND hk=? AND rk=?",
                    (tid, hk, rk))

    async def query(self, tid: int, hk: bytes, lo: bytes | None, hi: bytes | None,
                    forward: bool, limit: int) -> list[tuple[bytes, int, bytes]]:
        sql = _QUERIES[lo is not None, hi is not None, forward]
        args = (tid, hk) + ((lo,) if lo is not None else ()) + ((hi,) if hi is not None else ())
        rows = self._run(sql, args + (limit,)).fetchall()
        return cast("list[tuple[bytes, int, bytes]]", rows)  # the columns' types

    async def scan(self, tid: int, after: tuple[bytes, bytes] | None, hk_lo: bytes | None,
                   hk_hi: bytes | None, limit: int) -> list[tuple[bytes, bytes, int, bytes]]:
        where = ["tid=?"]
        args: list[int | bytes] = [tid]
        if after is not None:
            where.append("(hk, rk) > (?, ?)")
            args += after
        if hk_lo is not None:
            where.append("hk >= ?")
            args.append(hk_lo)
        if hk_hi is not None:
            where.append("hk < ?")
            args.append(hk_hi)
        sql = (f"SELECT hk, rk, size, doc FROM items WHERE {' AND '.join(where)}"
               " ORDER BY hk, rk LIMIT ?")
        rows = self._run(sql, (*args, limit)).fetchall()
        return cast("list[tuple[bytes, bytes, int, bytes]]", rows)  # the columns' types

    async def table_stats(self, tid: int) -> tuple[int, int]:
        row = self._run(
            "SELECT count(*), coalesce(sum(size), 0) FROM items WHERE tid=?", (tid,)).fetchone()
        assert row is not None  # an aggregate answers one row
        count, size = row
        return count, size

    async def drop_rows(self, tid: int) -> None:
        self._change("DELETE FROM items WHERE tid=?", (tid,))

    async def new_id(self) -> int:
        # The process's counter, not the table's: a counter in the database would roll
        # back with a failed unit, whose id may live on in memory (a cached document).
        tid = self.engine.last_id + 1
        self._change("INSERT INTO ids(id) VALUES(?)", (tid,))
        self.engine.last_id = tid
        return tid

    async def catalog_get(self, region: str, name: str) -> tuple[int, bytes, int] | None:
        return self._run("SELECT id, doc, version FROM catalog WHERE region=? AND name=?",
                         (region, name)).fetchone()

    async def catalog_regions(self) -> list[str]:
        return [region for (region,) in self._run(
            "SELECT DISTINCT region FROM catalog ORDER BY region", ())]

    async def catalog_list(self, region: str) -> list[str]:
        rows = self._run("SELECT name FROM catalog WHERE region=? ORDER BY name", (region,))
        return [name for (name,) in rows]

    async def catalog_insert(self, region: str, name: str, doc: bytes) -> int | None:
        if self._run("SELECT 1 FROM catalog WHERE region=? AND name=?",
                     (region, name)).fetchone():
            return None
        tid = await self.new_id()
        self._change("INSERT INTO catalog(id, region, name, doc) VALUES(?,?,?,?)",
                     (tid, region, name, doc))
        self.engine._catalog_changes.add(tid)
        return tid

    async def catalog_update(self, tid: int, doc: bytes, expected: int | None = None) -> int | None:
        if expected is None:
            row = self._change("UPDATE catalog SET doc=?, version=version+1 WHERE id=?"
                               " RETURNING version", (doc, tid)).fetchone()
        else:
            row = self._change("UPDATE catalog SET doc=?, version=version+1"
                               " WHERE id=? AND version=? RETURNING version",
                               (doc, tid, expected)).fetchone()
        self.engine._catalog_changes.add(tid)
        return None if row is None else row[0]

    async def catalog_version(self, tid: int) -> int | None:
        row = self._run("SELECT version FROM catalog WHERE id=?", (tid,)).fetchone()
        return None if row is None else row[0]

    async def catalog_delete(self, tid: int) -> None:
        self._change("DELETE FROM catalog WHERE id=?", (tid,))
        self.engine._catalog_changes.add(tid)

    async def announce(self, tid: int) -> None:
        pass  # nobody else shares the file

    async def token_claim(self, key: str, digest: bytes, expires: float,
                          now: float) -> tuple[bytes, bytes | None] | None:
        self._change("DELETE FROM tokens WHERE expires <= ?", (now,))
        row = self._run("SELECT digest, outcome FROM tokens WHERE key=?", (key,)).fetchone()
        if row is not None:
            return row[0], row[1]
        self._change("INSERT INTO tokens(key, digest, outcome, expires) VALUES(?,?,NULL,?)",
                     (key, digest, expires))
        return None

    async def token_settle(self, key: str, outcome: bytes, expires: float) -> None:
        self._change("UPDATE tokens SET outcome=?, expires=? WHERE key=?",
                     (outcome, expires, key))

    async def token_release(self, key: str) -> None:
        self._change("DELETE FROM tokens WHERE key=?", (key,))


class _SqliteReader(_SqliteTransaction):
    """Reads in autocommit mode: each statement sees one committed state."""

    __slots__ = ()

    async def __aenter__(self) -> "_SqliteReader":
        return self

    async def __aexit__(self, exc_type, exc, tb) -> None:
        pass
