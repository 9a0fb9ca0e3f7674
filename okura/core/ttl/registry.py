"""The tables with TTL enabled, across regions, so the sweeper finds them without
reading every catalog document: one row per table in the TTL_TABLES row space
(hk: the region, terminated; rk: the table name), written with the setting."""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import orjson

from okura.core.spaces import TTL_TABLES
from okura.storage import keys

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database


class Registered(NamedTuple):
    region: str
    name: str
    table_id: int


def _key(region: str, name: str) -> tuple[bytes, bytes]:
    return keys.terminated(region.encode()), name.encode()


async def enable(db: Database, table: Table) -> None:
    hk, rk = _key(table.region, table.name)
    async with db.engine.transaction() as unit:
        await unit.put(TTL_TABLES, hk, rk, 0, orjson.dumps({"TableId": table.id}))


async def disable(db: Database, region: str, name: str) -> None:
    hk, rk = _key(region, name)
    async with db.engine.transaction() as unit:
        await unit.delete(TTL_TABLES, hk, rk)


async def tables(db: Database) -> list[Registered]:
    async with db.engine.reader() as unit:
        rows = await unit.scan(TTL_TABLES, None, None, None, 1 << 30)
    # A region name holds no NUL byte: its terminated form is its bytes and 00 00.
    return [Registered(hk[:-2].decode(), rk.decode(),
                       orjson.loads(doc)["TableId"]) for hk, rk, _, doc in rows]
