"""Reading and writing items: the one write path every mutation goes through.

`write_all` runs, inside one storage transaction, every item's part of a
mutation: read the current item (locked where the backend has concurrent
writers), let the operation decide the new item from it (checking its condition
there), and, only if every item's decision stands, store the results and all
that follows from them (`_store`). A transaction is `write_all` of many items;
a single-item write is `write`: the same steps, through the same helpers, for
one item. Index maintenance and stream records live in `_store`, so no write
can skip them.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import orjson

from okura import errors
from okura.core import index_entries
from okura.core.catalog import CatalogChanged, Table
from okura.core.streams import append as streams
from okura.errors import DynamoError
from okura.storage.engine import Conflict, Locked
from okura.values.sizes import ITEM_TOO_LARGE, check_item_size, item_size

WRITE_ATTEMPTS = 4  # runs of a single-item write that keeps losing races (Conflict)
# What a decision returns to leave the stored item exactly as it is.
UNCHANGED = object()

Decide = Callable[[dict | None], "dict | None | object"]


class Change(NamedTuple):
    """One item's part of a write: `decide(old)` returns the new item, None to
    delete it, or UNCHANGED; it raises (a failed condition) to refuse."""
    table: Table
    key: dict
    decide: Decide
    too_large: str = ITEM_TOO_LARGE  # the message for a new item past 400 KB
    by_service: bool = False  # a deletion by DynamoDB itself (TTL): its stream record says so
    # False when neither the decision nor the reply looks at the current item (a plain
    # PutItem): outside transactions, a table without indexes or stream then skips the read.
    needs_old: bool = True
    new_size: int | None = None  # the size of the item decide() returns, when already known
    at: tuple[bytes, bytes] | None = None  # table.locate(key), when already computed


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
    order, the error that refused it or None. Nothing was written."""

    def __init__(self, reasons: list[DynamoError | None], olds: list[dict | None]):
        super().__init__("write cancelled")
        self.reasons = reasons
        self.olds = olds


async def get_raw(db, table: Table, key: dict) -> bytes | None:
    """The stored wire JSON of an item, undecoded."""
    return await db.engine.read_one(table.id, *table.locate(key))


async def write(db, change: Change) -> Written:
    """Apply one item's decision atomically: write_all of one change, without the
    bookkeeping of many. A refusal is raised as it is; a lost race is run again (see
    _retried)."""
    return await _retried(_write_one, db, change)


async def write_each(db, changes: list[Change]) -> list[Written]:
    """BatchWriteItem's checked puts and deletes of distinct items in one storage
    transaction: one commit, not one per item. Rows are locked in one global order, so
    two batches over the same items cannot deadlock; the results are in the order of
    `changes`."""
    order = sorted(range(len(changes)), key=lambda i: (
        changes[i].table.id, *(changes[i].at or changes[i].table.locate(changes[i].key))))
    written = await _retried(_write_all_raising, db, [changes[i] for i in order])
    out: list = [None] * len(changes)
    for position, i in enumerate(order):
        out[i] = written[position]
    return out


async def _retried(run, db, changes):
    """`run` for writes outside transactions: a lost race the database reports
    (Conflict: nothing was stored) is run again, since DynamoDB serialises such writes
    rather than failing one for a concurrent writer."""
    for attempt in range(WRITE_ATTEMPTS):
        try:
            return await run(db, changes)
        except Conflict:
            if attempt == WRITE_ATTEMPTS - 1:
                raise


async def _write_all_raising(db, changes: list[Change]) -> list[Written]:
    """write_all, raising the first refusal as it is (nothing was written)."""
    try:
        return await write_all(db, changes)
    except Cancelled as cancelled:
        raise next(reason for reason in cancelled.reasons if reason) from None


async def _write_one(db, change: Change) -> Written:
    async with db.engine.transaction() as unit:
        if db.engine.shared:
            await _check_catalog(unit, (change,))
        hk, rk = change.at or change.table.locate(change.key)
        old = None
        if _reads_old(db, change, True):
            try:
                raw = await unit.get(change.table.id, hk, rk, lock=True)
            except Locked:
                raise errors.transaction_conflict() from None
            if raw is not None:
                old = orjson.loads(raw)
        new, size = _decide(change, old)
        rows = []
        written = await _settle(db, unit, change, hk, rk, old, new, size, rows)
        if rows:
            await unit.put_many(rows)
    return written


def _reads_old(db, change: Change, wait: bool) -> bool:
    """Whether a write reads the item it replaces. Shared storage reads even for a
    plain put: the locked read is where a write meets a transaction in flight (see
    PostgreSQL's get)."""
    return change.needs_old or change.table.observes_old or not wait or db.engine.shared


def _decide(change: Change, old: dict | None) -> tuple:
    """(the new item, its size): the change's decision, of which a new item past 400 KB
    or with a bad index key is part (in a transaction it refuses only its own action)."""
    new = change.decide(old)
    if new is UNCHANGED or new is None:
        return new, 0
    size = check_item_size(new, change.too_large, change.new_size)
    if change.table.indexes:
        index_entries.check(change.table, new)
    return new, size


async def _settle(db, unit, change: Change, hk: bytes, rk: bytes, old: dict | None, new,
                  size: int, rows: list) -> Written:
    """Store one decided change, or add its row to `rows` when nothing follows from it
    (no index, no stream: stored with the others in one put_many)."""
    if new is UNCHANGED:
        return Written(old, old)
    if new is not None and not change.table.observes_old:
        rows.append((change.table.id, hk, rk, size, orjson.dumps(new)))
        return Written(old, new)
    return Written(old, new, await _store(db, unit, change, hk, rk, old, new, size))


async def write_all(db, changes: list[Change], wait: bool = True,
                    before_commit: Callable | None = None) -> list[Written]:
    """Apply every change or none: raises Cancelled if any decision refuses.

    With `wait` False (transactions: DynamoDB never queues one behind another), an
    item locked by another transaction in flight refuses its change with a
    TransactionConflict. `await before_commit(unit, written)` joins the same storage
    transaction once every decision stands (an idempotency token's outcome)."""
    async with db.engine.transaction() as unit:
        if db.engine.shared:
            await _check_catalog(unit, changes)
        located, olds, reasons = [], [], []
        for change in changes:
            hk, rk = change.at or change.table.locate(change.key)
            located.append((hk, rk))
            if not _reads_old(db, change, wait):
                olds.append(None)
                reasons.append(None)
                continue
            try:
                raw = await unit.get(change.table.id, hk, rk, lock=True, wait=wait)
                reasons.append(None)
            except Locked:
                raw = None
                reasons.append(errors.transaction_conflict())
            olds.append(None if raw is None else orjson.loads(raw))
        decided = []
        for i, (change, old) in enumerate(zip(changes, olds)):
            decided.append((UNCHANGED, 0))
            if reasons[i] is None:
                try:
                    decided[i] = _decide(change, old)
                except DynamoError as refusal:
                    reasons[i] = refusal
        if any(reasons):
            raise Cancelled(reasons, olds)
        written, rows = [], []
        for change, (hk, rk), old, (new, size) in zip(changes, located, olds, decided):
            written.append(await _settle(db, unit, change, hk, rk, old, new, size, rows))
        if rows:
            await unit.put_many(rows)
        if before_commit is not None:
            await before_commit(unit, written)
    return written


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


async def _store(db, unit, change: Change, hk: bytes, rk: bytes, old: dict | None,
                 new: dict | None, size: int) -> int | None:
    """Persist one item's new state (of DynamoDB size `size`) and everything that
    follows from it; returns its item collection's size where the table keeps them
    (local indexes)."""
    table = change.table
    if new is None:
        if old is None:
            return None
        await unit.delete(table.id, hk, rk)
    else:
        await unit.put(table.id, hk, rk, size, orjson.dumps(new))
    await streams.append(unit, table, old, new, db.clock.now(), change.by_service)
    if not table.indexes:
        return None
    return await index_entries.store(unit, table, hk, rk, old, new,
                                     0 if old is None else item_size(old), size)
