"""Figures the rules take from a sample of items: sizes, distinct values, dates."""
from __future__ import annotations

import re
from collections import Counter

from okura.values.sizes import item_size, utf8_size

# Dates and times as text: 2026-01-31, 2026-01-31T12:00:00Z, 20260131, 2026/01/31 ...
_DATE_TEXT = re.compile(r"^(19|20)\d\d[-/]?(0[1-9]|1[0-2])([-/]?(0[1-9]|[12]\d|3[01]))?([T ]|$)")
# Epoch seconds and milliseconds between 2001 and 2286
_EPOCH_SECONDS = (1e9, 1e10)
_EPOCH_MILLIS = (1e12, 1e13)


def scalar(av: dict) -> str | None:
    """A key value as text (S, N or B), None for another type."""
    (tag, value), = av.items()
    return value if tag in ("S", "N", "B") else None


def values(items: list[dict], name: str) -> list[dict]:
    return [item[name] for item in items if name in item]


def distinct(items: list[dict], name: str) -> tuple[int, int]:
    """(items carrying `name`, distinct values among them)."""
    found = [scalar(av) for av in values(items, name)]
    return len(found), len(set(found))


def date_like(av: dict) -> bool:
    """A String that reads as a date, or a Number in epoch seconds or milliseconds."""
    (tag, value), = av.items()
    if tag == "S":
        return bool(_DATE_TEXT.match(value))
    if tag == "N":
        number = float(value)
        return (_EPOCH_SECONDS[0] <= number < _EPOCH_SECONDS[1]
                or _EPOCH_MILLIS[0] <= number < _EPOCH_MILLIS[1])
    return False


def epoch_unit(av: dict) -> str:
    """What a TTL value is: "seconds", "milliseconds", "string" or "other"."""
    (tag, value), = av.items()
    if tag == "S":
        return "string"
    if tag != "N":
        return "other"
    return "milliseconds" if float(value) >= _EPOCH_MILLIS[0] else "seconds"


def sizes(items: list[dict]) -> list[int]:
    return [item_size(item) for item in items]


def name_share(items: list[dict]) -> float:
    """The share of the items' bytes their top-level attribute names take."""
    total = sum(sizes(items))
    names = sum(utf8_size(name) for item in items for name in item)
    return names / total if total else 0.0


def collections(items: list[dict], partition_key: str) -> Counter:
    """Bytes per partition key value (an item collection) in the sample."""
    out: Counter = Counter()
    for item in items:
        if partition_key in item:
            out[scalar(item[partition_key])] += item_size(item)
    return out


def attribute_names(items: list[dict]) -> set[str]:
    return {name for item in items for name in item}
