"""A feature keeps its state in its own module, reached by its class through
`db.features`, never as a member of Database or a slot of Table; every Database tells
each feature of the table documents it sees and of the tables it deletes
(docs/design.md, "Adding a cross-cutting feature")."""
from __future__ import annotations

import asyncio

from in_process import memory_app
from okura.core import features
from okura.core.catalog import Table
from okura.core.consistency.lag import EVENTUAL, Lag
from okura.core.database import Database
from okura.core.reset import drop_everything
from okura.storage.memory import MemoryEngine
from test_index_jobs import call

# The database itself. A feature's state is not one of these: it is a Feature.
DATABASE = {"engine", "seal", "account", "status_delay", "stream_retention", "clock",
            "catalog", "background", "features"}
# A table's document and what its schema gives; write hooks follow a document from
# their own modules (core/write_hooks.py).
TABLE = ("id", "version", "region", "name", "doc", "arn", "hash_key", "hash_type",
         "range_key", "range_type", "key_names", "schema", "indexes", "serves_from")
KEYED = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
         "BillingMode": "PAY_PER_REQUEST"}


def test_a_database_holds_no_features_state():
    async def scenario():
        db = Database(MemoryEngine(), "000000000000")
        await db.open()
        try:
            assert set(vars(db)) == DATABASE
        finally:
            await db.close()
        assert {type(feature) for feature in db.features.values()} == set(features.KINDS)
        assert all(db.features[kind] is not None for kind in features.KINDS)

    asyncio.run(scenario())


def test_a_table_holds_no_features_slot():
    assert Table.__slots__ == TABLE


def test_each_feature_has_a_module_of_its_own():
    modules = [kind.__module__ for kind in features.KINDS]
    assert len(set(modules)) == len(modules)


class _Witness(features.Feature):
    """A feature of the test's own: what it was told."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.noticed: list[str] = []
        self.dropped: list[tuple[str, int]] = []

    def notice(self, table: Table) -> None:
        self.noticed.append(table.name)

    async def drop(self, unit, table: Table) -> None:
        rows = await unit.scan(table.id, None, None, None, 10)
        self.dropped.append((table.name, len(rows)))


def test_a_feature_hears_of_tables_saved_and_deleted():
    """DeleteTable and a reset drop a table the same way: each feature's `drop` runs in
    the unit that drops its items (here after them)."""
    features.register(_Witness)
    try:
        async def scenario():
            async with memory_app() as app:
                witness = app.db.features[_Witness]
                await call(app, "CreateTable", dict(KEYED, TableName="deleted"))
                await call(app, "PutItem", {"TableName": "deleted", "Item": {"pk": {"S": "a"}}})
                await call(app, "UpdateTable", {"TableName": "deleted",
                                                "DeletionProtectionEnabled": False})
                assert witness.noticed == ["deleted"]  # saved by UpdateTable
                await call(app, "DeleteTable", {"TableName": "deleted"})
                assert witness.dropped == [("deleted", 0)]
                await call(app, "CreateTable", dict(KEYED, TableName="reset"))
                assert await drop_everything(app.db) == 1
                assert witness.dropped == [("deleted", 0), ("reset", 0)]

        asyncio.run(scenario())
    finally:
        features.KINDS.remove(_Witness)


def test_a_deleted_table_leaves_nothing_in_the_lag():
    """The consistency feature forgets a deleted table's versions not yet visible (its
    `drop`), rather than keep them until some later write trims them."""
    async def scenario():
        async with memory_app() as app:
            lag = app.db.features[Lag]
            lag.set_mode(EVENTUAL)
            await call(app, "CreateTable", dict(KEYED, TableName="lagging"))
            await call(app, "PutItem", {"TableName": "lagging", "Item": {"pk": {"S": "a"}}})
            assert len(lag.pending) == len(lag.tables) == 1
            await call(app, "DeleteTable", {"TableName": "lagging"})
            assert lag.pending == lag.tables == {}

    asyncio.run(scenario())
