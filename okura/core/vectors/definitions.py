"""A vector index as its table's catalog document declares it, and what an item holds
for it.

The document's VectorIndexes member is DynamoDB's VectorIndexDescription list (with
IndexStatus and Backfilling); each index's row space id is in IndexIds, as a secondary
index's is. A row of that space, keyed by the item's table key, holds the item's vector
as float32 bytes followed by the JSON of its search-schema attributes ({name: value}):
what a restart loads into memory without decoding items.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import orjson

from okura import errors
from okura.storage import keys
from okura.values.sizes import item_size

if TYPE_CHECKING:
    from okura.core.catalog import Table

MEMBER = "VectorIndexes"
HASH, INLINE_FILTER = "HASH", "INLINE_FILTER"


class VectorIndex:
    __slots__ = ("name", "id", "attribute", "dims", "distance", "schema", "hash_keys",
                 "projected", "everything", "status", "backfilling")

    def __init__(self, doc: dict, index_id: int, table: Table) -> None:
        self.name: str = doc["IndexName"]
        self.id = index_id
        self.attribute: str = doc["VectorAttribute"]["AttributeName"]
        self.dims: int = doc["Dimensions"]
        self.distance: str = doc["DistanceFunction"]
        types = {a["AttributeName"]: a["AttributeType"]
                 for a in table.doc["AttributeDefinitions"]}
        # (name, type) of each search-schema attribute, in schema order
        self.schema = tuple((e["AttributeName"], types[e["AttributeName"]])
                            for e in doc.get("SearchSchema", ()))
        self.hash_keys = tuple(e["AttributeName"] for e in doc.get("SearchSchema", ())
                               if e["SearchSchemaElementType"] == HASH)
        projection = doc["Projection"]
        self.everything = projection.get("ProjectionType") == "ALL"
        # the attributes a search can return (every one with ALL)
        self.projected = frozenset((*table.key_names, self.attribute,
                                    *(name for name, _ in self.schema),
                                    *projection.get("NonKeyAttributes", ())))
        self.status = doc.get("IndexStatus", "ACTIVE")
        self.backfilling = bool(doc.get("Backfilling"))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.schema)

    def check(self, item: dict) -> None:
        """Refuse an item whose vector attribute is not a list of `dims` numbers."""
        value = item.get(self.attribute)
        if value is None:
            return  # not indexed
        members = value.get("L")
        if type(members) is not list or any("N" not in member for member in members):
            raise errors.validation(
                "One or more parameter values were invalid: Invalid parameter type for "
                f"vector attribute {self.attribute}: expected a list of numbers")  # unverified
        if len(members) != self.dims:
            raise errors.validation(
                f"One or more parameter values were invalid: Vector attribute {self.attribute} "
                f"has {len(members)} dimensions, but vector index {self.name} expects "
                f"{self.dims}")  # unverified

    def row(self, item: dict | None) -> bytes | None:
        """The item's row in the index (None: not indexed: absent or no vector)."""
        if item is None:
            return None
        value = item.get(self.attribute)
        if value is None:
            return None
        vector = np.array([float(member["N"]) for member in value["L"]], np.float32)
        held = {name: item[name] for name, type_ in self.schema
                if type_ in item.get(name, ())}
        return vector.tobytes() + orjson.dumps(held)

    def parse_many(self, rows: list[bytes]) -> tuple[np.ndarray, dict[str, list]]:
        """(vectors, encoded search-schema values by attribute) of rows, at once."""
        cut = self.dims * 4
        vectors = np.frombuffer(b"".join(row[:cut] for row in rows), np.float32)
        held = [orjson.loads(row[cut:]) for row in rows] if self.schema else []
        return vectors.reshape(len(rows), self.dims), {
            name: [keys.encode(type_, h[name][type_]) if name in h else None for h in held]
            for name, type_ in self.schema}

    def parse(self, row: bytes) -> tuple[np.ndarray, dict[str, bytes | None]]:
        """(vector, encoded search-schema values) of a row."""
        cut = self.dims * 4
        held = orjson.loads(row[cut:])
        return (np.frombuffer(row, np.float32, self.dims),
                {name: keys.encode(type_, held[name][type_]) if name in held else None
                 for name, type_ in self.schema})

    def write_bytes(self, item: dict) -> int:
        """VectorWriteRequestBytes of replicating `item` to the index: 4 bytes per
        dimension, with the attribute's name, and the size of the other attributes it
        projects (what DynamoDB's example shows: 1,024 dimensions cost 4,125 bytes)."""
        projected = self.projection(item)
        projected.pop(self.attribute, None)
        return 4 * self.dims + len(self.attribute.encode()) + item_size(projected)

    def projection(self, item: dict) -> dict:
        if self.everything:
            return dict(item)
        return {name: value for name, value in item.items() if name in self.projected}


def of_table(table: Table) -> list[VectorIndex]:
    ids = table.doc.get("IndexIds", {})
    return [VectorIndex(doc, ids[doc["IndexName"]], table) for doc in table.doc.get(MEMBER, ())]
