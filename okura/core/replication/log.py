"""The replication log: every write to a replica of a global table, stamped, and
logged for each other replica in the write's own storage transaction.

A stamp is (microseconds, region): when and where an item's write was made. Each
replica keeps the stamp of every item's last write (tombstones included) in its
stamps space (spaces.stamps_of), and a write applied from another region (its
`origin`) stands only if its stamp is later than the one held: last writer wins, as
DynamoDB resolves concurrent writes of one item; applying the same write twice finds
its own stamp and changes nothing. A write made here gets a stamp past the item's
last (so the later of two writes in one region always wins, whatever the clock does).

A log row: space REPLICATION, hk = the source table id and the target region
and name (`pair`), rk = the stamp's microseconds (8 bytes) and the item's storage key, so each
pair's rows are in write order, an item's too; doc = the key, the new item (None:
deleted), the stamp and whether DynamoDB itself deleted it (TTL).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from okura.core import write_hooks
from okura.core.replication.group import others
from okura.core.spaces import REPLICATION, stamps_of
from okura.storage import keys
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.catalog import Table


class Superseded(Exception):
    """A write from another replica arrived after a later write of the same item:
    its transaction is rolled back, and it is done with."""


def pair(table: Table, region: str) -> bytes:
    """The log's hk for the writes of one table still to reach its replica in `region`:
    the table's id, the region, the table's name."""
    return table.id.to_bytes(8, "big") + keys.terminated(region.encode()) + table.name.encode()


def split(hk: bytes) -> tuple[str, str]:
    """(target region, table name) of a log hk."""
    region, _, name = hk[8:].partition(b"\x00\x00")
    return region.decode(), name.decode()


async def stamp_of(unit, table_id: int, hk: bytes, rk: bytes) -> tuple | None:
    """The stamp of an item's last write in a replica (None: none known)."""
    found = doc_of(await unit.get(stamps_of(table_id), hk, rk, lock=True))
    return None if found is None else tuple(orjson.loads(found))


class Replication(write_hooks.Hook):
    name = "replication"
    observes_old = True  # a deletion's key comes from the item it deletes
    wakes = "replication"

    def state(self, table: Table) -> tuple[str, ...] | None:
        return others(table) or None

    async def store(self, regions: tuple[str, ...], write: write_hooks.ItemWrite) -> None:
        unit = write.unit
        table = write.table
        held = await stamp_of(unit, table.id, write.hk, write.rk)
        origin = write.origin
        if origin is not None:
            if held is not None and tuple(origin) <= held:
                raise Superseded
            stamp = origin
        else:
            micros = int(write.now * 1_000_000)
            if held is not None and micros <= held[0]:
                micros = held[0] + 1
            stamp = (micros, table.region)
        await unit.put(stamps_of(table.id), write.hk, write.rk, 0, orjson.dumps(stamp))
        if origin is not None:
            return  # every replica sends its own writes to all the others
        item = write.new if write.new is not None else write.old
        assert item is not None  # a write that stored nothing runs no hook
        entry = orjson.dumps({"Key": table.key_of(item), "New": write.new, "Stamp": stamp,
                              "Service": write.by_service})
        rk = stamp[0].to_bytes(8, "big") + keys.terminated(write.hk) + write.rk
        for region in regions:
            await unit.put(REPLICATION, pair(table, region), rk, 0, entry)


write_hooks.register(Replication())


async def tombstone(unit, table_id: int, hk: bytes, rk: bytes, stamp: tuple) -> None:
    """Keep the stamp of a deletion that found nothing to delete, so that an older write
    of the item arriving later from a third replica is superseded."""
    held = await stamp_of(unit, table_id, hk, rk)
    if held is None or stamp > held:
        await unit.put(stamps_of(table_id), hk, rk, 0, orjson.dumps(stamp))
