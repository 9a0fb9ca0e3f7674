"""What this process knows of when each TTL table's next item expires; and a deleted
table's expiry index, which goes with its items."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from okura.core import features
from okura.core.spaces import expiry_of

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database
    from okura.storage.engine import Transaction


@features.register
class Due(features.Feature):
    """When each TTL table's next item expires, as far as this process knows, so that
    an idle sweeper looks at nothing. Writes here note their items (`noted`); a sweep
    records what each index holds next (`known`); a table whose TTL was enabled or
    disabled (`forget`) makes the next round look at every table. On shared storage
    other nodes' writes go unseen: there the sweeper looks at every round."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.tables: dict[int, float] = {}
        self.fresh = False  # False: the next round looks at every table not known

    def noted(self, table_id: int, micros: int) -> None:
        when = micros / 1_000_000
        if when < self.tables.get(table_id, -math.inf):
            self.tables[table_id] = when

    def known(self, table_id: int, when: float) -> None:
        self.tables[table_id] = when

    def forget(self, table_id: int) -> None:
        self.tables.pop(table_id, None)
        self.fresh = False

    async def drop(self, unit: Transaction, table: Table) -> None:
        await unit.drop_rows(expiry_of(table.id))
        self.tables.pop(table.id, None)

    def waits(self, table_id: int, now: float) -> bool:
        """Whether the table is known to have nothing due by `now`."""
        return self.tables.get(table_id, -math.inf) > now

    def any_by(self, now: float) -> bool:
        """Whether any table may have an item due by `now`."""
        return not self.fresh or any(when <= now for when in self.tables.values())
