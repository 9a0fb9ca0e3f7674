"""The in-memory engine's order bookkeeping: writes only note new and removed keys and
ordered reads file the notes, so any mix of puts, deletes, failed units and reads must
read exactly what a plain sorted model holds."""
from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st

from okura.storage.memory import MemoryEngine

# Hash keys that prefix each other and hold 0x00 and 0xFF, as the key encoding escapes them.
HASH_KEYS = [b"a", b"b", b"b\0", b"b\0\xff", b"b\xff", b"c"]
KEYS = st.tuples(st.sampled_from(HASH_KEYS), st.sampled_from([b"", b"\0", b"1", b"2"]))
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
        return every, pages, after, await unit.table_stats(1)


def _model_reads(model: dict) -> tuple:
    every = [(hk, rk, size, b"%d" % size) for (hk, rk), size in sorted(model.items())]
    pages = []
    for hk in HASH_KEYS:
        for lo, hi in ((None, None), (b"1", None), (None, b"2")):
            rows = [(rk, size, doc) for h, rk, size, doc in every if h == hk
                    and (lo is None or rk >= lo) and (hi is None or rk < hi)]
            pages += [rows, rows[::-1]]
    after = [row for row in every if (b"b", b"1") < row[:2] and row[0] < b"c"]
    return every, pages, after, (len(model), sum(model.values()))


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_reads_match_a_sorted_model(steps):
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

    asyncio.run(run())



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
