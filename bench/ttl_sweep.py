"""The TTL sweeper's cost follows the items that expire, not the table's size.

In-process (no HTTP): a table of N items, every one with a TTL a year ahead but 100
with one an hour ahead, TTL enabled after the items are written (so the expiry
index is built by its backfill job); a first sweep (nothing due: it reads nothing),
then the clock moves two hours on and the second sweep deletes the 100: its CPU time
and the expiry entries it read.
Run for N = 20,000 and 200,000 on memory and SQLite (and PostgreSQL, with --postgres: a
server where the user may create databases; each run gets its own, dropped after it):

    python bench/ttl_sweep.py [--sizes 20000,200000] [--engines memory,sqlite,postgres]
                              [--postgres postgresql://postgres@127.0.0.1]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests", "unit")]

from in_process import app_on  # noqa: E402
from test_index_jobs import call  # noqa: E402

from idle_cpu import fresh_database  # noqa: E402
from okura.config import Settings  # noqa: E402
from okura.core.jobs import Runner  # noqa: E402
from okura.core.ttl.sweeper import Sweeper  # noqa: E402

EXPIRING = 100
HOUR = 3600
YEAR = 365 * 86400


async def measure(settings: Settings, size: int) -> tuple[float, int, int, float]:
    """(CPU seconds of the sweep, entries read, items deleted, seconds of the backfill)."""
    async with app_on(settings) as app:
        db = app.db
        await call(app, "CreateTable", {
            "TableName": "swept", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
        now = int(db.clock.now())
        step = size // EXPIRING
        for start in range(0, size, 25):
            await call(app, "BatchWriteItem", {"RequestItems": {"swept": [
                {"PutRequest": {"Item": {"pk": {"S": f"k{n:07d}"}, "expires": {
                    "N": str(now + HOUR if n % step == 0 else now + YEAR)}}}}
                for n in range(start, min(start + 25, size))]}})
        await call(app, "UpdateTimeToLive", {"TableName": "swept", "TimeToLiveSpecification": {
            "Enabled": True, "AttributeName": "expires"}})
        began = time.perf_counter()
        while await db.features[Runner].round():  # the expiry index's backfill
            pass
        backfill = time.perf_counter() - began
        sweeper = Sweeper(db, 1.0)
        assert await sweeper.sweep() == 0 and sweeper.read == 0
        await db.clock.advance(2 * HOUR)
        gc.collect()  # not a collection of the whole heap, which happens to fall in the sweep
        began = time.process_time()  # CPU: the machine may be busy with other work
        deleted = await sweeper.sweep()
        return time.process_time() - began, sweeper.read, deleted, backfill


@contextlib.contextmanager
def settings_of(engine: str, server: str | None):
    if engine == "postgres":
        with fresh_database(server, "okura_sweep") as url:
            yield Settings(postgres=url)
        return
    with tempfile.TemporaryDirectory() as data:
        yield Settings(memory=engine == "memory", data_dir=data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,200000")
    parser.add_argument("--engines", default="memory,sqlite")
    parser.add_argument("--postgres", help="a PostgreSQL server's URL (no database)")
    args = parser.parse_args()
    print(f"{'engine':8} {'items':>8} {'expiring':>8} {'sweep CPU ms':>12} {'entries read':>12} "
          f"{'deleted':>7} {'backfill s':>10}")
    for engine in args.engines.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            with settings_of(engine, args.postgres) as settings:
                seconds, read, deleted, backfill = asyncio.run(measure(settings, size))
            print(f"{engine:8} {size:8d} {EXPIRING:8d} {seconds * 1000:12.1f} {read:12d} "
                  f"{deleted:7d} {backfill:10.1f}", flush=True)


if __name__ == "__main__":
    main()
