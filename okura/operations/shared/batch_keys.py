"""What BatchGetItem and BatchWriteItem share: one table's keys in a batch must be distinct."""
from __future__ import annotations

from okura import errors
from okura.core.catalog import Table

DUPLICATES = "Provided list of item keys contains duplicates"


class DistinctKeys:
    """The keys of one table seen so far in a batch request."""

    __slots__ = ("table", "seen")

    def __init__(self, table: Table):
        self.table = table
        self.seen: set[tuple[bytes, bytes]] = set()

    def add(self, key: dict) -> None:
        """Note a checked key; a key seen before refuses the whole request."""
        located = self.table.locate(key)
        if located in self.seen:
            raise errors.validation(DUPLICATES)
        self.seen.add(located)
