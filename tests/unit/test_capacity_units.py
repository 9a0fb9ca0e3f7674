"""The units rules of core/capacity.py, as the developer guide states them."""
import pytest

from okura.core.capacity import Ledger
from okura.core.catalog import Table

TABLE = Table(1, 1, "us-east-1", "000000000000", {
    "TableName": "t", "TableStatus": "ACTIVE",
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]})


def _read(size: int, consistent: bool, transactional: bool) -> float:
    ledger = Ledger()
    ledger.read(TABLE, b"hk", size, consistent, transactional=transactional)
    return ledger.charges[0][3]


def _write(size: int, transactional: bool) -> float:
    ledger = Ledger()
    ledger.write(TABLE, b"hk", size, transactional)
    return ledger.charges[0][3]


# Developer guide, read/write capacity mode: reads in 4 KB units, writes in 1 KB units, rounded up;
# eventually consistent reads cost half, transactional reads and writes double.
@pytest.mark.parametrize("size, consistent, transactional, units", [
    (0, True, False, 1.0),
    (3500, True, False, 1.0),
    (3500, False, False, 0.5),
    (4096, True, False, 1.0),
    (4097, True, False, 2.0),
    (8 * 1024, False, False, 1.0),
    (4096, False, True, 2.0),
])
def test_read_units(size, consistent, transactional, units):
    assert _read(size, consistent, transactional) == units


@pytest.mark.parametrize("size, transactional, units", [
    (0, False, 1.0), (1024, False, 1.0), (1025, False, 2.0), (1536, False, 2.0), (2048, True, 4.0),
])
def test_write_units(size, transactional, units):
    assert _write(size, transactional) == units


def test_a_write_run_again_after_a_lost_race_is_billed_once():
    """A single-item write whose COMMIT loses a race (Conflict: nothing stored) runs
    again; the lost attempt's charges must not stay in the ledger."""
    import asyncio

    from okura.core import items
    from okura.core.context import Context
    from okura.core.database import Database
    from okura.operations.shared import write_actions
    from okura.storage.engine import Conflict
    from okura.storage.memory import MemoryEngine

    async def scenario():
        failures = [0]  # commits still to fail

        class LosesItsFirstCommit:
            def __init__(self, unit):
                self.unit = unit

            async def __aenter__(self):
                return await self.unit.__aenter__()

            async def __aexit__(self, *exc):
                await self.unit.__aexit__(*exc)
                if exc[0] is None and failures[0]:
                    failures[0] -= 1
                    raise Conflict("serialization failure at COMMIT")

        class Engine:
            """The memory engine, whose commits fail while `failures` says so."""

            def __init__(self):
                self.engine = MemoryEngine()

            def __getattr__(self, name):
                return getattr(self.engine, name)

            def transaction(self):
                return LosesItsFirstCommit(self.engine.transaction())

        db = Database(Engine(), "000000000000")
        await db.open()
        table = await db.catalog.create("us-east-1", {
            "TableName": "t", "TableStatus": "ACTIVE",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})
        failures[0] = 1
        ctx = Context(db, "UpdateItem", "us-east-1")
        await items.write(ctx, write_actions.update_change(table, {"pk": {"S": "a"}}, None,
                                                           None, {}))
        return failures[0], ctx.ledger.consumed("TOTAL")

    failures, consumed = asyncio.run(scenario())
    assert failures == 0  # the first attempt did fail
    assert consumed == [{"TableName": "t", "CapacityUnits": 1.0}]
