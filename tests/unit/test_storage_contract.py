"""The storage contract: the same cases against every Engine implementation
(in memory, SQLite on disk, PostgreSQL in a scratch schema), then the cases
only a backend with concurrent writers can fail (PostgreSQL, two engines standing
for two okura nodes over one database)."""
from __future__ import annotations

import asyncio
import contextlib
import random
import uuid

import asyncpg
import pytest

from okura.server.http import _finish
from okura.storage import keys
from okura.storage.engine import Conflict, Locked
from okura.storage.memory import MemoryEngine
from okura.storage.postgres import PostgresEngine
from okura.storage.postgres.migrations import MIGRATIONS
from okura.storage.sqlite import SqliteEngine


class Backend:
    persistent = True

    def engine(self) -> contextlib.AbstractAsyncContextManager:
        """A freshly opened engine over this backend's storage, closed on exit."""
        return _opened(self.make())

    def run(self, test) -> None:
        async def opened():
            async with self.engine() as engine:
                await test(engine)

        asyncio.run(opened())


@contextlib.asynccontextmanager
async def _opened(engine):
    await engine.open()
    try:
        yield engine
    finally:
        await engine.close()


class Memory(Backend):
    persistent = False

    def make(self):
        return MemoryEngine()

    async def stored_keys(self, engine, tid: int) -> list[tuple[bytes, bytes]]:
        rows = engine.tables.get(tid)
        return [] if rows is None else sorted(keys.split_terminated(key) for docs in rows.docs for key in docs)


class SqliteDisk(Backend):
    def __init__(self, path: str):
        self.path = path

    def make(self):
        return SqliteEngine(self.path)

    async def stored_keys(self, engine, tid: int) -> list[tuple[bytes, bytes]]:
        return engine.db.execute("SELECT hk, rk FROM items WHERE tid=? ORDER BY hk, rk",
                                 (tid,)).fetchall()


class Postgres(Backend):
    """A schema of its own in the session's scratch database, dropped afterwards."""

    def __init__(self, url: str):
        self.url = url
        self.schema = f"contract_{uuid.uuid4().hex[:12]}"
        asyncio.run(self._sql(f"CREATE SCHEMA {self.schema}"))

    def make(self):
        return PostgresEngine(f"{self.url}?search_path={self.schema}")

    async def _sql(self, statement: str) -> None:
        connection = await asyncpg.connect(self.url)
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    def drop(self) -> None:
        asyncio.run(self._sql(f"DROP SCHEMA {self.schema} CASCADE"))

    async def stored_keys(self, engine, tid: int) -> list[tuple[bytes, bytes]]:
        rows = await engine.pool.fetch("SELECT hk, rk FROM items WHERE tid=$1 ORDER BY hk, rk",
                                       tid)
        return [(hk, rk) for hk, rk in rows]


@pytest.fixture(params=["memory", "sqlite-disk", "postgres"])
def backend(request, tmp_path):
    if request.param == "memory":
        yield Memory()
    elif request.param == "sqlite-disk":
        yield SqliteDisk(str(tmp_path))
    else:
        scratch = Postgres(request.getfixturevalue("postgres_url"))
        yield scratch
        scratch.drop()


@pytest.fixture
def postgres(postgres_url):
    scratch = Postgres(postgres_url)
    yield scratch
    scratch.drop()


def contract(test):
    """Turn `async def test_x(engine)` into a test run against every backend."""

    def run(backend):
        backend.run(test)

    run.__doc__ = test.__doc__
    return run


async def _doc(unit, tid: int, hk: bytes, rk: bytes, **options) -> bytes | None:
    """The document of a row `get` returns as (size, doc)."""
    row = await unit.get(tid, hk, rk, **options)
    return None if row is None else row[1]


async def put(engine, tid: int, hk: bytes, rk: bytes, doc: bytes, size: int = 1) -> None:
    async with engine.transaction() as unit:
        await unit.put(tid, hk, rk, size, doc)


async def read(engine, tid: int, hk: bytes, rk: bytes = b"") -> bytes | None:
    async with engine.reader() as unit:
        return await _doc(unit, tid, hk, rk)


async def stats(engine, tid: int) -> tuple[int, int]:
    async with engine.reader() as unit:
        return await unit.table_stats(tid)


class Abandon(Exception):
    pass


# Items


@contract
async def test_get_of_absent_row_is_none(engine):
    assert await read(engine, 1, b"a") is None
    async with engine.transaction() as unit:
        assert await _doc(unit, 1, b"a", b"") is None
        assert await _doc(unit, 1, b"a", b"", lock=True) is None


@contract
async def test_put_then_get_returns_the_document(engine):
    await put(engine, 1, b"a", b"r", b'{"x":1}')
    assert await read(engine, 1, b"a", b"r") == b'{"x":1}'


@contract
async def test_put_many_tells_the_sizes_it_replaced(engine):
    """A plain put bills the larger of the old and new item without reading the old:
    put_many(replaced=True) gives the size of each row it replaced, 0 for a new one."""
    await put(engine, 1, b"a", b"", b"old", size=700)
    async with engine.transaction() as unit:
        assert await unit.put_many([(1, b"a", b"", 5, b"new"), (1, b"b", b"", 6, b"x")],
                                   replaced=True) == [700, 0]
        assert await unit.put_many([(1, b"c", b"", 1, b"y")]) is None
    assert await read(engine, 1, b"a") == b"new"
    assert await read(engine, 1, b"c") == b"y"


@contract
async def test_get_reads_a_row_with_its_size(engine):
    """A write's capacity is the larger of the old and new item: get gives the stored
    size of the row it replaces, inside a unit and locked alike."""
    await put(engine, 1, b"a", b"r", b'{"x":1}', size=123)
    async with engine.transaction() as unit:
        assert await unit.get(1, b"a", b"r") == (123, b'{"x":1}')
        assert await unit.get(1, b"a", b"r", lock=True) == (123, b'{"x":1}')
        assert await unit.get(1, b"a", b"absent", lock=True) is None


@contract
async def test_read_one_reads_one_stored_row_with_its_size(engine):
    await put(engine, 1, b"a", b"r", b'{"x":1}', size=7)
    assert await engine.read_one(1, b"a", b"r") == (7, b'{"x":1}')
    assert await engine.read_one(1, b"a", b"other") is None
    assert await engine.read_one(2, b"a", b"r") is None


@contract
async def test_put_many_inserts_and_replaces_each_row(engine):
    await put(engine, 1, b"a", b"", b'{"old":1}', size=9)
    async with engine.transaction() as unit:
        await unit.put_many([(1, b"a", b"", 2, b'{"a":2}'), (1, b"b", b"", 3, b'{"b":3}'),
                             (2, b"a", b"", 4, b'{"c":4}')])
    assert [await read(engine, tid, hk) for tid, hk in ((1, b"a"), (1, b"b"), (2, b"a"))] == [
        b'{"a":2}', b'{"b":3}', b'{"c":4}']
    assert await stats(engine, 1) == (2, 5)


@contract
async def test_put_many_of_hundreds_of_rows_writes_all_or_none(engine):
    rows = [(1, b"%04d" % n, b"", 1, b"{}") for n in range(250)]
    with pytest.raises(Abandon):
        async with engine.transaction() as unit:
            await unit.put_many(rows)
            raise Abandon
    assert await stats(engine, 1) == (0, 0)
    async with engine.transaction() as unit:
        await unit.put_many(rows + [(1, b"0007", b"", 5, b"later")])
    assert await stats(engine, 1) == (250, 254)
    assert await read(engine, 1, b"0007") == b"later"


@contract
async def test_put_overwrites(engine):
    await put(engine, 1, b"a", b"", b"old", size=10)
    await put(engine, 1, b"a", b"", b"new", size=3)
    assert await read(engine, 1, b"a") == b"new"
    assert await stats(engine, 1) == (1, 3)


@contract
async def test_delete_removes_the_row_and_tolerates_absence(engine):
    await put(engine, 1, b"a", b"", b"doc")
    async with engine.transaction() as unit:
        await unit.delete(1, b"a", b"")
        await unit.delete(1, b"missing", b"")
    assert await read(engine, 1, b"a") is None
    assert await stats(engine, 1) == (0, 0)


@contract
async def test_rows_are_keyed_by_table_hash_and_range(engine):
    rows = [(1, b"a", b""), (1, b"a", b"\x00"), (1, b"a\x00", b""), (2, b"a", b""), (1, b"b", b"a")]
    for number, (tid, hk, rk) in enumerate(rows):
        await put(engine, tid, hk, rk, str(number).encode())
    for number, (tid, hk, rk) in enumerate(rows):
        assert await read(engine, tid, hk, rk) == str(number).encode()


@contract
async def test_empty_and_binary_documents_round_trip(engine):
    document = bytes(range(256))
    await put(engine, 1, b"a", b"", document)
    await put(engine, 1, b"b", b"", b"")
    assert await read(engine, 1, b"a") == document
    assert await read(engine, 1, b"b") == b""


# Transactions


@contract
async def test_transaction_commits_every_write_together(engine):
    await put(engine, 1, b"gone", b"", b"doc")
    async with engine.transaction() as unit:
        await unit.put(1, b"a", b"", 1, b"A")
        await unit.put(2, b"b", b"", 1, b"B")
        await unit.delete(1, b"gone", b"")
    assert (await read(engine, 1, b"a"), await read(engine, 2, b"b")) == (b"A", b"B")
    assert await read(engine, 1, b"gone") is None


@contract
async def test_transaction_reads_its_own_writes(engine):
    async with engine.transaction() as unit:
        await unit.put(1, b"a", b"", 4, b"mine")
        assert await _doc(unit, 1, b"a", b"") == b"mine"
        assert await _doc(unit, 1, b"a", b"", lock=True) == b"mine"
        assert await unit.table_stats(1) == (1, 4)
        await unit.delete(1, b"a", b"")
        assert await _doc(unit, 1, b"a", b"", lock=True) is None


@contract
async def test_exception_rolls_back_every_write_and_propagates(engine):
    await put(engine, 1, b"kept", b"", b"old")
    tid = None
    with pytest.raises(Abandon):
        async with engine.transaction() as unit:
            assert await _doc(unit, 1, b"kept", b"", lock=True) == b"old"
            await unit.put(1, b"kept", b"", 1, b"new")
            await unit.put(1, b"added", b"", 1, b"doc")
            assert await _doc(unit, 1, b"absent", b"", lock=True) is None
            tid = await unit.catalog_insert("r", "t", b"{}")
            raise Abandon
    assert tid is not None
    assert await read(engine, 1, b"kept") == b"old"
    assert await read(engine, 1, b"added") is None
    assert await stats(engine, 1) == (1, 1)
    async with engine.reader() as unit:
        assert await unit.catalog_get("r", "t") is None


@contract
async def test_engine_serves_transactions_after_a_rollback(engine):
    with pytest.raises(Abandon):
        async with engine.transaction() as unit:
            await unit.put(1, b"a", b"", 1, b"doc")
            raise Abandon
    await put(engine, 1, b"a", b"", b"again")
    assert await read(engine, 1, b"a") == b"again"


def test_locked_read_of_absent_row_leaves_no_trace(backend):
    """A locked read that finds nothing (the start of a conditional put whose condition
    fails or that changes nothing) must not leave a row behind."""

    async def check(engine):
        async with engine.transaction() as unit:
            assert await _doc(unit, 1, b"a", b"", lock=True) is None
            assert await unit.table_stats(1) == (0, 0)
            assert await _doc(unit, 1, b"a", b"") is None
        assert await backend.stored_keys(engine, 1) == []
        assert await stats(engine, 1) == (0, 0)
        await put(engine, 1, b"a", b"", b"later")
        assert await read(engine, 1, b"a") == b"later"

    backend.run(check)


# Range reads


async def _fill(engine, rows: list[tuple[int, bytes, bytes]]) -> None:
    async with engine.transaction() as unit:
        for tid, hk, rk in rows:
            await unit.put(tid, hk, rk, len(hk + rk), hk + b"/" + rk)


@contract
async def test_query_reads_one_partition_within_bounds_in_either_order(engine):
    await _fill(engine, [(1, b"p", rk) for rk in (b"a", b"b", b"c", b"d")]
                + [(1, b"q", b"b"), (2, b"p", b"b"), (1, b"p\x00", b"a")])
    async with engine.reader() as unit:
        def rks(rows):
            return [rk for rk, _, _ in rows]

        assert await unit.query(1, b"p", None, None, True, 10) == [
            (rk, 2, b"p/" + rk) for rk in (b"a", b"b", b"c", b"d")]
        assert rks(await unit.query(1, b"p", b"b", None, True, 10)) == [b"b", b"c", b"d"]
        assert rks(await unit.query(1, b"p", None, b"c", True, 10)) == [b"a", b"b"]
        assert rks(await unit.query(1, b"p", b"b", b"d", False, 10)) == [b"c", b"b"]
        assert rks(await unit.query(1, b"p", None, None, False, 3)) == [b"d", b"c", b"b"]
        assert await unit.query(1, b"none", None, None, True, 10) == []


@contract
async def test_scan_walks_hash_then_range_order_after_a_key_within_hash_bounds(engine):
    rows = [(1, hk, rk) for hk in (b"a", b"b", b"c") for rk in (b"", b"x", b"y")]
    await _fill(engine, rows + [(2, b"b", b"x")])
    async with engine.reader() as unit:
        def keys_of(found):
            return [(hk, rk) for hk, rk, _, _ in found]

        everything = [(hk, rk) for _, hk, rk in rows]
        assert keys_of(await unit.scan(1, None, None, None, 100)) == everything
        assert keys_of(await unit.scan(1, (b"a", b"y"), None, None, 2)) == everything[3:5]
        assert keys_of(await unit.scan(1, None, b"b", b"c", 100)) == everything[3:6]
        assert keys_of(await unit.scan(1, (b"b", b""), b"b", None, 100)) == everything[4:]
        assert (await unit.scan(1, None, b"c", None, 1))[0] == (b"c", b"", 1, b"c/")


@contract
async def test_range_reads_skip_the_claim_of_an_absent_key(engine):
    await _fill(engine, [(1, b"p", b"a")])
    async with engine.transaction() as unit:
        assert await _doc(unit, 1, b"p", b"b", lock=True) is None
        assert len(await unit.query(1, b"p", None, None, True, 10)) == 1
        assert len(await unit.scan(1, None, None, None, 10)) == 1


# Ids and idempotency tokens


@contract
async def test_new_ids_and_table_ids_come_from_one_sequence(engine):
    async with engine.transaction() as unit:
        ids = [await unit.new_id(), await unit.catalog_insert("r", "t", b"{}"),
               await unit.new_id()]
    assert len(set(ids)) == 3


@contract
async def test_an_id_taken_by_a_failed_unit_is_never_returned_again(engine):
    """The failed unit may have left its id in memory (a cached table document)."""
    with pytest.raises(Abandon):
        async with engine.transaction() as unit:
            taken = await unit.new_id()
            raise Abandon
    async with engine.transaction() as unit:
        assert await unit.new_id() != taken
        assert await unit.catalog_insert("r", "t", b"{}") != taken


@contract
async def test_token_is_claimed_then_settled_then_expires(engine):
    async with engine.transaction() as unit:
        assert await unit.token_claim("k", b"digest", 60.0, 0.0) is None
        assert await unit.token_claim("k", b"other", 60.0, 1.0) == (b"digest", None)
        await unit.token_settle("k", b"outcome", 600.0)
        assert await unit.token_claim("k", b"other", 60.0, 599.0) == (b"digest", b"outcome")
        assert await unit.token_claim("k", b"new", 900.0, 600.0) is None
        assert await unit.token_claim("k", b"x", 900.0, 601.0) == (b"new", None)


@contract
async def test_released_token_may_be_claimed_again(engine):
    async with engine.transaction() as unit:
        assert await unit.token_claim("k", b"first", 60.0, 0.0) is None
        await unit.token_release("k")
        assert await unit.token_claim("k", b"second", 60.0, 0.0) is None
        assert await unit.token_claim("k", b"third", 60.0, 0.0) == (b"second", None)


@contract
async def test_unlocked_row_is_read_without_waiting(engine):
    await put(engine, 1, b"a", b"", b"doc")
    async with engine.transaction() as unit:
        assert await _doc(unit, 1, b"a", b"", wait=False) == b"doc"
        assert await _doc(unit, 1, b"a", b"", lock=True, wait=False) == b"doc"
        assert await _doc(unit, 1, b"absent", b"", lock=True, wait=False) is None
        await unit.put(1, b"absent", b"", 1, b"new")
    assert await read(engine, 1, b"absent") == b"new"


# Table statistics and dropping rows


@contract
async def test_table_stats_count_rows_and_sum_sizes_per_table(engine):
    assert await stats(engine, 1) == (0, 0)
    await put(engine, 1, b"a", b"", b"x", size=100)
    await put(engine, 1, b"b", b"", b"x", size=23)
    await put(engine, 2, b"a", b"", b"x", size=7)
    assert await stats(engine, 1) == (2, 123)
    assert await stats(engine, 2) == (1, 7)


@contract
async def test_table_stats_sum_sizes_past_32_bits(engine):
    async with engine.transaction() as unit:
        for number in range(12):
            await unit.put(1, bytes([number]), b"", 400_000_000, b"x")
    assert await stats(engine, 1) == (12, 4_800_000_000)


@contract
async def test_drop_rows_removes_one_table_only(engine):
    await put(engine, 1, b"a", b"", b"x")
    await put(engine, 1, b"b", b"r", b"x")
    await put(engine, 2, b"a", b"", b"kept")
    async with engine.transaction() as unit:
        await unit.drop_rows(1)
    assert await stats(engine, 1) == (0, 0)
    assert await read(engine, 2, b"a") == b"kept"


# Catalog


@contract
async def test_catalog_insert_get_update_delete(engine):
    async with engine.transaction() as unit:
        tid = await unit.catalog_insert("us-east-1", "Music", b'{"v":1}')
    assert isinstance(tid, int)
    async with engine.reader() as unit:
        assert await unit.catalog_get("us-east-1", "Music") == (tid, b'{"v":1}', 1)
        assert await unit.catalog_get("us-east-1", "music") is None
        assert await unit.catalog_get("eu-west-1", "Music") is None
    async with engine.transaction() as unit:
        assert await unit.catalog_update(tid, b'{"v":2}') == 2
    async with engine.reader() as unit:
        assert await unit.catalog_get("us-east-1", "Music") == (tid, b'{"v":2}', 2)
        assert await unit.catalog_version(tid) == 2
    async with engine.transaction() as unit:
        await unit.catalog_delete(tid)
    async with engine.reader() as unit:
        assert await unit.catalog_get("us-east-1", "Music") is None
        assert await unit.catalog_list("us-east-1") == []


@contract
async def test_catalog_update_compares_and_swaps_versions(engine):
    async with engine.transaction() as unit:
        tid = await unit.catalog_insert("us-east-1", "Swap", b"a")
    async with engine.transaction() as unit:
        assert await unit.catalog_update(tid, b"b", expected=1) == 2
        assert await unit.catalog_update(tid, b"stale", expected=1) is None
    async with engine.reader() as unit:
        assert await unit.catalog_get("us-east-1", "Swap") == (tid, b"b", 2)
    async with engine.transaction() as unit:
        await unit.catalog_delete(tid)
        assert await unit.catalog_version(tid) is None


@contract
async def test_catalog_names_are_unique_per_region(engine):
    async with engine.transaction() as unit:
        first = await unit.catalog_insert("us-east-1", "t", b"1")
        assert await unit.catalog_insert("us-east-1", "t", b"2") is None
        other = await unit.catalog_insert("eu-west-1", "t", b"3")
        # The transaction goes on after a refused insert (PostgreSQL aborts one that
        # hits a unique violation, so the backend must not provoke it).
        assert await unit.catalog_get("us-east-1", "t") == (first, b"1", 1)
    assert other not in (None, first)


@contract
async def test_catalog_list_is_per_region_in_code_point_order(engine):
    names = ["b", "B", "a", "A", "_x", "1", "a.b", "a-b", "Z9", "z"]
    async with engine.transaction() as unit:
        for name in names:
            await unit.catalog_insert("us-east-1", name, b"{}")
        await unit.catalog_insert("eu-west-1", "elsewhere", b"{}")
    async with engine.reader() as unit:
        assert await unit.catalog_list("us-east-1") == sorted(names)
        assert await unit.catalog_list("eu-west-1") == ["elsewhere"]
        assert await unit.catalog_list("ap-south-1") == []
        # every table of every region is reachable (what /metrics reports on)
        assert await unit.catalog_regions() == ["eu-west-1", "us-east-1"]


@contract
async def test_catalog_ids_are_never_reused(engine):
    seen = set()
    for _ in range(3):
        async with engine.transaction() as unit:
            tid = await unit.catalog_insert("r", "t", b"{}")
        assert tid not in seen
        seen.add(tid)
        async with engine.transaction() as unit:
            await unit.catalog_delete(tid)


def test_catalog_ids_are_never_reused_after_a_restart(backend):
    if not backend.persistent:
        pytest.skip("an in-memory engine forgets everything when closed")

    async def insert_and_delete(engine) -> int:
        async with engine.transaction() as unit:
            tid = await unit.catalog_insert("r", "t", b"{}")
            await unit.catalog_delete(tid)
        return tid

    async def both():
        async with backend.engine() as engine:
            first = await insert_and_delete(engine)
        async with backend.engine() as engine:
            assert await insert_and_delete(engine) != first

    asyncio.run(both())


def test_data_survives_closing_and_reopening(backend):
    if not backend.persistent:
        pytest.skip("an in-memory engine forgets everything when closed")

    async def both():
        async with backend.engine() as engine:
            await put(engine, 1, b"a", b"", b"doc", size=3)
            async with engine.transaction() as unit:
                tid = await unit.catalog_insert("r", "t", b"{}")
        async with backend.engine() as engine:
            assert await read(engine, 1, b"a") == b"doc"
            assert await stats(engine, 1) == (1, 3)
            async with engine.reader() as unit:
                assert await unit.catalog_get("r", "t") == (tid, b"{}", 1)

    asyncio.run(both())


# Key order: a range read will rely on the backend ordering key bytes as memcmp.

_EDGE_BYTES = [b"", b"\x00", b"\x00\x00", b"\x00\x01", b"\x01", b"\x7f", b"\x7f\xff", b"\x80",
               b"\x80\x00", b"\xfe", b"\xff", b"\xff\x00", b"\xff\xff", b"a", b"A", b"ab", b"b"]


def test_backend_orders_key_bytes_as_memcmp(backend):
    shuffle = random.Random(20260101)
    hash_keys = _EDGE_BYTES + [shuffle.randbytes(shuffle.randint(1, 12)) for _ in range(150)]
    range_keys = _EDGE_BYTES + [keys.encode("N", n) for n in
                                ("-1E+125", "-12.5", "-12", "-1.05", "-1", "-1E-130", "0",
                                 "1E-130", "1", "1.05", "12", "12.5", "1E+125")]
    rows = [(hk, rk) for hk in hash_keys for rk in shuffle.sample(range_keys, 4)]
    rows = list(dict.fromkeys(rows))
    shuffle.shuffle(rows)

    async def check(engine):
        async with engine.transaction() as unit:
            for hk, rk in rows:
                await unit.put(7, hk, rk, 1, b"x")
        assert await backend.stored_keys(engine, 7) == sorted(rows)

    backend.run(check)


# Concurrent writers (PostgreSQL): two engines are two okura nodes on one database.


def test_locked_increments_from_two_nodes_lose_no_update(postgres):
    rounds = 40

    async def increment(engine) -> None:
        for _ in range(rounds):
            async with engine.transaction() as unit:
                count = int(await _doc(unit, 1, b"counter", b"", lock=True) or b"0")
                await asyncio.sleep(0)  # let the other node's transaction interleave
                await unit.put(1, b"counter", b"", 1, str(count + 1).encode())

    async def race():
        async with postgres.engine() as one, postgres.engine() as two:
            await asyncio.gather(increment(one), increment(two), increment(one),
                                 increment(two))
            assert await read(one, 1, b"counter") == str(4 * rounds).encode()

    asyncio.run(race())


def test_put_if_absent_from_two_nodes_has_exactly_one_winner(postgres):
    """Two conditional puts (attribute_not_exists) racing for one absent key."""

    async def put_if_absent(engine, name: bytes) -> bool:
        async with engine.transaction() as unit:
            if await _doc(unit, 1, b"key", b"", lock=True) is not None:
                return False
            await asyncio.sleep(0.01)  # both have read "absent" before either writes
            await unit.put(1, b"key", b"", 1, name)
            return True

    async def race():
        async with postgres.engine() as one, postgres.engine() as two:
            names = [f"writer-{n}".encode() for n in range(10)]
            won = await asyncio.gather(*(put_if_absent(one if n % 2 else two, name)
                                         for n, name in enumerate(names)))
            assert won.count(True) == 1
            assert await read(one, 1, b"key") == names[won.index(True)]
            assert await stats(two, 1) == (1, 1)

    asyncio.run(race())


def test_writer_of_an_absent_key_waits_for_the_claimant(postgres):
    async def scenario(outcome: str) -> bytes | None:
        key = outcome.encode()  # one key per scenario: they share the schema
        async with postgres.engine() as one, postgres.engine() as two:
            claimed, release = asyncio.Event(), asyncio.Event()

            async def first():
                with contextlib.suppress(Abandon):
                    async with one.transaction() as unit:
                        assert await _doc(unit, 1, key, b"", lock=True) is None
                        claimed.set()
                        await release.wait()
                        if outcome == "put":
                            await unit.put(1, key, b"", 1, b"first")
                        elif outcome == "rollback":
                            await unit.put(1, key, b"", 1, b"rolled back")
                            raise Abandon

            async def second() -> bytes | None:
                await claimed.wait()
                async with two.transaction() as unit:
                    return await _doc(unit, 1, key, b"", lock=True)

            first_task, second_task = asyncio.create_task(first()), asyncio.create_task(second())
            try:
                await asyncio.sleep(0.3)
                waited = not second_task.done()
            finally:
                release.set()  # so that the engines can close whatever happened
                await first_task
            assert waited, "the second writer did not wait for the claim"
            return await second_task

    assert asyncio.run(scenario("put")) == b"first"
    assert asyncio.run(scenario("rollback")) is None
    assert asyncio.run(scenario("nothing")) is None


def test_deadlock_surfaces_as_conflict_and_rolls_back(postgres):
    async def lock_both(engine, first: bytes, second: bytes, both_hold: asyncio.Barrier):
        async with engine.transaction() as unit:
            await _doc(unit, 1, first, b"", lock=True)
            await unit.put(1, first, b"", 1, b"changed")
            await both_hold.wait()
            await _doc(unit, 1, second, b"", lock=True)

    async def race():
        async with postgres.engine() as one, postgres.engine() as two:
            await put(one, 1, b"a", b"", b"original")
            await put(one, 1, b"b", b"", b"original")
            both_hold = asyncio.Barrier(2)
            outcomes = await asyncio.gather(lock_both(one, b"a", b"b", both_hold),
                                            lock_both(two, b"b", b"a", both_hold),
                                            return_exceptions=True)
            assert outcomes.count(None) == 1
            assert sum(isinstance(outcome, Conflict) for outcome in outcomes) == 1
            winner = b"a" if outcomes[0] is None else b"b"
            loser = b"b" if winner == b"a" else b"a"
            assert await read(one, 1, winner) == b"changed"
            assert await read(one, 1, loser) == b"original"
            async with one.transaction() as unit:  # both pools still serve
                await unit.put(1, b"c", b"", 1, b"x")
            assert await read(two, 1, b"c") == b"x"

    asyncio.run(race())


def test_rows_read_in_a_transaction_stay_as_read_until_commit(postgres):
    """Reads that must agree use transaction(): another node's write waits for it."""

    async def scenario():
        async with postgres.engine() as one, postgres.engine() as two:
            await put(one, 1, b"a", b"", b"original")
            read_once = asyncio.Event()

            async def reads() -> tuple[bytes, bytes]:
                async with one.transaction() as unit:
                    first = await _doc(unit, 1, b"a", b"")
                    read_once.set()
                    await asyncio.sleep(0.3)
                    return first, await _doc(unit, 1, b"a", b"")

            async def write() -> None:
                await read_once.wait()
                await put(two, 1, b"a", b"", b"changed")

            seen, _ = await asyncio.gather(reads(), write())
            assert seen == (b"original", b"original")
            assert await read(one, 1, b"a") == b"changed"

    asyncio.run(scenario())


def test_reader_does_not_see_uncommitted_writes(postgres):
    async def scenario():
        async with postgres.engine() as engine:
            async with engine.transaction() as unit:
                await unit.put(1, b"a", b"", 1, b"pending")
                assert await read(engine, 1, b"a") is None
            assert await read(engine, 1, b"a") == b"pending"

    asyncio.run(scenario())


def test_locked_row_refuses_a_reader_that_does_not_wait(postgres):
    """TransactGetItems and TransactWriteItems do not queue: a row (or the claim of an
    absent key) that another transaction holds raises Locked, and the refused
    transaction stays usable."""

    async def scenario():
        async with postgres.engine() as one, postgres.engine() as two:
            await put(one, 1, b"held", b"", b"doc")
            await put(one, 1, b"free", b"", b"free doc")
            async with one.transaction() as holder:
                await _doc(holder, 1, b"held", b"", lock=True)
                assert await _doc(holder, 1, b"claimed", b"", lock=True) is None
                async with two.transaction() as unit:
                    for key, lock in ((b"held", True), (b"held", False), (b"claimed", True)):
                        with pytest.raises(Locked):
                            await _doc(unit, 1, key, b"", lock=lock, wait=False)
                    assert await _doc(unit, 1, b"free", b"", lock=True, wait=False) == b"free doc"
                    await unit.put(1, b"free", b"", 1, b"changed")
            assert await read(two, 1, b"free") == b"changed"

    asyncio.run(scenario())


async def locked_read(engine) -> bytes | None:
    """A single-item write's read of row (1, b"k")."""
    async with engine.transaction() as unit:
        return await _doc(unit, 1, b"k", b"", lock=True)


def test_single_write_meeting_a_transaction_is_refused_not_queued(postgres):
    """As in DynamoDB, a single-item write (lock, wait) that meets a transaction (lock,
    no wait) in flight on its item is refused (Locked, reported as a
    TransactionConflictException), while behind another single-item write it waits."""

    async def scenario():
        async with postgres.engine() as one, postgres.engine() as two:
            await put(one, 1, b"k", b"", b"doc")
            async with one.transaction() as holder:
                await _doc(holder, 1, b"k", b"", lock=True, wait=False)  # a transaction
                with pytest.raises(Locked):
                    await locked_read(two)
            async with one.transaction() as holder:
                await _doc(holder, 1, b"k", b"", lock=True)  # a single-item write
                waiting = asyncio.ensure_future(locked_read(two))
                await asyncio.sleep(0.2)
                assert not waiting.done()  # queued behind it, not refused
            assert await waiting == b"doc"

    asyncio.run(scenario())


def test_statement_cancelled_while_waiting_for_a_lock_surfaces_as_conflict(postgres):
    """PostgreSQL cancels a statement for a lock timeout's second signal (57014, "due to
    user request") or a statement_timeout: the unit ends with Conflict, as a lost race
    does (a transaction is cancelled with TransactionConflict, a single write runs
    again), never with an unexpected error."""

    async def scenario():
        async with postgres.engine() as one, postgres.engine() as two:
            await put(one, 1, b"k", b"", b"doc")
            async with one.transaction() as holder:
                await _doc(holder, 1, b"k", b"", lock=True)
                waiting = asyncio.ensure_future(locked_read(two))
                cancelled = False
                while not cancelled:  # until the waiting statement is found and cancelled
                    await asyncio.sleep(0.05)
                    cancelled = await one.pool.fetchval(
                        "SELECT bool_or(pg_cancel_backend(pid)) FROM pg_stat_activity"
                        " WHERE wait_event_type = 'Lock' AND query LIKE '%okura_lock(%'"
                        " AND datname = current_database()")
                with pytest.raises(Conflict):
                    await waiting
            assert await locked_read(two) == b"doc"  # the engine serves on

    asyncio.run(scenario())


def test_token_claimed_from_two_nodes_at_once_has_one_holder(postgres):
    async def claim(engine, digest: bytes):
        async with engine.transaction() as unit:
            held = await unit.token_claim("token", digest, 60.0, 0.0)
            await asyncio.sleep(0.01)
            return held

    async def race():
        async with postgres.engine() as one, postgres.engine() as two:
            held = await asyncio.gather(*(claim(one if n % 2 else two, bytes([n]))
                                          for n in range(6)))
            assert held.count(None) == 1
            winner = bytes([held.index(None)])
            assert all(h == (winner, None) for h in held if h is not None)

    asyncio.run(race())


def test_connections_open_for_handlers_run_outside_a_task(postgres):
    """The server runs a handler by hand, outside any task, until it first waits;
    the pool must still be able to open connections then."""

    async def scenario():
        async with postgres.engine() as engine:
            await put(engine, 1, b"a", b"", b"doc")
            loop = asyncio.get_running_loop()
            started: list[asyncio.Future] = []

            def eager():  # a plain callback, like HttpProtocol.on_message_complete
                for _ in range(3):  # more than the pool's one idle connection
                    coro = read(engine, 1, b"a")
                    started.append(asyncio.ensure_future(_finish(coro, coro.send(None))))

            loop.call_soon(eager)
            await asyncio.sleep(0)
            assert await asyncio.gather(*started) == [b"doc"] * 3

    asyncio.run(scenario())


# Schema migrations (PostgreSQL)


def test_nodes_starting_together_migrate_once(postgres):
    async def start():
        engines = [postgres.make() for _ in range(4)]
        await asyncio.gather(*(engine.open() for engine in engines))
        try:
            async with engines[0].pool.acquire() as connection:
                assert await connection.fetchval(
                    "SELECT value FROM okura_meta WHERE key='schema_version'") == str(len(MIGRATIONS))
            async with engines[1].transaction() as unit:
                assert await unit.catalog_insert("r", "t", b"{}") is not None
        finally:
            await asyncio.gather(*(engine.close() for engine in engines))

    asyncio.run(start())


def test_database_of_a_newer_okura_is_refused(postgres):
    async def scenario():
        async with postgres.engine() as engine:
            await engine.pool.execute(
                "UPDATE okura_meta SET value='9' WHERE key='schema_version'")
        engine = postgres.make()
        with pytest.raises(RuntimeError) as refused:
            await engine.open()
        assert str(refused.value) == (
            f"database holds schema version 9, this okura knows {len(MIGRATIONS)}")
        assert engine.pool is None

    asyncio.run(scenario())
