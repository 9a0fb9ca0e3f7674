"""ConsumedCapacity of transactions: one entry per table, in order of first use,
with the read or write units named (unverified against a live reply: DynamoDB
reports CapacityUnits together with ReadCapacityUnits or WriteCapacityUnits)."""
from __future__ import annotations

from okura.values import sizes

READ, WRITE = "ReadCapacityUnits", "WriteCapacityUnits"


class Tally:
    """Units per table name, summed in order of first use, and per secondary index."""

    __slots__ = ("units", "indexes")

    def __init__(self):
        self.units: dict[str, float] = {}
        self.indexes: dict[str, dict] = {}  # table name: {(group, index name): units}

    def add(self, table_name: str, units: float, indexes=()) -> None:
        """`indexes`: the (Index, units) pairs a write spent on the table's indexes."""
        self.units[table_name] = self.units.get(table_name, 0.0) + units
        spent = self.indexes.setdefault(table_name, {})
        for index, index_units in indexes:
            group = "GlobalSecondaryIndexes" if index.is_global else "LocalSecondaryIndexes"
            spent[group, index.name] = spent.get((group, index.name), 0.0) + index_units

    def reply(self, body: dict, kind: str | None) -> list | None:
        """The ConsumedCapacity list; `kind` names the units (None: CapacityUnits alone,
        as BatchExecuteStatement reports them)."""
        mode = body.get("ReturnConsumedCapacity")
        if mode not in ("TOTAL", "INDEXES"):
            return None
        def units_of(units: float) -> dict:
            return {"CapacityUnits": units} if kind is None else {"CapacityUnits": units,
                                                                  kind: units}
        out = []
        for name, units in self.units.items():
            indexes = self.indexes.get(name, {})
            entry = {"TableName": name, **units_of(units + sum(indexes.values()))}
            if mode == "INDEXES":
                entry["Table"] = units_of(units)
                for (group, index), spent in indexes.items():
                    entry.setdefault(group, {})[index] = units_of(spent)
            out.append(entry)
        return out


def write_units(old: dict | None, new: dict | None, transactional: bool = True) -> float:
    """Units of the larger of the old and new item (twice that in a transaction)."""
    size = max(sizes.item_size(old) if old else 0, sizes.item_size(new) if new else 0)
    return sizes.write_units(size, transactional=transactional)


def read_units(item: dict | None) -> float:
    return sizes.read_units(sizes.item_size(item) if item else 0, transactional=True)
