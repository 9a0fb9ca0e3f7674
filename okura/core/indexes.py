"""Secondary indexes: what an index is, and where an item's entry lives.

An index entry is a row in the index's own row space (its id, from the same
sequence as table ids):
- hk: the 8-byte hash of the index partition key bytes, then those bytes, where
  the partition key bytes are the terminated encodings of the index's HASH
  attributes in schema order (one for classic indexes, up to four for
  multi-attribute keys);
- rk: the terminated encodings of its RANGE attributes in order (none, one, or up
  to four), then the table's own hk and rk, terminated, so entries with equal index
  keys stay distinct and ordered by table key;
- doc: the item's projected attributes as wire JSON (always including the table
  and index key attributes).
An item lacking any index key attribute has no entry (a sparse index).
"""
from __future__ import annotations

from okura.storage import keys


class Index:
    __slots__ = ("name", "id", "is_global", "hash_keys", "range_keys", "projection", "doc",
                 "status")

    def __init__(self, doc: dict, index_id: int, is_global: bool, types: dict[str, str]):
        self.name = doc["IndexName"]
        self.id = index_id
        self.is_global = is_global
        self.doc = doc
        self.status = doc.get("IndexStatus", "ACTIVE")  # a local index is always ACTIVE
        self.hash_keys = [(k["AttributeName"], types[k["AttributeName"]])
                          for k in doc["KeySchema"] if k["KeyType"] == "HASH"]
        self.range_keys = [(k["AttributeName"], types[k["AttributeName"]])
                           for k in doc["KeySchema"] if k["KeyType"] == "RANGE"]
        self.projection = doc["Projection"]

    @property
    def key_names(self) -> list[str]:
        return [name for name, _ in self.hash_keys + self.range_keys]

    def partition(self, values: list[dict]) -> bytes:
        """hk of the index partition holding these HASH attribute values."""
        encoded = b"".join(keys.sort_key(type_, value[type_])
                           for (_, type_), value in zip(self.hash_keys, values))
        return keys.partition_hash(encoded) + encoded

    def locate(self, item: dict, table_hk: bytes, table_rk: bytes) -> tuple[bytes, bytes] | None:
        """(hk, rk) of the item's entry, or None when it lacks an index key attribute."""
        values = []
        for name, _ in self.hash_keys + self.range_keys:
            value = item.get(name)
            if value is None:
                return None
            values.append(value)
        split = len(self.hash_keys)
        rk = b"".join(keys.sort_key(type_, value[type_])
                      for (_, type_), value in zip(self.range_keys, values[split:]))
        return self.partition(values[:split]), rk + keys.terminated(table_hk) + table_rk


def indexes_of(doc: dict) -> list[Index]:
    """The indexes a catalog document declares, with their row-space ids."""
    types = {a["AttributeName"]: a["AttributeType"] for a in doc["AttributeDefinitions"]}
    ids = doc.get("IndexIds", {})
    return [Index(index, ids[index["IndexName"]], kind == "GlobalSecondaryIndexes", types)
            for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes")
            for index in doc.get(kind, ())]
