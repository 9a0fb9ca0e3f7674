"""The features a Database runs, each with its state in its own module.

A feature whose state is not the database's own (Contributor Insights' counts today)
subclasses Feature and is registered with `@register`; every Database makes one of
each registered feature when it is made, keeps them by class in `db.features`, and
tells each of every table document the catalog loads or saves (`notice`). Code reaches
a feature's state by its class: `Insights.of(db)`. A feature module is registered when
imported: core/database.py imports each one.

What follows item writes is not a Feature but a write hook (core/write_hooks.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database

F = TypeVar("F", bound="Feature")


class Feature:
    def __init__(self, db: Database) -> None:
        self.db = db

    def notice(self, table: Table) -> None:
        """A table document was loaded or saved (its state may follow it)."""

    @classmethod
    def of(cls: type[F], db: Database) -> F:
        """This feature's state in `db`."""
        found = db.features[cls]
        assert isinstance(found, cls)
        return found


KINDS: list[type[Feature]] = []  # in the order registered


def register(kind: type[F]) -> type[F]:
    KINDS.append(kind)
    return kind
