"""The one paging rule of the List operations (and of DescribeStream's shards): a page is
up to Limit entries of a listing in its order, from where the request's marker
(ExclusiveStart*, NextToken, Marker) says; the reply carries a marker only when more
entries follow, and it names the page's last entry.

Where a page starts is each operation's own: after a key in a sorted listing (`after`:
the key need not be listed any more), or after exactly a listed entry (`following`)."""
from __future__ import annotations

from bisect import bisect_right
from typing import Any, Sequence, TypeVar

T = TypeVar("T")


def page(entries: Sequence[T], limit: int | None, start: int = 0) -> tuple[list[T], T | None]:
    """The entries from `start` on, up to `limit` (every one if None); and the page's last
    entry if more follow, else None."""
    end = len(entries) if limit is None else start + limit
    chosen = list(entries[start:end])
    return chosen, chosen[-1] if chosen and end < len(entries) else None


def after(keys: Sequence[Any], marker: Any) -> int:
    """Where a page starts in ascending keys: at the first key past the marker (the
    start, for None)."""
    return 0 if marker is None else bisect_right(keys, marker)


def following(keys: Sequence[Any], marker: Any) -> int | None:
    """Where a page starts after the entry of this key (the start, for None); None if
    no entry of it is listed."""
    if marker is None:
        return 0
    return keys.index(marker) + 1 if marker in keys else None
