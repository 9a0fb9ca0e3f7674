"""What follows from an item's write, feature by feature.

A feature that keeps something in step with a table's items (snapshots being taken,
the point-in-time history's log, the stream, the Kinesis destination's change log, the
TTL expiry index, the vector indexes) registers one Hook here, once, when its module is
imported. The one write loop (core.items) asks `plan(table)` which hooks a table's
document turns on and with what state, checks every new item with them as part of its
decision, and runs them in the writing transaction for every item it stores, so no
write path can skip one. A new feature (a replication log, a vector index) is one
module with one Hook and one `register` call, imported by core.items.

A plan is made once per table document (a Table object), not per request: it is
kept here by table id, and remade when the table the write holds is another object
(a newer document, or another Database's table of that id).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from okura.core.capacity import Ledger
    from okura.core.catalog import Table
    from okura.core.database import Database
    from okura.storage.engine import Transaction


class ItemWrite:
    """One item's stored change, as the hooks see it: `old` and `new` are the item
    before and after (None: absent), `body` the new item's stored JSON. `rows` are
    rows for the unit's put_many at the end of the write (a hook adds its own there
    when nothing reads them in the same transaction). `ledger` is the request's (None
    for a write DynamoDB itself makes, which costs nothing); `after` collects calls to make
    once the write's unit has committed (state a process keeps beside storage)."""

    __slots__ = ("db", "unit", "table", "hk", "rk", "old", "old_size", "new", "size", "body",
                 "now", "by_service", "rows", "ledger", "after", "origin")

    def __init__(self, db: Database, unit: Transaction, table: Table, hk: bytes, rk: bytes,
                 old: dict | None, old_size: int, new: dict | None, size: int,
                 body: bytes | None, now: float, by_service: bool, rows: list,
                 ledger: Ledger | None, after: list[Callable[[], None]],
                 origin: tuple | None = None) -> None:
        self.db = db
        self.unit = unit
        self.table = table
        self.hk = hk
        self.rk = rk
        self.old = old
        self.old_size = old_size  # -1: the write did not read the item it replaced
        self.new = new
        self.size = size
        self.body = body
        self.now = now
        self.by_service = by_service  # a deletion by DynamoDB itself (TTL expiry)
        self.rows = rows
        self.ledger = ledger
        self.after = after
        # a write another replica of a global table made, as its stamp (None: made here)
        self.origin = origin


class Hook:
    """One feature's part of every write to the tables it is on for."""

    name = ""
    # Whether its writes must read the item they replace (to keep it, or to describe
    # the change); False: it sees `old` None and `old_size` -1 when nothing else reads.
    observes_old = True
    # The background work its rows feed (a Scheduler signal, core/scheduler.py), woken
    # once the write commits; None: none.
    wakes: str | None = None

    # Whether `check` refuses some new items (a vector of the wrong length)
    checks = False

    def state(self, table: Table) -> object | None:
        """What the hook needs of this table document; None: it is off for the table."""
        raise NotImplementedError

    def check(self, state, new: dict) -> None:
        """Refuse (raise a DynamoError) a new item the feature cannot take; part of the
        write's decision, so a transaction refuses only that action."""

    async def store(self, state, write: ItemWrite) -> None:
        """Add the hook's rows for one stored change to the write's unit."""
        raise NotImplementedError


_hooks: list[Hook] = []


def register(hook: Hook) -> None:
    assert all(known.name != hook.name for known in _hooks), hook.name
    _hooks.append(hook)


class Plan:
    """The hooks a table's document turns on, each with its state."""

    __slots__ = ("table", "hooks", "observes_old", "wakes", "checks")

    def __init__(self, table: Table) -> None:
        self.table = table
        on = [(hook, hook.state(table)) for hook in _hooks]
        self.hooks = tuple((hook, state) for hook, state in on if state is not None)
        # Whether every write must know the item it replaces (to move index entries too)
        self.observes_old = bool(table.indexes) or any(
            hook.observes_old for hook, _ in self.hooks)
        self.wakes = {hook.wakes for hook, _ in self.hooks if hook.wakes is not None}
        self.checks = tuple((hook, state) for hook, state in self.hooks if hook.checks)


_plans: dict[int, Plan] = {}  # by table id: the plan of the table document last seen


def plan(table: Table) -> Plan:
    made = _plans.get(table.id)
    if made is None or made.table is not table:
        made = _plans[table.id] = Plan(table)
    return made


def forget(tid: int) -> None:
    """A deleted table's plan goes with it."""
    _plans.pop(tid, None)
