"""SearchVectors' work in core: the k nearest items of a vector index, read back from
the table, and the bytes the search is metered in (VectorSearchRequestBytes).

Exact: every vector the filter leaves is scored (core/vectors/matrix.py); no
approximate index is used. The items come from the table as they are now (an item
deleted since it was scored is left out), undecoded: the operation projects them.
"""
from __future__ import annotations

import math

import numpy as np

from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.vectors.search_filter import Mask
from okura.core.vectors.definitions import VectorIndex
from okura.core.vectors.maintenance import Vectors
from okura.storage import keys


async def search(ctx: Context, table: Table, index: VectorIndex, query: np.ndarray, k: int,
                 mask: Mask | None) -> tuple[list[tuple[bytes, float]], int]:
    """([(the item's stored wire JSON, score)] best first, VectorSearchRequestBytes)."""
    matrix = await ctx.db.features[Vectors].matrix(index)
    rows = None if mask is None else np.nonzero(mask(matrix))[0]
    examined = matrix.count if rows is None else len(rows)
    nearest = matrix.nearest(query, k, rows) if examined else []
    engine = ctx.db.engine
    found = []
    # what the search examines (a logarithmic share of the vectors, as an approximate
    # index would: docs/vectors.md) and what it returns (the items' stored sizes)
    metered = 4 * index.dims * max(1, math.ceil(math.log2(examined + 1)))
    for key, score in nearest:
        hk, rk = keys.split_terminated(key)
        row = await engine.read_one(table.id, hk, rk)
        if row is not None:
            found.append((row[1], score))
            metered += row[0]
    return found, metered
