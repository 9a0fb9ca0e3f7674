"""Reading and writing items: the one write path every mutation goes through.

`write` runs, inside one storage transaction, the whole of a single-item
mutation: read the current item (locked where the backend has concurrent
writers), let the operation decide the new item from it (checking its condition
there), and store the result. Index maintenance and stream records join this
function, so no write can skip them.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import orjson

from okura.core.catalog import Table
from okura.values.sizes import ITEM_TOO_LARGE, check_item_size

# What a change returns to leave the stored item exactly as it is.
UNCHANGED = object()


class Written(NamedTuple):
    old: dict | None
    new: dict | None


async def get_raw(db, table: Table, key: dict) -> bytes | None:
    """The stored wire JSON of an item, undecoded."""
    hk, rk = table.locate(key)
    async with db.engine.reader() as unit:
        return await unit.get(table.id, hk, rk)


async def write(db, table: Table, key: dict,
                change: Callable[[dict | None], dict | None | object],
                too_large: str = ITEM_TOO_LARGE) -> Written:
    """Apply `change` to the item at `key` atomically.

    `change(old)` gets the current item (None if absent) and returns the new
    item, None to delete it, or UNCHANGED; it raises to abandon the write (a
    failed condition), and nothing is stored then. A new item past 400 KB fails
    with the message `too_large`.
    """
    hk, rk = table.locate(key)
    async with db.engine.transaction() as unit:
        raw = await unit.get(table.id, hk, rk, lock=True)
        old = None if raw is None else orjson.loads(raw)
        new = change(old)
        if new is UNCHANGED:
            return Written(old, old)
        if new is None:
            if old is not None:
                await unit.delete(table.id, hk, rk)
        else:
            size = check_item_size(new, too_large)
            await unit.put(table.id, hk, rk, size, orjson.dumps(new))
    return Written(old, new)
