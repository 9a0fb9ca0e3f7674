"""ExecuteTransaction: up to 100 PartiQL statements as one transaction — all reads
(each naming a whole key) or all writes (INSERT, UPDATE, DELETE, EXISTS)."""
from __future__ import annotations

import orjson

from okura import errors, partiql, shapes
from okura.core import transactions
from okura.operations import partiql_statements, transact_write_items, write_actions
from okura.operations.transact_capacity import READ, Tally, read_units


async def handle(request, body: dict):
    shapes.check("ExecuteTransaction", body)
    entries = body["TransactStatements"]
    statements = [partiql_statements.prepare(entry) for entry in entries]
    reads = [type(stmt) is partiql.Select for stmt in statements]
    if any(reads) and not all(reads):
        raise errors.validation(
            "Transaction must contain either all reads or all writes")  # unverified
    if all(reads):
        return await _read(request, body, statements)
    if any(getattr(stmt, "returning", None) for stmt in statements):
        # a transaction's writes return nothing (developer guide, "Performing
        # transactions with PartiQL")
        raise partiql.messages.malformed(
            "RETURNING is not allowed in a transaction")  # unverified
    # each statement's own ReturnValuesOnConditionCheckFailure decides its reason's Item
    actions = [await partiql_statements.write_change(request, stmt, entry)
               for stmt, entry in zip(statements, entries)]
    write_actions.check_unique(actions)
    return await transact_write_items.run(request, body, "ExecuteTransaction", entries, actions)


async def _read(request, body: dict, statements: list) -> dict:
    targets = [await partiql_statements.key_target(request, stmt) for stmt in statements]
    docs = await transactions.read(request.app.db, targets)
    responses, tally = [], Tally()
    for stmt, (table, _), doc in zip(statements, targets, docs):
        item = None if doc is None else orjson.loads(doc)
        tally.add(table.name, read_units(item))
        found = partiql_statements.selected(stmt, item)
        responses.append({} if found is None else {"Item": found})
    out = {"Responses": responses}
    capacity = tally.reply(body, READ)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out
