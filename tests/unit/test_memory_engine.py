"""The in-memory engine's bookkeeping: writes only note new and removed keys and ordered
reads file the notes, and rows move between buckets as a table grows, so any mix of
puts, deletes, failed units and reads must read exactly what a plain sorted model holds."""
from __future__ import annotations

import asyncio
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from okura.storage import memory
from okura.storage.engine import doc_of
from okura.storage.memory import MemoryEngine

# Hash keys that prefix each other and hold 0x00 and 0xFF, as the key encoding escapes them.
HASH_KEYS = [b"a", b"b", b"b\0", b"b\0\xff", b"b\xff", b"c"]
RANGE_KEYS = [b"", b"\0", b"1", b"2"]
KEYS = st.tuples(st.sampled_from(HASH_KEYS), st.sampled_from(RANGE_KEYS))
STEPS = st.lists(st.one_of(
    st.tuples(st.just("put"), KEYS, st.integers(1, 9)),
    st.tuples(st.just("delete"), KEYS),
    st.tuples(st.just("failed put"), KEYS, st.integers(1, 9)),
    st.tuples(st.just("failed delete"), KEYS),
    st.tuples(st.just("read"))), max_size=40)


class Abandon(Exception):
    pass


async def _reads(engine: MemoryEngine) -> tuple:
    async with engine.reader() as unit:
        every = await unit.scan(1, None, None, None, 100)
        pages = [await unit.query(1, hk, lo, hi, forward, 100)
                 for hk in HASH_KEYS for lo, hi in ((None, None), (b"1", None), (None, b"2"))
                 for forward in (True, False)]
        after = await unit.scan(1, (b"b", b"1"), None, b"c", 100)
        points = [await unit.get(1, hk, rk) for hk in HASH_KEYS for rk in RANGE_KEYS]
        return every, pages, after, points, await unit.table_stats(1)


def _model_reads(model: dict) -> tuple:
    every = [(hk, rk, size, b"%d" % size) for (hk, rk), size in sorted(model.items())]
    pages = []
    for hk in HASH_KEYS:
        for lo, hi in ((None, None), (b"1", None), (None, b"2")):
            rows = [(rk, size, doc) for h, rk, size, doc in every if h == hk
                    and (lo is None or rk >= lo) and (hi is None or rk < hi)]
            pages += [rows, rows[::-1]]
    after = [row for row in every if (b"b", b"1") < row[:2] and row[0] < b"c"]
    points = [None if (hk, rk) not in model else (model[hk, rk], b"%d" % model[hk, rk])
              for hk in HASH_KEYS for rk in RANGE_KEYS]
    return every, pages, after, points, (len(model), sum(model.values()))


@settings(max_examples=examples(300), deadline=None)
@given(STEPS, st.sampled_from([1, 2, memory._BUCKET]))
def test_reads_match_a_sorted_model(steps, bucket):
    """Small buckets split at every few rows, also inside units that fail."""
    async def run():
        engine, model = MemoryEngine(), {}
        for step in steps:
            kind = step[0]
            if kind == "read":
                assert await _reads(engine) == _model_reads(model)
                continue
            (hk, rk) = step[1]
            try:
                async with engine.transaction() as unit:
                    if kind.endswith("put"):
                        await unit.put(1, hk, rk, step[2], b"%d" % step[2])
                    else:
                        await unit.delete(1, hk, rk)
                    if kind.startswith("failed"):
                        raise Abandon
            except Abandon:
                continue
            if kind == "put":
                model[hk, rk] = step[2]
            else:
                model.pop((hk, rk), None)
        assert await _reads(engine) == _model_reads(model)

    _with_bucket(bucket, run)


def _with_bucket(rows: int, run) -> None:
    saved, memory._BUCKET = memory._BUCKET, rows
    try:
        asyncio.run(run())
    finally:
        memory._BUCKET = saved


def test_rows_stay_found_as_buckets_split_round_after_round():
    """Thousands of keys through many rounds of splits, with deletes and failed units
    between: every key reads back as the model has it, and each lives in the bucket
    its hash names."""
    async def run():
        engine, model, rng = MemoryEngine(), {}, random.Random(7)
        for step in range(6000):
            key, doc = b"%d" % rng.randrange(3000), b"%d" % step
            deleting = rng.random() < 0.25
            try:
                async with engine.transaction() as unit:
                    if deleting:
                        await unit.delete(1, key, b"")
                    else:
                        await unit.put(1, key, b"", len(doc), doc)
                    if rng.random() < 0.1:
                        raise Abandon
            except Abandon:
                continue
            if deleting:
                model.pop(key, None)
            else:
                model[key] = doc
        rows = engine.tables[1]
        assert len(rows.docs) > 300  # many rounds of splits
        assert len(rows.docs) == rows.low + 1 + rows.split
        # the splits spread the rows: no bucket holds many times its share
        assert max(map(len, rows.docs)) <= 8 * memory._BUCKET
        async with engine.reader() as unit:
            for i in range(3000):
                key = b"%d" % i
                assert doc_of(await unit.get(1, key, b"")) == model.get(key)
        for bucket, docs in enumerate(rows.docs):
            assert all(rows._bucket(key) == bucket for key in docs)
            assert docs.keys() == rows.sizes[bucket].keys()

    _with_bucket(4, run)



def test_notes_of_keys_that_come_and_go_stay_bounded():
    """A table whose keys come and go and is never read in order files its notes itself."""
    async def run():
        engine = MemoryEngine()
        for i in range(5000):
            async with engine.transaction() as unit:
                await unit.put(1, b"%d" % i, b"", 1, b"x")
                await unit.delete(1, b"%d" % i, b"")
        rows = engine.tables[1]
        assert len(rows.fresh) + len(rows.stale) <= 2 * rows.count + 1024 + 1
        async with engine.reader() as unit:
            assert await unit.scan(1, None, None, None, 10) == []

    asyncio.run(run())
