"""ConsumedCapacity of transactions: one entry per table, in order of first use,
with the read or write units named (unverified against a live reply: DynamoDB
reports CapacityUnits together with ReadCapacityUnits or WriteCapacityUnits)."""
from __future__ import annotations

from okura.operations.single_item import consumed_capacity
from okura.values import sizes

READ, WRITE = "ReadCapacityUnits", "WriteCapacityUnits"


class Tally:
    """Units per table name, summed in order of first use, with what each write spent on
    the table's secondary indexes."""

    __slots__ = ("units", "indexes")

    def __init__(self):
        self.units: dict[str, float] = {}
        self.indexes: dict[str, list] = {}  # table name: [(Index, units)]

    def add(self, table_name: str, units: float, indexes=()) -> None:
        """`indexes`: the (Index, units) pairs a write spent on the table's indexes."""
        self.units[table_name] = self.units.get(table_name, 0.0) + units
        self.indexes.setdefault(table_name, []).extend(indexes)

    def reply(self, body: dict, kind: str | None) -> list | None:
        """The ConsumedCapacity list; `kind` names the units (None: CapacityUnits alone,
        as BatchExecuteStatement reports them)."""
        mode = body.get("ReturnConsumedCapacity")
        if mode not in ("TOTAL", "INDEXES"):
            return None
        return [consumed_capacity(name, mode, units, self.indexes[name], kind)
                for name, units in self.units.items()]


def write_units(old: dict | None, new: dict | None, transactional: bool = True) -> float:
    """Units of the larger of the old and new item (twice that in a transaction)."""
    size = max(sizes.item_size(old) if old else 0, sizes.item_size(new) if new else 0)
    return sizes.write_units(size, transactional=transactional)


def read_units(item: dict | None) -> float:
    return sizes.read_units(sizes.item_size(item) if item else 0, transactional=True)
