"""A node's cache of table documents against another node's changes: a change told
(PostgreSQL's NOTIFY) while this node was reading the document it changes must not
leave the document read before it cached for good (CI saw a restored table stay
CREATING on the other node)."""
from __future__ import annotations

import asyncio
import contextlib

import orjson

from okura.core.catalog import Catalog
from okura.core.clock import Clock

OLD = {"TableName": "restored", "TableStatus": "CREATING",
       "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
NEW = dict(OLD, TableStatus="ACTIVE")


class _Storage:
    """One table, version 1 (CREATING), changed by 'another node' to version 2 (ACTIVE)
    while the first read of it is under way."""

    shared = True

    def __init__(self) -> None:
        self.version, self.doc = 1, OLD
        self.catalog: Catalog | None = None

    def watch_catalog(self, callback):
        pass

    @contextlib.asynccontextmanager
    async def reader(self):
        yield self

    async def catalog_get(self, region: str, name: str):
        found = 7, orjson.dumps(self.doc), self.version
        if self.version == 1:  # the other node's change lands, and is told, mid-read
            self.version, self.doc = 2, NEW
            assert self.catalog is not None
            self.catalog.invalidate(7)
        return found


def test_a_document_changed_while_it_was_read_is_not_cached():
    storage = _Storage()
    catalog = storage.catalog = Catalog(storage, Clock(), "0")

    async def scenario():
        first = await catalog.get("us-east-1", "restored")
        second = await catalog.get("us-east-1", "restored")
        return first, second

    first, second = asyncio.run(scenario())
    assert first.doc["TableStatus"] == "CREATING"  # what was read, answered as it was
    assert (second.version, second.doc["TableStatus"]) == (2, "ACTIVE")
