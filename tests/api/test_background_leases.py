"""Background duties take their leases only when they have work (issue 37): an idle
node over PostgreSQL writes no lease row, however often its duties look; the TTL
sweeper takes its lease once an item is due."""
from __future__ import annotations

import asyncio
import time
import uuid

import asyncpg
import pytest
from conftest import Server, _create_database, _drop_database, unique_name

from okura.core.spaces import LEASES


@pytest.fixture(scope="module")
def database():
    name = f"okura_test_{uuid.uuid4().hex[:12]}"
    url = asyncio.run(_create_database(name))
    if url is None:
        pytest.skip("no PostgreSQL server on 127.0.0.1:5432")
    yield url
    asyncio.run(_drop_database(name))


async def leases(url: str) -> list[str]:
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch("SELECT hk FROM items WHERE tid=$1 ORDER BY hk", LEASES)
        return [bytes(row["hk"]).decode() for row in rows]
    finally:
        await connection.close()


def test_an_idle_node_takes_no_lease_and_the_sweeper_takes_one_for_work(database):
    node = Server("--postgres", database, "--ttl-interval", "0.05")
    try:
        ddb = node.client()
        name = unique_name()
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "expires"})
        ddb.put_item(TableName=name, Item={"pk": {"S": "later"},
                                           "expires": {"N": str(int(time.time()) + 3600)}})
        time.sleep(0.5)  # ten sweeps, with nothing due; the TTL index's job has ended
        assert asyncio.run(leases(database)) == [
            f"job/ttl-index-{table_id(database, name)}"]
        ddb.put_item(TableName=name, Item={"pk": {"S": "past"},
                                           "expires": {"N": str(int(time.time()) - 60)}})
        deadline = time.monotonic() + 5
        while len(ddb.scan(TableName=name, ConsistentRead=True)["Items"]) > 1:
            assert time.monotonic() < deadline, "the sweep did not come"
            time.sleep(0.05)
        assert "ttl" in asyncio.run(leases(database))
    finally:
        node.stop()


def table_id(url: str, name: str) -> int:
    async def read() -> int:
        connection = await asyncpg.connect(url)
        try:
            return await connection.fetchval("SELECT id FROM catalog WHERE name=$1", name)
        finally:
            await connection.close()
    return asyncio.run(read())
