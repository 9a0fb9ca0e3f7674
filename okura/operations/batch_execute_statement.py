"""BatchExecuteStatement: up to 25 PartiQL statements, each succeeding or failing on
its own; reads must name a whole key."""
from __future__ import annotations

from okura import partiql, shapes
from okura.core import transactions
from okura.errors import DynamoError
from okura.operations import partiql_statements
from okura.operations.single_item import index_write_units
from okura.operations.transact_capacity import Tally, write_units
from okura.values import sizes


async def handle(request, body: dict):
    shapes.check("BatchExecuteStatement", body)
    responses, tally = [], Tally()
    for entry in body["Statements"]:
        try:
            responses.append(await _one(request, entry, tally))
        except DynamoError as error:
            failure = transactions.reason(error)
            responses.append({"Error": {"Code": failure["Code"], "Message": failure["Message"]}})
    out = {"Responses": responses}
    capacity = tally.reply(body, None)
    if capacity is not None:
        out["ConsumedCapacity"] = capacity
    return out


async def _one(request, entry: dict, tally: Tally) -> dict:
    stmt = partiql_statements.prepare(entry)
    if type(stmt) is partiql.Select:
        table = (await partiql_statements.source_of(request, stmt)).table
        key, _ = partiql_statements.split_key(table, stmt.where)
        if key is None or stmt.index is not None:
            raise partiql.messages.key_equality()
        _, page = await partiql_statements.select(request, stmt, None, None)
        tally.add(table.name, sizes.read_units(page.size, consistent=bool(
            entry.get("ConsistentRead"))))
        reply = {"TableName": table.name}
        if page.items:
            reply["Item"] = page.items[0]
        return reply
    change, old, new, returned = await partiql_statements.write_alone(request, stmt, entry)
    tally.add(change.table.name, write_units(old, new, transactional=False),
              index_write_units(change.table, old, new))
    reply = {"TableName": change.table.name}
    if returned is not None:
        reply["Item"] = returned
    return reply
