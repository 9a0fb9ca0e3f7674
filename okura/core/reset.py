"""Drop everything a test may have left behind (POST /okura/reset; the pytest plugin
runs it after each test): every table with its items and indexes, its streams and
their records, its point-in-time history (and those of tables deleted before), and every backup. Tables go at once,
whatever their status or deletion protection, so their names are free for the next
test; the clock is left where it is (it never moves back)."""
from __future__ import annotations

import orjson

from okura.core import backups, history
from okura.core.database import Database
from okura.core.spaces import BACKUPS, STREAMS
from okura.core.streams.state import Stream
from okura.core.ttl import registry
from okura.storage import keys

_EVERYTHING = 1 << 30


async def drop_everything(db: Database) -> int:
    """Drop it all; the number of tables dropped."""
    async with db.engine.reader() as unit:
        named = [(region, await unit.catalog_list(region))
                 for region in await unit.catalog_regions()]
    dropped = 0
    for region, names in named:
        for name in names:
            table = await db.catalog.get(region, name)
            if table is None:  # it had finished deleting
                continue
            if history.log_of(table) is not None:
                table = await history.disable(db, table)
            await db.catalog.delete(table, dict(table.doc, StatusUntil=0))
            await registry.disable(db, region, name)
            dropped += 1
    async with db.engine.transaction() as unit:
        for hk, _, _, doc in await unit.scan(STREAMS, None, None, None, _EVERYTHING):
            region = keys.split_terminated(hk)[0].decode()
            stream = Stream(region, orjson.loads(doc))
            await unit.drop_rows(stream.id)
            await unit.delete(STREAMS, hk, stream.doc["Label"].encode())
        backup_regions = {keys.split_terminated(hk)[0].decode() for hk, _, _, _ in
                          await unit.scan(BACKUPS, None, None, None, _EVERYTHING)}
    for region in backup_regions:
        for backup in await backups.every(db, region):
            await backups.delete(db, backup)
    for kept in await history.every(db):  # those of tables deleted before
        await history.drop(db, kept)
    return dropped
