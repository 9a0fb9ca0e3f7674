"""One vector index's vectors in memory: a contiguous float32 matrix, searched exactly.

Row i holds one item's vector; `keys[i]` its table key (terminated hk + rk: the row's
identity, and the tie-break that makes equal scores come out in one order every time);
`values[name][i]` the encoded value (storage/keys.py: order-preserving bytes) of each
search-schema attribute the item holds with its defined type, else None. A removed row
is filled by the last one, so rows stay contiguous. The matrix grows by a quarter when
full, so it stays within 1.25x of its vectors' raw size (plus the norms, one float each).
"""
from __future__ import annotations

import numpy as np

COSINE, EUCLIDEAN, DOT_PRODUCT = "COSINE", "EUCLIDEAN", "DOT_PRODUCT"


class Matrix:
    __slots__ = ("dims", "distance", "data", "norms", "count", "keys", "rows", "values")

    def __init__(self, dims: int, distance: str, names: tuple[str, ...], capacity: int = 0):
        self.dims = dims
        self.distance = distance
        self.data = np.empty((capacity, dims), np.float32)
        self.norms = np.empty(capacity, np.float32)  # each row's length (L2 norm)
        self.count = 0
        self.keys: list[bytes] = []
        self.rows: dict[bytes, int] = {}
        self.values: dict[str, list] = {name: [] for name in names}

    @property
    def raw_bytes(self) -> int:
        return self.count * self.dims * 4

    def put(self, key: bytes, vector: np.ndarray, values: dict[str, bytes | None]) -> None:
        """Add or replace the row of `key`."""
        row = self.rows.get(key)
        if row is None:
            row = self.count
            if row == len(self.data):
                self._grow(row + 1 + row // 4)
            self.count += 1
            self.keys.append(key)
            self.rows[key] = row
            for name, column in self.values.items():
                column.append(values.get(name))
        else:
            for name, column in self.values.items():
                column[row] = values.get(name)
        self.data[row] = vector
        self.norms[row] = np.sqrt(np.dot(vector, vector))

    def extend(self, keys: list[bytes], vectors: np.ndarray,
               values: dict[str, list[bytes | None]]) -> None:
        """Append rows of keys not held yet, all at once (a load from storage)."""
        start, count = self.count, len(keys)
        if start + count > len(self.data):
            self._grow(start + count)
        self.data[start:start + count] = vectors
        self.norms[start:start + count] = np.sqrt(np.einsum("ij,ij->i", vectors, vectors))
        self.count += count
        self.keys.extend(keys)
        self.rows.update(zip(keys, range(start, start + count)))
        for name, column in self.values.items():
            column.extend(values[name])

    def remove(self, key: bytes) -> None:
        row = self.rows.pop(key, None)
        if row is None:
            return
        last = self.count - 1
        if row != last:  # the last row fills the hole
            moved = self.keys[last]
            self.data[row] = self.data[last]
            self.norms[row] = self.norms[last]
            self.keys[row] = moved
            self.rows[moved] = row
            for column in self.values.values():
                column[row] = column[last]
        self.keys.pop()
        for column in self.values.values():
            column.pop()
        self.count = last

    def _grow(self, capacity: int) -> None:
        data = np.empty((capacity, self.dims), np.float32)
        data[:self.count] = self.data[:self.count]
        norms = np.empty(capacity, np.float32)
        norms[:self.count] = self.norms[:self.count]
        self.data, self.norms = data, norms

    def scores(self, query: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
        """Each row's score against `query` (all rows, or those listed), as the index's
        distance function defines it."""
        data = self.data[:self.count] if rows is None else self.data[rows]
        norms = self.norms[:self.count] if rows is None else self.norms[rows]
        dots = data @ query
        if self.distance == DOT_PRODUCT:
            return dots
        length = np.float32(np.sqrt(np.dot(query, query)))
        if self.distance == COSINE:
            # 0 for the same direction, 2 for opposite ones; a zero vector has no
            # direction: 1, as for a perpendicular one
            scale = norms * length
            with np.errstate(divide="ignore", invalid="ignore"):
                cosines = np.where(scale > 0, dots / scale, 0)
            return (1 - np.clip(cosines, -1, 1)).astype(np.float32)
        squared = norms * norms - 2 * dots + length * length
        return np.sqrt(np.maximum(squared, 0))

    def nearest(self, query: np.ndarray, k: int,
                rows: np.ndarray | None = None) -> list[tuple[bytes, float]]:
        """The k best rows (of all, or of `rows`) as (key, score), best first; equal
        scores in key order. Exact: every candidate row is scored."""
        scores = self.scores(query, rows)
        # rank: smaller is better
        rank = -scores if self.distance == DOT_PRODUCT else scores
        if len(rank) > k:
            # every row that scores as well as the k-th, so ties are broken by key
            part = np.argpartition(rank, k - 1)[:k]
            picked = np.nonzero(rank <= rank[part].max())[0]
        else:
            picked = np.arange(len(rank))
        index = np.arange(self.count) if rows is None else rows
        keys = self.keys
        best = sorted(picked.tolist(), key=lambda i: (rank[i], keys[index[i]]))[:k]
        return [(keys[index[i]], float(scores[i])) for i in best]
