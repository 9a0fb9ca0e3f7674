"""The tables with TTL enabled, across regions, so the sweeper finds them without
reading every catalog document: one row per table in the TTL_TABLES row space
(hk: the region, terminated; rk: the table name), written with the setting. Its
"Indexed" says whether the table's expiry index (expiry.py) holds the items that were
there when TTL was enabled; a row without it (written by an okura before the index)
gets its index built by the sweeper."""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import orjson

from okura.core import jobs
from okura.core.ttl.due import Due
from okura.core.spaces import TTL_TABLES, expiry_of
from okura.storage import keys
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database
    from okura.storage.engine import Transaction

BACKFILL = "ttl-index"  # the job kind that indexes a table's items (expiry.py)


class Registered(NamedTuple):
    region: str
    name: str
    table_id: int
    indexed: bool | None  # None: registered before expiry indexes


def _key(region: str, name: str) -> tuple[bytes, bytes]:
    return keys.terminated(region.encode()), name.encode()


async def enable(db: Database, table: Table) -> None:
    """Register the table, and the job that indexes its items, together."""
    async with db.engine.transaction() as unit:
        await unit.put(TTL_TABLES, *_key(table.region, table.name), 0,
                       orjson.dumps({"TableId": table.id, "Indexed": False}))
        await jobs.record(unit, db, BACKFILL, {
            "Region": table.region, "Name": table.name, "TableId": table.id, "After": None,
            "Done": 0}, f"{BACKFILL}-{table.id}")
    db.features[Due].forget(table.id)
    jobs.wake(db)


async def indexed(unit: Transaction, table: Table) -> None:
    """The backfill of the table's expiry index has ended."""
    key = _key(table.region, table.name)
    raw = doc_of(await unit.get(TTL_TABLES, *key, lock=True))
    if raw is not None and orjson.loads(raw)["TableId"] == table.id:
        await unit.put(TTL_TABLES, *key, 0, orjson.dumps({"TableId": table.id,
                                                          "Indexed": True}))


async def disable(db: Database, region: str, name: str) -> None:
    """Forget the table and drop its expiry index."""
    hk, rk = _key(region, name)
    async with db.engine.transaction() as unit:
        raw = doc_of(await unit.get(TTL_TABLES, hk, rk, lock=True))
        if raw is None:
            return
        table_id = orjson.loads(raw)["TableId"]
        await unit.delete(TTL_TABLES, hk, rk)
        await unit.drop_rows(expiry_of(table_id))
    db.features[Due].forget(table_id)


async def tables(db: Database) -> list[Registered]:
    async with db.engine.reader() as unit:
        rows = await unit.scan(TTL_TABLES, None, None, None, 1 << 30)
    # A region name holds no NUL byte: its terminated form is its bytes and 00 00.
    found = []
    for hk, rk, _, raw in rows:
        doc = orjson.loads(raw)
        found.append(Registered(hk[:-2].decode(), rk.decode(), doc["TableId"],
                                doc.get("Indexed")))
    return found
