"""Reading and writing items: the one write path every mutation goes through.

`write_all` runs, inside one storage transaction, every item's part of a
mutation: read the current item (locked where the backend has concurrent
writers), let the operation decide the new item from it (checking its condition
there), and, only if every item's decision stands, store the results and all
that follows from them (`_store`). A single-item write is `write` of one item;
a transaction is `write_all` of many. Index maintenance and stream records live
in `_store`, so no write can skip them.
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
    """Apply one item's decision atomically (see _write_retried)."""
    return (await _write_retried(db, [change]))[0]


async def write_each(db, changes: list[Change]) -> list[Written]:
    """BatchWriteItem's checked puts and deletes of distinct items in one storage
    transaction: one commit, not one per item. Rows are locked in one global order, so
    two batches over the same items cannot deadlock; the results are in the order of
    `changes`."""
    order = sorted(range(len(changes)), key=lambda i: (
        changes[i].table.id, *(changes[i].at or changes[i].table.locate(changes[i].key))))
    written = await _write_retried(db, [changes[i] for i in order])
    out: list = [None] * len(changes)
    for position, i in enumerate(order):
        out[i] = written[position]
    return out


async def _write_retried(db, changes: list[Change]) -> list[Written]:
    """write_all for writes outside transactions: a refusal is raised as it is (nothing
    was written), and a lost race the database reports (Conflict: nothing was stored)
    is run again, since DynamoDB serialises such writes rather than failing one for a
    concurrent writer."""
    for attempt in range(WRITE_ATTEMPTS):
        try:
            return await write_all(db, changes)
        except Cancelled as cancelled:
            raise next(reason for reason in cancelled.reasons if reason) from None
        except Conflict:
            if attempt == WRITE_ATTEMPTS - 1:
                raise


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
            # Shared storage reads even for a plain put: the locked read is where a write
            # meets a transaction in flight (see PostgreSQL's get).
            if not (change.needs_old or change.table.observes_old or not wait
                    or db.engine.shared):
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
        news, new_sizes = [], []
        for i, (change, old) in enumerate(zip(changes, olds)):
            news.append(UNCHANGED)
            new_sizes.append(0)
            if reasons[i] is None:
                try:
                    new = change.decide(old)
                    if new is not UNCHANGED and new is not None:
                        # Part of the decision: in a transaction, a new item past 400 KB or
                        # with a bad index key refuses only its own action.
                        new_sizes[i] = check_item_size(new, change.too_large, change.new_size)
                        if change.table.indexes:
                            index_entries.check(change.table, new)
                    news[i] = new
                except DynamoError as refusal:
                    reasons[i] = refusal
        if any(reasons):
            raise Cancelled(reasons, olds)
        written, rows = [], []
        for change, (hk, rk), old, new, size in zip(changes, located, olds, news, new_sizes):
            if new is UNCHANGED:
                written.append(Written(old, old))
            elif new is not None and not change.table.observes_old:
                # Nothing follows from this put (no index, no stream): stored with the others.
                rows.append((change.table.id, hk, rk, size, orjson.dumps(new)))
                written.append(Written(old, new))
            else:
                written.append(Written(old, new,
                                       await _store(db, unit, change, hk, rk, old, new, size)))
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
