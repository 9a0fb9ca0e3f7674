"""ConsumedCapacity of transactions: one entry per table, in order of first use,
with the read or write units named (unverified against a live reply: DynamoDB
reports CapacityUnits together with ReadCapacityUnits or WriteCapacityUnits)."""
from __future__ import annotations

from okura.values import sizes

READ, WRITE = "ReadCapacityUnits", "WriteCapacityUnits"


class Tally:
    """Units per table name, summed in order of first use."""

    __slots__ = ("units",)

    def __init__(self):
        self.units: dict[str, float] = {}

    def add(self, table_name: str, units: float) -> None:
        self.units[table_name] = self.units.get(table_name, 0.0) + units

    def reply(self, body: dict, kind: str | None) -> list | None:
        """The ConsumedCapacity list; `kind` names the units (None: reads and writes mixed)."""
        mode = body.get("ReturnConsumedCapacity")
        if mode not in ("TOTAL", "INDEXES"):
            return None
        out = []
        for name, units in self.units.items():
            units_of = {"CapacityUnits": units} if kind is None else {
                "CapacityUnits": units, kind: units}
            entry = {"TableName": name, **units_of}
            if mode == "INDEXES":
                entry["Table"] = dict(units_of)
            out.append(entry)
        return out


def write_units(old: dict | None, new: dict | None, transactional: bool = True) -> float:
    """Units of the larger of the old and new item (twice that in a transaction)."""
    size = max(sizes.item_size(old) if old else 0, sizes.item_size(new) if new else 0)
    return sizes.write_units(size, transactional=transactional)


def read_units(item: dict | None) -> float:
    return sizes.read_units(sizes.item_size(item) if item else 0, transactional=True)
