"""The features a Database runs, each with its state in its own module.

A feature whose state is not the database's own (throughput budgets, metrics, injected
faults, Contributor Insights' counts, the job runner, ...) subclasses Feature in its
own module and is registered there with `@register`. Every Database makes one of each
registered feature when it is made and keeps them in `db.features`, by class: code
reaches a feature's state as `db.features[Throughput]` (a plain dict at run time: one
look-up, cheap enough for the request path; typed by the class for mypy). What a
feature keeps for a table, it keeps by the table's id. A feature module is registered
when imported: core/database.py imports each one.

The Database tells every feature of each table document the catalog loads or saves
(`notice`) and of each table it deletes (`drop`: DeleteTable, POST /okura/reset).
A feature's __init__ must not look up another feature (they are made in turn); it
looks one up when it uses it.

What follows item writes is not a Feature but a write hook (core/write_hooks.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar, ValuesView, cast

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database
    from okura.storage.engine import Transaction

F = TypeVar("F", bound="Feature")


class Feature:
    __slots__ = ("db",)

    def __init__(self, db: Database) -> None:
        self.db = db

    def notice(self, table: Table) -> None:
        """A table document was loaded or saved (its state may follow it)."""

    async def drop(self, unit: Transaction, table: Table) -> None:
        """The table is being deleted, its items dropped in `unit`: drop the feature's
        rows of the table in the same unit, and forget what this node keeps for it."""


class Features(Protocol):
    """Every feature's state in one database, by class (a dict: see `made`)."""

    def __getitem__(self, kind: type[F]) -> F: ...

    def values(self) -> ValuesView[Feature]: ...


KINDS: list[type[Feature]] = []  # in the order registered


def register(kind: type[F]) -> type[F]:
    KINDS.append(kind)
    return kind


def made(db: Database) -> Features:
    """One of each registered feature for `db`."""
    return cast(Features, {kind: kind(db) for kind in KINDS})
