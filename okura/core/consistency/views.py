"""A Query or Scan page as an eventually consistent reader sees it (core/reads.py).

The page storage gave holds the latest of every item. Items whose latest write is not
yet visible (`Lag.hidden`) leave it, and what the reader sees of them instead (the
version before, or its index entry) joins it wherever that falls inside the walk and
inside the stretch the page covered (after its start, up to where it stopped), in the
walk's order; a page grown past Limit stops at its Limit-th row.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from okura.core.index_entries import projected

if TYPE_CHECKING:
    from okura.core.reads import Source, Walk

# a row's place in a walk: (the partition's place in it, hk, rk); a Scan has one place
Where = tuple[int, bytes, bytes]


def page(hidden: dict, source: Source, walk: Walk, limit: int | None,
         start: Where | None, docs: list[bytes], last: bytes | None,
         position: Where | None) -> tuple[list[bytes], bytes | None, Where | None]:
    """(docs, last, position) of the page as `read` returns them, once `hidden` items
    show what eventually consistent readers see of them."""
    table, index = source.table, source.index
    places = {} if walk.partitions is None else {hk: i for i, hk in enumerate(walk.partitions)}
    rows: list[tuple[Where, bytes]] = []
    for doc in docs:
        item = orjson.loads(doc)
        key = table.locate(item)
        if key not in hidden:
            at = key if index is None else index.locate(item, *key)
            assert at is not None  # a row of the index is in it
            rows.append(((places.get(at[0], 0), *at), doc))
    for key, prior in hidden.items():
        if prior is None:
            continue
        item = orjson.loads(prior)
        at = key if index is None else index.locate(item, *key)
        if at is None:
            continue
        where = _inside(walk, places, at, start, position)
        if where is not None:
            rows.append((where, prior if index is None
                         else orjson.dumps(projected(index, table, item))))
    rows.sort(key=lambda row: row[0][2], reverse=not walk.forward)
    rows.sort(key=lambda row: row[0][:2])
    if limit is not None and len(rows) > limit:
        del rows[limit:]
        position, last = rows[-1]
    return [doc for _, doc in rows], last, position


def _inside(walk: Walk, places: dict[bytes, int], at: tuple[bytes, bytes],
            start: Where | None, stop: Where | None) -> Where | None:
    """The row's place if the page covers it: in the walk, after `start`, not past `stop`."""
    hk, rk = at
    if walk.partitions is None:  # a Scan: hash order, then rk
        if ((walk.hk_lo is not None and hk < walk.hk_lo)
                or (walk.hk_hi is not None and hk >= walk.hk_hi)
                or (start is not None and at <= start[1:])
                or (stop is not None and at > stop[1:])):
            return None
        return 0, hk, rk
    place = places.get(hk)
    if (place is None or (walk.lo is not None and rk < walk.lo)
            or (walk.hi is not None and rk >= walk.hi)):
        return None
    where = (place, hk, rk)
    if start is not None and not _before(start, where, walk.forward):
        return None
    if stop is not None and _before(stop, where, walk.forward):
        return None
    return where


def _before(first: Where, second: Where, forward: bool) -> bool:
    """Whether a walk meets `first` before `second`."""
    if first[0] != second[0]:
        return first[0] < second[0]
    return first[2] < second[2] if forward else first[2] > second[2]
