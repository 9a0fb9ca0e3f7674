"""Item-collection sizes of tables with local secondary indexes: the 10 GB limit and
SizeEstimateRangeGB (a collection of 10 GB cannot be written in a test, so the
counter is driven directly over the in-memory engine)."""
from __future__ import annotations

import asyncio

import pytest

from okura.core import item_collections
from okura.core.catalog import Table
from okura.errors import DynamoError
from okura.storage.memory import MemoryEngine

GB = 1024 ** 3
TABLE = Table(7, 1, "us-east-1", "000000000000", {
    "TableName": "collections", "TableStatus": "ACTIVE",
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})


def grow_all(growths: list[int]) -> list[int | str]:
    """The size after each growth of one collection, or the refusal's message."""
    async def run():
        engine = MemoryEngine()
        await engine.open()
        out = []
        for growth in growths:
            try:
                async with engine.transaction() as unit:
                    out.append(await item_collections.grow(unit, TABLE, b"hk", growth))
            except DynamoError as refusal:
                out.append(f"{refusal.name}: {refusal.message}")
        await engine.close()
        return out
    return asyncio.run(run())


def test_growth_past_ten_gigabytes_is_refused():
    assert grow_all([10 * GB - 5, 5, 1, -100, 1]) == [
        10 * GB - 5, 10 * GB,
        "ItemCollectionSizeLimitExceededException: Collection size exceeded.",
        10 * GB - 100, 10 * GB - 99]


def test_a_collection_over_the_limit_may_still_shrink():
    assert grow_all([10 * GB, -1, 0]) == [10 * GB, 10 * GB - 1, 10 * GB - 1]


@pytest.mark.parametrize("size, expected", [
    (0, [0.0, 1.0]), (GB - 1, [0.0, 1.0]), (GB, [1.0, 2.0]), (int(9.5 * GB), [9.0, 10.0])])
def test_size_estimate_range(size, expected):
    assert item_collections.size_range_gb(size) == expected
