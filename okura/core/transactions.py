"""Transactions: many items written or read as one, and idempotency tokens.

A write transaction is `items.write_all` run without waiting on locks, its items in
`items.KeyOrder`: an item that another transaction holds refuses its change
(TransactionConflict), as DynamoDB's transactions never queue behind each other. A read transaction reads
every item inside one storage transaction, so they come from one committed state.

Idempotency tokens live in storage, shared by every node: a token is claimed (as
running) in its own short storage transaction before the work, and its outcome is
recorded inside the work's own transaction, so a replay sees either "running" or
the committed outcome, never a write without its outcome.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Callable

import orjson

from okura import errors
from okura.core import items
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.throughput import Throughput
from okura.errors import DynamoError
from okura.storage.engine import Conflict, Locked, Transaction, doc_of

if TYPE_CHECKING:
    from okura.core.database import Database

TOKEN_LIFETIME = 600.0  # DynamoDB keeps a client token for 10 minutes
CLAIM_LEASE = 60.0  # a claim left by a node that died frees its token after this
_CONFLICT_CODE = "TransactionConflict"


def digest(parameters: object) -> bytes:
    """What a repeat of a request must match to be the same request."""
    return hashlib.sha256(orjson.dumps(parameters, option=orjson.OPT_SORT_KEYS)).digest()


async def claim(db: Database, key: str, request_digest: bytes) -> bytes | None:
    """Claim a client token for a transaction about to run (None), or return the outcome
    recorded by the earlier request that used it."""
    now = db.clock.now()
    async with db.engine.transaction() as unit:
        held = await unit.token_claim(key, request_digest, now + CLAIM_LEASE, now)
    if held is None:
        return None
    held_digest, outcome = held
    if held_digest != request_digest:
        raise errors.idempotent_parameter_mismatch()
    if outcome is None:
        raise errors.transaction_in_progress()
    return outcome


def reason(error: DynamoError | None, returned: dict | None = None) -> dict:
    """One CancellationReason: DynamoDB's code is the error's name without "Exception"
    (a ValidationException is a "ValidationError")."""
    if error is None:
        return {"Code": "None"}
    name = error.name
    code = "ValidationError" if name == "ValidationException" else name.removesuffix("Exception")
    out: dict = {"Code": code, "Message": error.message}
    if returned is not None:
        out["Item"] = returned
    return out


def _conflicts(count: int) -> DynamoError:
    # The database aborted the unit without naming the item (a serialization
    # failure): every action is reported as conflicting.
    conflict = reason(errors.transaction_conflict())
    return errors.transaction_canceled([conflict] * count)


def _admit_all(ctx: Context, located: list[tuple[Table, bytes]], write: bool) -> None:
    """A transaction is throttled as a whole: TransactionCanceledException whose reasons
    say ThrottlingError for each action the throughput gate refuses (API reference,
    TransactWriteItems)."""
    gate = ctx.db.features[Throughput]
    if not gate.on:
        return
    refusals = [gate.admit(ctx, table, hk, write, raising=False) for table, hk in located]
    if any(refusal is not None for refusal in refusals):
        throttled = {"Code": "ThrottlingError", "Message": errors.throttling([]).message}
        raise errors.transaction_canceled([reason(None) if refusal is None else throttled
                                           for refusal in refusals])


async def transact_write(ctx: Context, changes: list[items.Change], token: str | None = None,
                         outcome: Callable[[list[items.Written]], bytes] | None = None
                         ) -> list[items.Written]:
    """Run a write transaction: all changes or none. A refused change cancels it with
    TransactionCanceledException. With a claimed `token`, `outcome(written)` is
    recorded in the same storage transaction; if the transaction fails, the claim is
    dropped so the token may be used again."""
    db = ctx.db
    _admit_all(ctx, [(change.table, (change.at or change.table.locate(change.key))[0])
                     for change in changes if not change.by_service], True)

    async def settle(unit: Transaction, written: list[items.Written]) -> None:
        # before_commit only with a token, and a claimed token comes with its outcome
        assert token is not None and outcome is not None
        await unit.token_settle(token, outcome(written), db.clock.now() + TOKEN_LIFETIME)
    try:
        return await items.write_all(ctx, changes, wait=False,
                                     before_commit=None if token is None else settle,
                                     transactional=True, admit=False)
    except BaseException as failure:
        if token is not None:
            async with db.engine.transaction() as unit:
                await unit.token_release(token)
        if isinstance(failure, items.Cancelled):
            raise errors.transaction_canceled([
                reason(error, None if error is None or error.extra is None
                       else error.extra.get("Item"))
                for error in failure.reasons]) from None
        if isinstance(failure, Conflict):
            raise _conflicts(len(changes)) from None
        raise


async def transact_get(ctx: Context, targets: list[tuple[Table, dict]]) -> list[bytes | None]:
    """The stored documents of several items from one committed state, each billed as
    a transactional read; an item that a write transaction holds cancels the read with
    TransactionConflict."""
    docs: list[bytes | None] = []
    conflicted = [False] * len(targets)
    sized = []
    _admit_all(ctx, [(table, table.locate(key)[0]) for table, key in targets], False)
    gate = ctx.db.features[Throughput]
    throttling = gate.on
    try:
        async with ctx.db.engine.transaction() as unit:
            for i, (table, key) in enumerate(targets):
                hk, rk = table.locate(key)
                try:
                    row = await unit.get(table.id, hk, rk, wait=False)
                except Locked:
                    row = None
                    conflicted[i] = True
                docs.append(doc_of(row))
                sized.append((table, hk, 0 if row is None else row[0]))
    except Conflict:
        raise _conflicts(len(targets)) from None
    if any(conflicted):
        conflict = reason(errors.transaction_conflict())
        raise errors.transaction_canceled([conflict if c else reason(None) for c in conflicted])
    spent = len(ctx.ledger.charges)
    for table, hk, size in sized:
        ctx.ledger.read(table, hk, size, True, transactional=True)
    if throttling:
        gate.spend(ctx.ledger, spent)
    return docs

