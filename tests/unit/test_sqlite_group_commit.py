"""Group commit in the SQLite engine: units of one loop iteration share a COMMIT,
and nothing is acknowledged before that COMMIT."""
from __future__ import annotations

import asyncio

import apsw
import pytest

from okura.core.database import Database
from okura.storage.engine import doc_of
from okura.storage.sqlite import SqliteEngine


def committed(path, query: str) -> list:
    """What another connection sees, i.e. what is committed."""
    other = apsw.Connection(str(path / "okura.sqlite3"))
    try:
        return other.execute(query).fetchall()
    finally:
        other.close()


def committed_rows(path) -> int:
    return committed(path, "SELECT count(*) FROM items")[0][0]


def test_units_of_one_iteration_commit_together(tmp_path):
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        outcomes = []
        for n in range(3):
            async with engine.transaction() as unit:
                await unit.put(1, b"h%d" % n, b"", 1, b"{}")
            assert engine.after_commit(outcomes.append)
        assert committed_rows(tmp_path) == 0  # acknowledged by nobody yet
        await asyncio.sleep(0)
        assert outcomes == [None, None, None]
        assert committed_rows(tmp_path) == 3
        assert not engine.after_commit(outcomes.append)  # nothing pending any more
        await engine.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("failure", ["refused", "unbindable"])
def test_a_failed_unit_rolls_back_alone(tmp_path, failure):
    """A unit refused after its write, or whose held write fails as the unit ends (a
    unit's one write runs only then), leaves the units around it intact."""
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        async with engine.transaction() as unit:
            await unit.put(1, b"kept", b"", 1, b"{}")
        with pytest.raises((RuntimeError, TypeError)):
            async with engine.transaction() as unit:
                if failure == "refused":
                    await unit.put(1, b"dropped", b"", 1, b"{}")
                    raise RuntimeError("refused")
                await unit.put(1, b"dropped", b"", object(), b"{}")  # fails when it runs
        async with engine.transaction() as unit:
            await unit.put(1, b"after", b"", 1, b"{}")
        await asyncio.sleep(0)
        async with engine.reader() as unit:
            assert doc_of(await unit.get(1, b"kept", b"")) == b"{}"
            assert await unit.get(1, b"dropped", b"") is None
            assert doc_of(await unit.get(1, b"after", b"")) == b"{}"
        await engine.close()

    asyncio.run(scenario())


def test_close_commits_what_is_pending(tmp_path):
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        async with engine.transaction() as unit:
            await unit.put(1, b"late", b"", 1, b"{}")
        await engine.close()

    asyncio.run(scenario())
    assert committed_rows(tmp_path) == 1


def test_the_wal_stays_bounded_under_steady_writes(tmp_path, monkeypatch):
    """Writes that never pause must still let the WAL restart from its beginning: the
    file stays near what a few checkpoint intervals write, not everything written."""
    from okura.storage import sqlite as engine_module

    monkeypatch.setattr(engine_module, "CHECKPOINT_SECONDS", 0.05)
    monkeypatch.setattr(engine_module, "RESTART_FRAMES", 1000)
    page = b"x" * 3000
    limit = 400 * 2**20  # an unbounded WAL would hold all of it

    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        written, n, restarts = 0, 0, 0
        # Write until the WAL has restarted three times, or far more than a bounded WAL
        # needs: on a loaded machine the checkpoint thread gets less time per megabyte
        # (a fixed 2 s of writing was sometimes too little), but it must keep up.
        while restarts < 3 and written < limit:
            for _ in range(20):  # one group commit of 20 units, every iteration
                async with engine.transaction() as unit:
                    await unit.put(1, (n * 2654435761 % 2**32).to_bytes(4, "big"), b"", 1, page)
                n += 1
                written += len(page)
            await asyncio.sleep(0)
            if n % 1000 == 0:
                restarts = _wal_restarts(tmp_path)
        await engine.close()
        return written, restarts

    written, restarts = asyncio.run(scenario())
    assert restarts >= 3, (restarts, written)


def _wal_restarts(directory) -> int:
    """The WAL header's checkpoint sequence number counts the restarts
    (sqlite.org/fileformat2)."""
    with open(directory / "okura.sqlite3-wal", "rb") as wal:
        return int.from_bytes(wal.read(16)[12:16], "big")


def test_a_unit_whose_one_write_is_one_statement_takes_no_savepoint(tmp_path):
    """SQLite makes each statement atomic: SAVEPOINT and RELEASE would only cost time."""
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        seen = []
        engine.db.exec_trace = lambda cursor, statement, bindings: seen.append(statement) or True
        async with engine.transaction() as unit:
            assert await unit.get(1, b"a", b"") is None
            await unit.put(1, b"a", b"", 1, b"{}")
        single = [s.split()[0] for s in seen]
        seen.clear()
        async with engine.transaction() as unit:
            await unit.put(1, b"b", b"", 1, b"{}")
            await unit.delete(1, b"a", b"")
        double = [s.split()[0] for s in seen]
        engine.db.exec_trace = None
        await engine.close()
        return single, double

    single, double = asyncio.run(scenario())
    assert single == ["BEGIN", "SELECT", "INSERT"]
    assert double == ["SAVEPOINT", "INSERT", "DELETE", "RELEASE"]


def test_a_held_write_runs_before_the_statements_that_follow_it(tmp_path):
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        with pytest.raises(RuntimeError):
            async with engine.transaction() as unit:
                await unit.put(1, b"held", b"", 1, b"{}")
                await unit.put_many([(1, b"m1", b"", 1, b"{}"), (1, b"m2", b"", 1, b"{}")])
                assert await unit.table_stats(1) == (3, 3)
                raise RuntimeError("refused")  # all three roll back together
        async with engine.transaction() as unit:
            await unit.put(1, b"held", b"", 1, b"{}")
            assert doc_of(await unit.get(1, b"held", b"")) == b"{}"  # the unit reads its held write
        await asyncio.sleep(0)
        async with engine.reader() as unit:
            stats = await unit.table_stats(1)
        await engine.close()
        return stats

    assert asyncio.run(scenario()) == (1, 1)



def test_units_never_nest(tmp_path):
    """Every unit shares one savepoint: a nested unit would end its outer one's."""
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        with pytest.raises(RuntimeError, match="never nest"):
            async with engine.transaction() as unit:
                await unit.put(1, b"outer", b"", 1, b"{}")
                async with engine.transaction():
                    pass
        async with engine.transaction() as unit:  # the engine still serves units
            await unit.put(1, b"after", b"", 1, b"{}")
        await asyncio.sleep(0)
        async with engine.reader() as unit:
            found = [doc_of(await unit.get(1, key, b"")) for key in (b"outer", b"after")]
        await engine.close()
        return found

    assert asyncio.run(scenario()) == [None, b"{}"]


def test_a_group_that_sqlite_rolls_back_fails_its_requests_and_the_next_unit_starts_anew(tmp_path):
    """On a full disk SQLite rolls back the whole transaction, not the one statement: the
    group's earlier units are lost and must not be acknowledged, and a later unit must
    run in a fresh group rather than in autocommit (its reply would then say it failed
    while its write stayed)."""
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        async with engine.transaction() as unit:
            await unit.put(1, b"base", b"", 1, b"{}")
        await asyncio.sleep(0)
        pages = engine.db.execute("PRAGMA page_count").fetchone()[0]
        engine.db.execute(f"PRAGMA max_page_count={pages + 3}")  # a full disk, in effect
        outcomes = {}
        async with engine.transaction() as unit:
            await unit.put(1, b"lost", b"", 1, b"{}")
        engine.after_commit(lambda error: outcomes.setdefault("lost", error))
        with pytest.raises(apsw.Error):
            async with engine.transaction() as unit:
                await unit.put(1, b"too big", b"", 1, bytes(200_000))
        engine.db.execute("PRAGMA max_page_count=1073741823")
        async with engine.transaction() as unit:
            await unit.put(1, b"later", b"", 1, b"{}")
        engine.after_commit(lambda error: outcomes.setdefault("later", error))
        await asyncio.sleep(0)
        await engine.close()
        return outcomes

    outcomes = asyncio.run(scenario())
    assert isinstance(outcomes["lost"], apsw.Error)
    assert outcomes["later"] is None
    assert committed(tmp_path, "SELECT hk FROM items ORDER BY hk") == [(b"base",), (b"later",)]


def test_plans_do_not_depend_on_bound_values(tmp_path):
    """Without SQLite's query planner stability guarantee, a statement whose LIMIT or
    range bounds are bound values is planned again at every execution (Query: +30 %)."""
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        try:
            return engine.db.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, -1)  # -1: only ask
        finally:
            await engine.close()

    assert asyncio.run(scenario()) == 1


def test_ids_start_past_every_id_in_use_after_a_restart(tmp_path):
    """A table created in a group whose COMMIT failed lost its id, but rows written
    later through its cached document committed under it: after a restart the id
    counter (rolled back with the group) must not hand that id out again."""
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        failing = [True]
        engine.db.set_commit_hook(lambda: failing[0])
        async with engine.transaction() as unit:
            lost = await unit.catalog_insert("r", "t", b"{}")
        await asyncio.sleep(0)  # the group's COMMIT fails
        failing[0] = False
        async with engine.transaction() as unit:
            await unit.put(lost, b"h", b"", 1, b"{}")
        await engine.close()

        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        async with engine.transaction() as unit:
            fresh = await unit.catalog_insert("r", "fresh", b"{}")
            assert fresh != lost
            assert await unit.table_stats(fresh) == (0, 0)
        await engine.close()

    asyncio.run(scenario())


def _table_doc(name: str) -> dict:
    return {"TableName": name, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "TableStatus": "ACTIVE"}


def test_a_table_created_in_a_group_whose_commit_fails_is_forgotten(tmp_path):
    """The catalog caches a table it creates before the group commits; if the COMMIT
    fails, the table does not exist, and later requests must not find (and write
    rows into) it."""
    async def scenario():
        db = Database(SqliteEngine(str(tmp_path)), "123456789012")
        await db.open()
        failing = [True]
        db.engine.db.set_commit_hook(lambda: failing[0])
        assert await db.catalog.create("r", _table_doc("t")) is not None
        assert db.catalog.cached("r", "t") is not None
        await asyncio.sleep(0)  # the group's COMMIT fails
        failing[0] = False
        assert db.catalog.cached("r", "t") is None
        assert await db.catalog.get("r", "t") is None
        await db.close()

    asyncio.run(scenario())


def test_a_group_that_disk_full_rolls_back_is_ended_at_once(tmp_path):
    """SQLite rolls the whole group back itself when a statement finds the disk full:
    the group ends then, not at the next unit, so a request later in the same iteration
    does not find a table the lost group created (and write into it, outside any group
    that knows)."""
    async def scenario():
        db = Database(SqliteEngine(str(tmp_path)), "123456789012")
        await db.open()
        engine = db.engine
        outcomes = []
        assert await db.catalog.create("r", _table_doc("t")) is not None
        assert engine.after_commit(outcomes.append)
        (pages,), = engine.db.execute("PRAGMA page_count")
        engine.db.execute(f"PRAGMA max_page_count={pages}")  # the disk is full
        with pytest.raises(apsw.FullError):
            async with engine.transaction() as unit:
                await unit.put(1_000, b"h", b"", 1, b"x" * 300_000)
        engine.db.execute("PRAGMA max_page_count=1073741823")
        assert len(outcomes) == 1 and isinstance(outcomes[0], apsw.Error)
        assert db.catalog.cached("r", "t") is None
        assert await db.catalog.get("r", "t") is None
        await db.close()

    asyncio.run(scenario())
