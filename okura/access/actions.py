"""What each kind of operation demands of IAM (demands.py): which actions on which
resources, with which condition keys. The table of operations (server/router.py) gives
each operation its `Asks`, built here."""
from __future__ import annotations

from typing import Any, Awaitable, Callable, NamedTuple

from okura import arns, partiql
from okura.access.demands import (PARTIQL_ACTIONS, Demand, Demands, Values, attribute_names,
                                  equal_to, given, hash_key_of, leading_keys, projected, queried_keys,
                                  statement_of, updated)
from okura.core.context import Context
from okura.core.streams.read import Iterator

_SINGLE = ("ReturnValues", "ReturnConsumedCapacity")


def _with(facts: dict[str, Values], key: str, values: Values | None) -> dict[str, Values]:
    if values is not None:
        facts["dynamodb:" + key] = values
    return facts


async def _item(d: Demands, body: dict, action: str, key_member: str) -> None:
    named = await d.table(body.get("TableName"))
    if named is None:
        return
    arn, table = named
    key = body.get(key_member)
    facts = given(body, *_SINGLE)
    wants = d.wants(table)  # (the hot requests compute only the keys policies read)
    if "dynamodb:leadingkeys" in wants:
        _with(facts, "leadingkeys", leading_keys(table, [key]))
    if "dynamodb:attributes" in wants:
        if action == "UpdateItem":
            names = attribute_names(key, updated(body))
        elif action == "GetItem":
            names = attribute_names(key, projected(body))
        else:
            names = attribute_names(key)
        _with(facts, "attributes", names)
    d.add(action, arn, facts, table)


async def _read(d: Demands, body: dict, action: str) -> None:
    named = await d.table(body.get("TableName"))
    if named is None:
        return
    arn, table = named
    index = body.get("IndexName")
    if type(index) is str:
        arn = arns.index(arn, index)
    facts = given(body, "ReturnConsumedCapacity")
    select = body.get("Select")
    if type(select) is not str:  # DynamoDB's default selection, as a policy sees it
        select = ("SPECIFIC_ATTRIBUTES" if "ProjectionExpression" in body or "AttributesToGet" in body
                  else "ALL_PROJECTED_ATTRIBUTES" if type(index) is str else "ALL_ATTRIBUTES")
    facts["dynamodb:select"] = [select]
    names = attribute_names(projected(body))
    if names:
        facts["dynamodb:attributes"] = names
    if action == "Query":
        _with(facts, "leadingkeys", queried_keys(body, table))
    d.add(action, arn, facts, table)


def _keys_read(request: Any) -> tuple[list, tuple]:
    """A BatchGetItem table entry's keys, and the names its projection reads."""
    listed = request.get("Keys") if type(request) is dict else None
    return (listed if type(listed) is list else []), projected(request) if type(request) is dict else ()


def _keys_written(writes: Any) -> tuple[list, tuple]:
    """A BatchWriteItem table entry's items and keys."""
    keys = []
    for write in (writes if type(writes) is list else ()):
        if type(write) is dict:
            for kind, member in (("PutRequest", "Item"), ("DeleteRequest", "Key")):
                inner = write.get(kind)
                if type(inner) is dict:
                    keys.append(inner.get(member))
    return keys, ()


async def _batch(d: Demands, body: dict, action: str,
                 keys_of: Callable[[Any], tuple[list, tuple]]) -> None:
    """One check per table of a batch, with the partition keys of all its items."""
    facts_common = given(body, "ReturnConsumedCapacity")
    requests = body.get("RequestItems")
    for name, request in (requests.items() if type(requests) is dict else ()):
        named = await d.table(name)
        if named is None:
            continue
        arn, table = named
        keys, read = keys_of(request)
        facts = dict(facts_common)
        _with(facts, "leadingkeys", leading_keys(table, keys))
        _with(facts, "attributes", attribute_names(*keys, read))
        d.add(action, arn, facts, table)


_TRANSACT_WRITES = {"Put": ("PutItem", "Item"), "Update": ("UpdateItem", "Key"),
                    "Delete": ("DeleteItem", "Key"), "ConditionCheck": ("ConditionCheckItem", "Key")}


async def _transact(d: Demands, body: dict, operation: str) -> None:
    listed = body.get("TransactItems")
    for entry in (listed if type(listed) is list else ()):
        if type(entry) is not dict:
            continue
        for kind, inner in entry.items():
            if type(inner) is not dict:
                continue
            found = ("GetItem", "Key") if kind == "Get" else _TRANSACT_WRITES.get(kind)
            if found is None:
                continue
            action, member = found
            inner = dict(inner, ReturnConsumedCapacity=body.get("ReturnConsumedCapacity"))
            before = len(d.found)
            await _item(d, inner, action, member)
            for number in range(before, len(d.found)):
                demand = d.found[number]
                demand.facts["dynamodb:enclosingoperation"] = [operation]


async def _statement(d: Demands, body: dict, enclosing: str | None = None) -> None:
    stmt = statement_of(body)
    if stmt is None:
        return
    if type(stmt) is partiql.Exists:
        stmt = stmt.select
    named = await d.table(getattr(stmt, "table", None))
    if named is None:
        return
    arn, table = named
    index = getattr(stmt, "index", None)
    if index is not None:
        arn = arns.index(arn, index)
    facts: dict[str, Values] = {}
    if table is not None:
        if type(stmt) is partiql.Insert:
            item = getattr(stmt.item, "value", None)  # a Const of an M value
            _with(facts, "leadingkeys", leading_keys(table, [
                item.get("M") if type(item) is dict else None]))
        else:
            where = getattr(stmt, "where", None)
            name = hash_key_of(table, index)
            _with(facts, "leadingkeys", [] if where is None else equal_to(where, name, None))
    if enclosing is not None:
        facts["dynamodb:enclosingoperation"] = [enclosing]
    d.add(PARTIQL_ACTIONS[type(stmt)], arn, facts, table)


async def _statements(d: Demands, body: dict, member: str, enclosing: str | None) -> None:
    listed = body.get(member)
    for entry in (listed if type(listed) is list else ()):
        await _statement(d, entry, enclosing)


def _tags(body: dict) -> dict[str, Values]:
    facts: dict[str, Values] = {}
    tags = body.get("Tags")
    if type(tags) is list:
        pairs = [(t.get("Key"), t.get("Value")) for t in tags if type(t) is dict]
        for key, value in pairs:
            if type(key) is str and type(value) is str:
                facts["aws:requesttag/" + key.lower()] = [value]
        facts["aws:tagkeys"] = [key for key, _ in pairs if type(key) is str]
    keys = body.get("TagKeys")
    if type(keys) is list:
        facts["aws:tagkeys"] = [key for key in keys if type(key) is str]
    return facts


async def _stream_records(d: Demands, body: dict, action: str) -> None:
    iterator = body.get("ShardIterator")
    decoded = Iterator.decode(d.ctx.db.seal, iterator) if type(iterator) is str else None
    if decoded is not None:
        await d.on_arn(action, decoded.arn)


# Adds each (action, resource) a request of the operation needs; its third argument is
# the operation's action, which the table of operations names once (server/router.py).
Builder = Callable[[Demands, dict, str], Awaitable[None]]


class Asks(NamedTuple):
    """What one operation demands of IAM: `build` adds each (action, resource) a request
    of it needs; `one_table`: its one demand is its action on the table TableName names
    (or the index IndexName names), which Guard.granted may answer from its notes;
    `action`: the operation's, set by its entry in the table of operations."""
    build: Builder
    one_table: bool = False
    action: str = ""


def item(key_member: str) -> Asks:
    """GetItem, PutItem, UpdateItem, DeleteItem: the action on the table, with the item's
    leading key and attributes."""
    return Asks(lambda d, body, action: _item(d, body, action, key_member), one_table=True)


def read() -> Asks:
    """Query, Scan: the action on the table or index."""
    return Asks(_read, one_table=True)


def batch_get() -> Asks:
    return Asks(lambda d, body, action: _batch(d, body, action, _keys_read))


def batch_write() -> Asks:
    return Asks(lambda d, body, action: _batch(d, body, action, _keys_written))


def transaction() -> Asks:
    """TransactGetItems, TransactWriteItems: each action as its single-item operation."""
    return Asks(_transact)


def statement() -> Asks:
    """ExecuteStatement: its statement's PartiQL action."""
    return Asks(lambda d, body, action: _statement(d, body))


def statements(member: str, enclosing: bool = False) -> Asks:
    """BatchExecuteStatement, ExecuteTransaction: each statement's PartiQL action
    (`enclosing`: with the operation as dynamodb:EnclosingOperation)."""
    return Asks(lambda d, body, action: _statements(d, body, member,
                                                   action if enclosing else None))


def on_table(tags: bool = False, one_table: bool = False) -> Asks:
    """The action on the table TableName names (`tags`: with the request's tag keys)."""
    return Asks(lambda d, body, action: d.on_table(action, body, _tags(body) if tags else None),
                one_table)


def on_arn(member: str, tags: bool = False) -> Asks:
    """The action on the resource whose ARN `member` holds."""
    return Asks(lambda d, body, action: d.on_arn(action, body.get(member),
                                                 _tags(body) if tags else None))


def stream_records() -> Asks:
    """GetRecords: on the stream of its shard iterator."""
    return Asks(_stream_records)


async def _imported_table(d: Demands, body: dict, action: str) -> None:
    parameters = body.get("TableCreationParameters")
    if type(parameters) is dict:
        await d.on_table(action, parameters)


def imported_table() -> Asks:
    """ImportTable: on the table it creates."""
    return Asks(_imported_table)


def restored_table() -> Asks:
    """RestoreTableToPointInTime: on the source table, by ARN or name."""
    return Asks(lambda d, body, action: d.on_table(
        action, body, member="SourceTableArn" if "SourceTableArn" in body else "SourceTableName"))


async def _anything(d: Demands, body: dict, action: str) -> None:
    d.add(action, "*", {})


def anything() -> Asks:
    """An operation on no resource (ListTables, DescribeLimits, ...): the action on "*"."""
    return Asks(_anything)


async def demands_of(ctx: Context, asks: Asks, body: dict) -> list[Demand]:
    """Every check the request needs."""
    d = Demands(ctx)
    await asks.build(d, body, asks.action)
    return d.found
