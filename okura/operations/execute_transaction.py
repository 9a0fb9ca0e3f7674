"""ExecuteTransaction: up to 100 PartiQL statements as one transaction — all reads
(each naming a whole key) or all writes (INSERT, UPDATE, DELETE, EXISTS)."""
from __future__ import annotations

from okura import errors, partiql
from okura.core import transactions
from okura.core.context import Context
from okura.operations import transact_write_items
from okura.operations.shared import partiql_statements, write_actions


async def handle(ctx: Context, body: dict) -> dict:
    entries = body["TransactStatements"]
    statements = [partiql_statements.prepare(entry) for entry in entries]
    reads = [stmt for stmt in statements if type(stmt) is partiql.Select]
    writes = [stmt for stmt in statements if type(stmt) is not partiql.Select]
    if reads and writes:
        raise errors.validation(
            "Transaction must contain either all reads or all writes")  # unverified
    if not writes:
        return await _read(ctx, body, reads)
    if any(getattr(stmt, "returning", None) for stmt in writes):
        # a transaction's writes return nothing (developer guide, "Performing
        # transactions with PartiQL")
        raise partiql.messages.malformed(
            "RETURNING is not allowed in a transaction")  # unverified
    # each statement's own ReturnValuesOnConditionCheckFailure decides its reason's Item
    actions = [await partiql_statements.write_change(ctx, stmt, entry)
               for stmt, entry in zip(writes, entries)]
    write_actions.check_unique(actions)
    return await transact_write_items.run_transaction(ctx, body, "ExecuteTransaction", entries,
                                                      actions)


async def _read(ctx: Context, body: dict, statements: list[partiql.Select]) -> dict:
    targets = [await partiql_statements.key_target(ctx, stmt) for stmt in statements]
    docs = await transactions.transact_get(ctx, targets)
    responses = []
    for stmt, doc in zip(statements, docs):
        found = partiql_statements.selected(ctx, stmt, doc)
        responses.append({} if found is None else {"Item": found})
    out: dict = {"Responses": responses}
    capacity = ctx.ledger.consumed(body.get("ReturnConsumedCapacity"), named=True)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
