"""SearchVectors' speed and memory (issue 41, criterion 4).

In-process (the whole operation: JSON body, shape check, search, items read back,
reply; no HTTP): a table with a vector index of 384 dimensions (EUCLIDEAN, ALL
projection) filled with N random vectors through the one write path (items.write_batch,
25 items a unit, hooks included; BatchWriteItem's request checks of 384 numbers per
item would make the fill of 100,000 take half an hour here), then SearchVectors
with TopK 10 for random vectors: the median wall time and CPU time of REPEAT searches,
the time of the first search after the matrix is dropped (its load from the index's
rows in storage, as after a restart), and the matrix's memory against the vectors'
raw size (N x 384 x 4 bytes).

    python bench/vector_search.py [--sizes 10000,100000] [--engines memory,sqlite]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests", "unit")]

from in_process import app_on  # noqa: E402
from test_index_jobs import call  # noqa: E402
from ttl_sweep import settings_of  # noqa: E402

from okura.config import Settings  # noqa: E402
from okura.core import items  # noqa: E402
from okura.core.context import Context  # noqa: E402
from okura.core.vectors.definitions import of_table  # noqa: E402
from okura.core.vectors.maintenance import Vectors  # noqa: E402

DIMS = 384
REPEAT = 31


def numbers(vector: np.ndarray) -> list[dict]:
    return [{"N": f"{x:.6f}"} for x in vector.tolist()]


async def measure(settings: Settings, size: int) -> dict:
    rng = np.random.default_rng(1)
    async with app_on(settings) as app:
        db = app.db
        await call(app, "CreateTable", {
            "TableName": "vectors", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "VectorIndexes": [{"IndexName": "embedding", "Dimensions": DIMS,
                               "VectorAttribute": {"AttributeName": "v"},
                               "DistanceFunction": "EUCLIDEAN",
                               "Projection": {"ProjectionType": "ALL"}}]})
        table = await db.catalog.get("us-east-1", "vectors")
        assert table is not None
        ctx = Context(db, "BatchWriteItem", "us-east-1")
        began = time.perf_counter()
        for start in range(0, size, 25):
            block = rng.standard_normal((min(25, size - start), DIMS), np.float32)
            await items.write_batch(ctx, [items.Change(
                table, item, lambda _, item=item: item, needs_old=False)
                for item in ({"pk": {"S": f"k{start + i}"}, "v": {"L": numbers(vector)}}
                             for i, vector in enumerate(block))])
        loading = time.perf_counter() - began
        index = of_table(table)[0]
        vectors = db.features[Vectors]
        vectors.forget(index.id)  # as after a restart: the next search loads the rows

        async def search() -> None:
            await call(app, "SearchVectors", {
                "TableName": "vectors", "IndexName": "embedding", "TopK": 10,
                "SearchVector": numbers(rng.standard_normal(DIMS, np.float32))})

        began = time.perf_counter()
        await search()
        first = time.perf_counter() - began
        walls, cpus = [], []
        for _ in range(REPEAT):
            wall, cpu = time.perf_counter(), time.process_time()
            await search()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        matrix = await vectors.matrix(index)
        held = matrix.data.nbytes + matrix.norms.nbytes
        return {"load s": loading, "first ms": first * 1000,
                "median ms": statistics.median(walls) * 1000,
                "median CPU ms": statistics.median(cpus) * 1000,
                "memory / raw": held / (size * DIMS * 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--engines", default="memory,sqlite")
    args = parser.parse_args()
    print(f"{'engine':8} {'vectors':>8} {'fill s':>7} {'first ms':>9} {'median ms':>10} "
          f"{'CPU ms':>7} {'mem/raw':>8}")
    for engine in args.engines.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            with settings_of(engine, None) as settings:
                got = asyncio.run(measure(settings, size))
            print(f"{engine:8} {size:8d} {got['load s']:7.1f} {got['first ms']:9.1f} "
                  f"{got['median ms']:10.1f} {got['median CPU ms']:7.1f} "
                  f"{got['memory / raw']:8.3f}", flush=True)


if __name__ == "__main__":
    main()
