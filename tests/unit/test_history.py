"""core.history and core.snapshots in process, where the test decides when the
background steps run: a base snapshot taken while writes go on holds the table as of
the moment point-in-time recovery was enabled; the state at any time and the changes
of a window come out of base and log; folding the log into the base changes neither."""
from __future__ import annotations

import asyncio

import orjson

from in_process import memory_app
from okura.core import history, snapshots
from okura.core.jobs import Runner
from okura.core.spaces import HISTORIES
from test_index_jobs import call

TABLE = "tab"
DAY = 86400


def item(pk: str, v: int) -> dict:
    return {"pk": {"S": pk}, "v": {"N": str(v)}}


async def put(app, pk: str, v: int) -> None:
    await call(app, "PutItem", {"TableName": TABLE, "Item": item(pk, v)})


async def delete(app, pk: str) -> None:
    await call(app, "DeleteItem", {"TableName": TABLE, "Key": {"pk": {"S": pk}}})


async def state(db, found: history.History, at: float) -> dict:
    """The table as of `at`, read a page at a time: keys in order, each once."""
    out: dict = {}
    after = None
    while True:
        rows, after = await found.page_at(db, at, after, 100)
        for _, _, _, doc in rows:
            parsed = orjson.loads(doc)
            assert parsed["pk"]["S"] not in out
            out[parsed["pk"]["S"]] = int(parsed["v"]["N"])
        if after is None:
            return out


async def run_jobs(db) -> None:
    while await db.features[Runner].round():
        pass


async def current(db) -> history.History:
    table = await db.catalog.get("us-east-1", TABLE)
    found = await history.of_table(db, table)
    assert found is not None
    return found


def test_base_snapshot_state_changes_and_compaction():
    async def scenario():
        async with memory_app() as app:
            db = app.db
            await call(app, "CreateTable", {
                "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
            count = 3 * snapshots.CHUNK + 7  # several copy steps
            for i in range(count):
                await put(app, f"k{i}", 0)
            await db.clock.advance(10)
            await call(app, "UpdateContinuousBackups", {
                "TableName": TABLE,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True}})
            enabled = db.clock.now()
            found = await current(db)
            assert not found.ready
            # writes between the copy's steps: some ahead of the copy, some behind it
            await db.clock.advance(10)
            step = 0
            while True:
                await put(app, f"k{step * 100}", 1)
                await delete(app, f"k{step * 100 + 1}")
                await put(app, f"new{step}", 1)
                step += 1
                if not await db.features[Runner].round():
                    break
            found = await current(db)
            assert found.ready and step > 3
            await db.clock.advance(10)
            middle = db.clock.now()
            await put(app, "k2", 2)
            await delete(app, "new0")
            await db.clock.advance(10)
            end = db.clock.now()

            at_enable = await state(db, found, enabled)
            assert at_enable == {f"k{i}": 0 for i in range(count)}
            expected = {f"k{i}": 0 for i in range(count)}
            for n in range(step):
                expected[f"k{n * 100}"] = 1
                expected.pop(f"k{n * 100 + 1}", None)
                expected[f"new{n}"] = 1
            assert await state(db, found, middle) == expected
            expected_end = dict(expected, k2=2)
            del expected_end["new0"]
            assert await state(db, found, end) == expected_end

            changes = [change async for change in found.changes(db, middle, end)]
            assert [(c.key, c.old and orjson.loads(c.old), c.new and orjson.loads(c.new))
                    for c in changes] == [
                ({"pk": {"S": "k2"}}, item("k2", 0), item("k2", 2)),
                ({"pk": {"S": "new0"}}, item("new0", 1), None)]

            # a month and more later, the log before the window is folded into the base
            await db.clock.advance(36 * DAY)
            await put(app, "late", 3)
            await history.upkeep(db)
            found = await current(db)
            async with db.engine.reader() as unit:
                log_rows = await unit.query(found.log, history.LOG, None, None, True, 1000)
            assert len(log_rows) == 1  # the write after the window's start
            earliest, latest = found.window(db.clock.now())
            assert 0 <= earliest - found.doc["BaseMicros"] / history.MICROS < 1
            assert await state(db, found, latest) == expected_end
            assert await state(db, found, db.clock.now()) == dict(expected_end, late=3)

            # disabling drops the history
            await call(app, "UpdateContinuousBackups", {
                "TableName": TABLE,
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": False}})
            async with db.engine.reader() as unit:
                assert await unit.scan(HISTORIES, None, None, None, 10) == []
            await run_jobs(db)  # its rows go in the background
            async with db.engine.reader() as unit:
                assert await unit.table_stats(found.log) == (0, 0)
                assert await unit.table_stats(found.base) == (0, 0)

    asyncio.run(scenario())
