"""Reading and writing items: the one write path every mutation goes through.

`write_all` runs, inside one storage transaction, every item's part of a
mutation: read the current item (locked where the backend has concurrent
writers), let the operation decide the new item from it (checking its condition
there), and, only if every item's decision stands, charge the request's ledger and
store the results and all that follows from them (`_store`). Single-item writes,
BatchWriteItem, transactions, PartiQL and TTL all go through it. Index maintenance
and capacity live here, and every feature that follows writes (snapshots, history,
streams, Kinesis change logs) runs here as a write hook (core.write_hooks), so no
write can skip them.
"""
from __future__ import annotations

from enum import Enum
from typing import Callable

import orjson

from okura import errors
from okura.core import index_entries, write_hooks
from okura.core.capacity import Ledger
from okura.core.catalog import CatalogChanged, Table
from okura.core.consistency.lag import LATEST, Lag
from okura.core.context import Context
from okura.core.metrics import Metrics
from okura.core.throughput import Throughput
# the write hooks, registered as they are imported (core/write_hooks.py)
from okura.core import history, snapshots  # noqa: F401
from okura.core.replication import log  # noqa: F401
from okura.core.streams import append, kinesis  # noqa: F401
from okura.core.ttl import expiry  # noqa: F401
from okura.core.vectors import maintenance  # noqa: F401
from okura.errors import DynamoError
from okura.storage.engine import Conflict, Locked
from okura.values.sizes import ITEM_TOO_LARGE, check_item_size

WRITE_ATTEMPTS = 4  # runs of a single-item write that keeps losing races (Conflict)


class Unchanged(Enum):
    """What a decision returns to leave the stored item exactly as it is."""
    UNCHANGED = 0


UNCHANGED = Unchanged.UNCHANGED

Decide = Callable[[dict | None], "dict | None | Unchanged"]


class Change:
    """One item's part of a write: `decide(old)` returns the new item, None to
    delete it, or UNCHANGED; it raises (a failed condition) to refuse."""

    __slots__ = ("table", "key", "decide", "too_large", "by_service", "needs_old",
                 "new_size", "at")

    def __init__(self, table: Table, key: dict, decide: Decide,
                 too_large: str = ITEM_TOO_LARGE, by_service: bool = False,
                 needs_old: bool = True, new_size: int | None = None,
                 at: tuple[bytes, bytes] | None = None) -> None:
        self.table = table
        self.key = key
        self.decide = decide
        self.too_large = too_large  # the message for a new item past 400 KB
        # a deletion by DynamoDB itself (TTL): its stream record says so
        self.by_service = by_service
        # False when neither the decision nor the reply looks at the current item (a
        # plain PutItem): outside transactions and shared storage, a table without
        # indexes or stream then skips the read (put_many tells the size it replaced).
        self.needs_old = needs_old
        # the size of the item decide() returns, when already known
        self.new_size = new_size
        self.at = at  # table.locate(key), when already computed

    # a write another replica of a global table made (core/replication/): its stamp
    origin: tuple | None = None


class Written:
    """An item's state before and after a write (it unpacks as the pair `old, new`),
    and, for tables with local secondary indexes, its item collection's size after
    the write (None when the write changed nothing or the table has none)."""

    __slots__ = ("old", "new", "collection_size")

    def __init__(self, old: dict | None, new: dict | None, collection_size: int | None = None):
        self.old = old
        self.new = new
        self.collection_size = collection_size

    def __iter__(self):
        return iter((self.old, self.new))


class Cancelled(Exception):
    """Some items of a multi-item write refused; `reasons` holds, per item in
    order, the error that refused it or None, `old_sizes` each item's size as it was
    (-1: not read). Nothing was written."""

    def __init__(self, reasons: list[DynamoError | None], old_sizes: list[int]):
        super().__init__("write cancelled")
        self.reasons = reasons
        self.old_sizes = old_sizes


async def fetch(ctx: Context, table: Table, key: dict, consistent: bool) -> bytes | None:
    """The stored wire JSON of an item, undecoded (GetItem, BatchGetItem, PartiQL)."""
    hk, rk = table.locate(key)
    db = ctx.db
    gate = db.features[Throughput]
    throttling = gate.on
    if throttling:
        gate.admit(ctx, table, hk, False)
    row = await db.engine.read_one(table.id, hk, rk)
    ledger = ctx.ledger
    ledger.read(table, hk, 0 if row is None else row[0], consistent)
    if throttling:
        gate.spend(ledger, len(ledger.charges) - 1)  # the read just charged
    db.features[Metrics].item_read(table, consistent)
    if not consistent:  # it may see a version before the latest
        lag = db.features[Lag]
        if lag.on:
            seen = lag.seen(table.id, hk, rk, ctx.clock.now())
            if seen is not LATEST:
                return seen
    return None if row is None else row[1]


async def write(ctx: Context, change: Change) -> Written:
    """Apply one item's decision atomically: write_all of one change, its refusal
    raised as it is. A lost race is run again (see _retried)."""
    return (await _retried(ctx, [change]))[0]


class KeyOrder:
    """Changes in one global key order (table id, hash key, range key), and results back
    in request order. Writers that lock their items in this order cannot deadlock each
    other, and of two transactions that want the same items the later one is refused at
    the first item they share, before it holds any other (in request order each could
    hold one item the other wants, and both would be cancelled)."""

    def __init__(self, changes: list[Change]):
        self.order = sorted(range(len(changes)), key=lambda i: (
            changes[i].table.id, *(changes[i].at or changes[i].table.locate(changes[i].key))))
        self.changes = [changes[i] for i in self.order]
        # ConsumedCapacity lists tables in order of first use in the request
        self.rank = {table.id: i for i, table in reversed(list(enumerate(
            change.table for change in changes)))}

    def back(self, values: list) -> list:
        """Values of the changes in key order, in request order."""
        out: list = [None] * len(values)
        for position, i in enumerate(self.order):
            out[i] = values[position]
        return out

    def charges_back(self, ledger: Ledger, spent: int) -> None:
        """The ledger's charges since `spent` in request order (the tables' order of first
        use: one table's charges are in order already)."""
        if len(self.rank) > 1:
            charges = ledger.charges
            charges[spent:] = sorted(charges[spent:], key=lambda charge: self.rank[charge[0].id])


async def write_batch(ctx: Context, changes: list[Change], admit: bool = True) -> list[Written]:
    """BatchWriteItem's checked puts and deletes of distinct items in one storage
    transaction: one commit, not one per item, its rows locked in KeyOrder; the results
    are in the order of `changes`. `admit` False: the throughput gate has admitted them
    already."""
    order = KeyOrder(changes)
    spent = len(ctx.ledger.charges)
    written = order.back(await _retried(ctx, order.changes, admit))
    order.charges_back(ctx.ledger, spent)
    return written


async def _retried(ctx: Context, changes: list[Change], admit: bool = True) -> list[Written]:
    """write_all for writes outside transactions, raising the first refusal as it is
    (nothing was written). A failed condition still costs the current item's size in
    write units (developer guide, "Condition expressions"). A lost race the database
    reports (Conflict: nothing was stored) is run again, since DynamoDB serialises such
    writes rather than failing one for a concurrent writer."""
    ledger = ctx.ledger
    spent = len(ledger.charges)
    vectors = None if ledger.vectors is None else dict(ledger.vectors)
    for attempt in range(WRITE_ATTEMPTS):
        try:
            return await write_all(ctx, changes, admit=admit)
        except Conflict:
            del ledger.charges[spent:]  # the lost attempt wrote nothing: it costs nothing
            ledger.vectors = None if vectors is None else dict(vectors)
            if attempt == WRITE_ATTEMPTS - 1:
                # what DynamoDB answers a write that meets transactions in flight
                raise errors.transaction_conflict() from None
        except Cancelled as cancelled:
            for change, old_size, reason in zip(changes, cancelled.old_sizes,
                                                cancelled.reasons):
                if reason is not None and reason.name == "ConditionalCheckFailedException":
                    ledger.write(change.table, change.table.locate(change.key)[0], old_size)
            gate = ctx.db.features[Throughput]
            if gate.on:
                gate.spend(ledger, spent)
            raise next(reason for reason in cancelled.reasons if reason) from None
    raise AssertionError("unreachable: the last attempt returns or raises")


def _decide(change: Change, plan: write_hooks.Plan, old: dict | None) -> tuple:
    """(the new item, its size): the change's decision, of which a new item past 400 KB,
    with a bad index key or refused by a write hook is part (in a transaction it refuses
    only its own action)."""
    new = change.decide(old)
    if new is UNCHANGED or new is None:
        return new, 0
    size = check_item_size(new, change.too_large, change.new_size)
    if change.table.indexes:
        index_entries.check_keys(change.table, new)
    for hook, state in plan.checks:
        hook.check(state, new)
    return new, size


async def write_all(ctx: Context, changes: list[Change], wait: bool = True,
                    before_commit: Callable | None = None,
                    transactional: bool = False, admit: bool = True) -> list[Written]:
    """Apply every change or none: raises Cancelled if any decision refuses.

    With `wait` False (transactions: DynamoDB never queues one behind another), an
    item locked by another transaction in flight refuses its change with a
    TransactionConflict. `await before_commit(unit, written)` joins the same storage
    transaction once every decision stands (an idempotency token's outcome).
    `transactional` writes cost double. The throughput gate admits every change first
    (throttling the whole write), unless the caller has (`admit` False: a batch leaves
    what it throttles unprocessed)."""
    db = ctx.db
    engine = db.engine
    gate = db.features[Throughput]
    throttling = gate.on
    lag = db.features[Lag]  # eventual consistency: note what each write replaced
    lagging = lag.on
    ledger = ctx.ledger
    spent = len(ledger.charges)
    located = [change.at or change.table.locate(change.key) for change in changes]
    if throttling and admit:
        for change, (hk, _) in zip(changes, located):
            if not change.by_service:  # TTL deletes are never throttled
                gate.admit(ctx, change.table, hk, True)
    async with engine.transaction() as unit:
        if engine.shared:
            await _check_catalog(unit, changes)
        steps: list = [None] * len(changes)
        refused = False
        # Read the current item only where something looks at it: a plain put into a
        # table without indexes or stream needs only the size it replaces, which
        # put_many tells (-1 until then).
        read_all = not wait or engine.shared or lagging
        # a transaction locks its items in KeyOrder; what follows runs in request order
        for i in range(len(changes)) if wait else KeyOrder(changes).order:
            change, (hk, rk) = changes[i], located[i]
            table = change.table
            plan = write_hooks.plan(table)
            reason = old = None
            old_size = -1
            if read_all or change.needs_old or plan.observes_old:
                try:
                    # once refused, the write locks nothing more: its other items are
                    # only read, for their reasons, and hold nobody else up
                    row = await unit.get(table.id, hk, rk, lock=not refused, wait=wait)
                except Locked:
                    if wait:  # a single write met a transaction: the unit is unusable
                        raise errors.transaction_conflict() from None
                    row, reason = None, errors.transaction_conflict()
                old_size = 0 if row is None else row[0]
                old = None if row is None else orjson.loads(row[1])
            new: dict | Unchanged | None = UNCHANGED
            size = 0
            if reason is None:
                try:
                    new, size = _decide(change, plan, old)
                except DynamoError as refusal:
                    reason = refusal
                    refused = True
            else:
                refused = True
            steps[i] = (change, plan, hk, rk, old, old_size, new, size, reason)
        if refused:
            raise Cancelled([step[8] for step in steps], [step[5] for step in steps])
        written: list[Written] = []
        woken: set[str] = set()  # the background work the hooks' rows feed
        after: list[Callable[[], None]] = []  # the hooks' calls once committed
        rows: list[tuple[int, bytes, bytes, int, bytes]] = []
        # (ledger position, table, hk, size, its row) of writes charged their new size
        # until put_many tells the size they replaced
        unread: list[tuple[int, Table, bytes, int, int]] = []
        for change, plan, hk, rk, old, old_size, new, size, _ in steps:
            table = change.table
            if change.by_service:  # TTL deletes are free
                pass
            elif old_size < 0:
                unread.append((len(ledger.charges), table, hk, size, len(rows)))
                ledger.write(table, hk, size, transactional)
            else:  # the larger of the item before and after
                ledger.write(table, hk, size if new is not UNCHANGED and size > old_size
                             else old_size, transactional)
            if new is UNCHANGED:
                written.append(Written(old, old))
            elif new is not None and not plan.observes_old:
                # nothing looks at the item it replaces (no index, no hook that does):
                # stored with the others, and so are its hooks' rows (the history's log)
                body = orjson.dumps(new)
                rows.append((table.id, hk, rk, size, body))
                if plan.hooks:
                    await _follow(ctx, unit, change, plan, hk, rk, old, old_size, new, size,
                                  body, rows, after)
                written.append(Written(old, new))
            else:
                written.append(Written(old, new, await _store(
                    ctx, unit, change, plan, hk, rk, old, old_size, new, size, rows, after)))
                if plan.wakes:
                    woken.update(plan.wakes)
        if rows:
            replaced = await unit.put_many(rows, bool(unread))
            for position, table, hk, size, index in unread:
                assert replaced is not None
                if replaced[index] > size:
                    ledger.write(table, hk, replaced[index], transactional)
                    ledger.charges[position] = ledger.charges.pop()
        if before_commit is not None:
            await before_commit(unit, written)
    for done in after:  # committed (or, on SQLite, committing: see docs/vectors.md)
        done()
    if lagging:
        _lag(ctx, lag, steps)
    for work in woken:  # committed (or, on SQLite, committing before any follower reads)
        db.background.signal(work)
    if throttling:
        gate.spend(ledger, spent)
    return written


def _lag(ctx: Context, lag: Lag, steps: list) -> None:
    """Each stored change of an eventual table becomes visible after a delay."""
    now = ctx.clock.now()
    for change, _, hk, rk, old, _, new, _, _ in steps:
        if new is not UNCHANGED and lag.eventual(change.table):
            lag.note(change.table, hk, rk, old, new, now)


async def _check_catalog(unit, changes: list[Change]) -> None:
    """Where several processes share storage, the table documents these changes were
    planned with must still be current (a new index must not miss them); reading
    the versions also holds them until this transaction ends."""
    seen = set()
    for change in changes:
        table = change.table
        if table.id not in seen:
            seen.add(table.id)
            if await unit.catalog_version(table.id) != table.version:
                raise CatalogChanged(table)


async def _store(ctx: Context, unit, change: Change, plan: write_hooks.Plan, hk: bytes,
                 rk: bytes, old: dict | None, old_size: int, new: dict | None, size: int,
                 rows: list, after: list) -> int | None:
    """Persist one item's new state (of DynamoDB size `size`) and everything that
    follows from it; returns its item collection's size where the table keeps them
    (local indexes)."""
    table = change.table
    body = None
    if new is None:
        if old is None:
            return None
        await unit.delete(table.id, hk, rk)
    else:
        body = orjson.dumps(new)
        await unit.put(table.id, hk, rk, size, body)
    if plan.hooks:
        await _follow(ctx, unit, change, plan, hk, rk, old, old_size, new, size, body, rows,
                      after)
    if not table.indexes:
        return None
    return await index_entries.store(unit, table, hk, rk, old, new, old_size, size,
                                     None if change.by_service else ctx.ledger)


async def _follow(ctx: Context, unit, change: Change, plan: write_hooks.Plan, hk: bytes,
                  rk: bytes, old: dict | None, old_size: int, new: dict | None, size: int,
                  body: bytes | None, rows: list, after: list) -> None:
    """Run the table's write hooks for one stored change."""
    write = write_hooks.ItemWrite(ctx.db, unit, change.table, hk, rk, old, old_size, new, size, body,
                                  ctx.clock.now(), change.by_service, rows,
                                  None if change.by_service else ctx.ledger, after,
                                  change.origin)
    for hook, state in plan.hooks:
        await hook.store(state, write)
