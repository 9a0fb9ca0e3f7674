"""TTL expiry indexes (core/ttl/expiry.py): the write loop keeps each item's entry at
its expiry time, enabling TTL indexes the items already there, the sweeper reads only
the entries due and idles without I/O when nothing is, and the index goes with the
table or its TTL setting."""
from __future__ import annotations

import asyncio

import orjson
import pytest

from in_process import app_on
from okura.config import Settings
from okura.core.jobs import Runner
from okura.core.spaces import TTL_TABLES, expiry_of
from okura.core.ttl import expiry
from okura.core.ttl.sweeper import Sweeper
from okura.server.app import App
from test_index_jobs import call

YEAR = 365 * 86400


@pytest.fixture(params=["memory", "sqlite"])
def app_of(request, tmp_path):
    """A function making the in-process app over each embedded engine."""
    settings = Settings(memory=request.param == "memory", data_dir=str(tmp_path))
    return lambda: app_on(settings)


async def entries(app: App, table_id: int) -> list[tuple[float, str]]:
    """(expiry time, pk) of each entry of the table's expiry index, in order."""
    async with app.db.engine.reader() as unit:
        rows = await unit.query(expiry_of(table_id), b"", None, None, True, 1000)
    found = []
    for rk, _, _ in rows:
        micros, hk, item_rk = expiry.parse(rk)
        async with app.db.engine.reader() as unit:
            row = await unit.get(table_id, hk, item_rk)
        found.append((micros / 1e6, orjson.loads(row[1])["pk"]["S"] if row else "?"))
    return found


async def table_with_ttl(app: App, items: dict[str, float | str | None]) -> int:
    """A table holding `items` (pk -> its "expires": a Number, a String, or none),
    written before TTL is enabled on "expires"; its id."""
    await call(app, "CreateTable", {
        "TableName": "expiring", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
    for pk, expires in items.items():
        item = {"pk": {"S": pk}}
        if isinstance(expires, str):
            item["expires"] = {"S": expires}
        elif expires is not None:
            item["expires"] = {"N": str(expires)}
        await call(app, "PutItem", {"TableName": "expiring", "Item": item})
    await call(app, "UpdateTimeToLive", {"TableName": "expiring", "TimeToLiveSpecification": {
        "Enabled": True, "AttributeName": "expires"}})
    while await app.db.features[Runner].round():  # the index's backfill
        pass
    return (await app.db.catalog.get("us-east-1", "expiring")).id


def keys_left(reply: dict) -> list[str]:
    return sorted(item["pk"]["S"] for item in reply["Items"])


def test_enabling_ttl_indexes_the_items_already_there_and_a_sweep_reads_the_due_only(app_of):
    async def scenario():
        async with app_of() as app:
            now = app.db.clock.now()
            table_id = await table_with_ttl(app, {
                "past": now - 60, "later": now + 3600, "string": str(now - 60), "none": None,
                "ancient": now - 6 * YEAR, "negative": -5})
            assert [pk for _, pk in await entries(app, table_id)] == [
                "ancient", "past", "later"]
            sweeper = Sweeper(app.db, 1.0)
            assert await sweeper.sweep() == 1
            assert sweeper.read == 2  # "ancient" (its entry dropped: it never expires) and "past"
            assert [pk for _, pk in await entries(app, table_id)] == ["later"]
            reply = await call(app, "Scan", {"TableName": "expiring"})
            assert keys_left(reply) == ["ancient", "later", "negative", "none", "string"]
            async with app.db.engine.reader() as unit:
                [(_, _, _, registered)] = await unit.scan(TTL_TABLES, None, None, None, 10)
            assert orjson.loads(registered) == {"TableId": table_id, "Indexed": True}

    asyncio.run(scenario())


def test_writes_move_remove_and_add_entries(app_of):
    async def scenario():
        async with app_of() as app:
            now = int(app.db.clock.now())
            table_id = await table_with_ttl(app, {"a": now + 100, "b": now + 200})
            await call(app, "UpdateItem", {
                "TableName": "expiring", "Key": {"pk": {"S": "a"}},
                "UpdateExpression": "SET expires = :t", "ExpressionAttributeValues": {
                    ":t": {"N": str(now + 300)}}})
            await call(app, "UpdateItem", {  # a change elsewhere leaves the entry be
                "TableName": "expiring", "Key": {"pk": {"S": "a"}},
                "UpdateExpression": "SET colour = :o", "ExpressionAttributeValues": {
                    ":o": {"S": "x"}}})
            await call(app, "DeleteItem", {"TableName": "expiring", "Key": {"pk": {"S": "b"}}})
            await call(app, "PutItem", {"TableName": "expiring", "Item": {
                "pk": {"S": "c"}, "expires": {"N": str(now + 50)}}})
            await call(app, "PutItem", {"TableName": "expiring", "Item": {
                "pk": {"S": "d"}, "expires": {"S": "soon"}}})
            assert await entries(app, table_id) == [(now + 50, "c"), (now + 300, "a")]

    asyncio.run(scenario())


def test_an_idle_sweeper_looks_at_nothing_until_a_write_brings_an_expiry_near(app_of):
    async def scenario():
        async with app_of() as app:
            now = app.db.clock.now()
            await table_with_ttl(app, {"later": now + 3600})
            sweeper = Sweeper(app.db, 1.0)
            assert sweeper.pending()  # TTL was just enabled: it looks once
            assert await sweeper.sweep() == 0
            assert not sweeper.pending()  # nothing due before the hour is out
            await app.db.clock.advance(1800)
            assert not sweeper.pending()
            await call(app, "PutItem", {"TableName": "expiring", "Item": {
                "pk": {"S": "soon"}, "expires": {"N": str(now + 1000)}}})
            assert sweeper.pending()
            assert await sweeper.sweep() == 1
            assert not sweeper.pending()
            await app.db.clock.advance(1800)
            assert sweeper.pending()

    asyncio.run(scenario())


def test_the_index_goes_with_the_ttl_setting_and_with_the_table(app_of):
    async def scenario():
        async with app_of() as app:
            now = app.db.clock.now()
            table_id = await table_with_ttl(app, {"later": now + 3600})
            assert len(await entries(app, table_id)) == 1
            await app.db.clock.advance(3600)  # TTL changes once an hour
            await call(app, "UpdateTimeToLive", {
                "TableName": "expiring", "TimeToLiveSpecification": {
                    "Enabled": False, "AttributeName": "expires"}})
            assert await entries(app, table_id) == []
            await app.db.clock.advance(3600)
            await call(app, "UpdateTimeToLive", {
                "TableName": "expiring", "TimeToLiveSpecification": {
                    "Enabled": True, "AttributeName": "expires"}})
            while await app.db.features[Runner].round():
                pass
            assert len(await entries(app, table_id)) == 1
            await call(app, "DeleteTable", {"TableName": "expiring"})
            assert await entries(app, table_id) == []

    asyncio.run(scenario())


def test_a_table_registered_before_expiry_indexes_gets_its_index(app_of):
    async def scenario():
        async with app_of() as app:
            now = app.db.clock.now()
            table_id = await table_with_ttl(app, {"past": now - 60})
            async with app.db.engine.transaction() as unit:  # as an older okura left it
                await unit.drop_rows(expiry_of(table_id))
                [(hk, rk, _, _)] = await unit.scan(TTL_TABLES, None, None, None, 10)
                await unit.put(TTL_TABLES, hk, rk, 0, orjson.dumps({"TableId": table_id}))
            sweeper = Sweeper(app.db, 1.0)
            assert await sweeper.sweep() == 0  # it records the backfill
            while await app.db.features[Runner].round():
                pass
            assert await sweeper.sweep() == 1

    asyncio.run(scenario())
