"""Group commit in the SQLite engine: units of one loop iteration share a COMMIT,
and nothing is acknowledged before that COMMIT."""
from __future__ import annotations

import asyncio
import sqlite3

import pytest

from okura.storage.sqlite import SqliteEngine


def committed_rows(path) -> int:
    """Rows visible to another connection, i.e. committed."""
    with sqlite3.connect(path / "okura.sqlite3") as other:
        return other.execute("SELECT count(*) FROM items").fetchone()[0]


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


def test_a_failed_unit_rolls_back_alone(tmp_path):
    async def scenario():
        engine = SqliteEngine(str(tmp_path))
        await engine.open()
        async with engine.transaction() as unit:
            await unit.put(1, b"kept", b"", 1, b"{}")
        with pytest.raises(RuntimeError):
            async with engine.transaction() as unit:
                await unit.put(1, b"dropped", b"", 1, b"{}")
                raise RuntimeError("refused")
        await asyncio.sleep(0)
        async with engine.reader() as unit:
            assert await unit.get(1, b"kept", b"") == b"{}"
            assert await unit.get(1, b"dropped", b"") is None
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
