"""Each operation's demands (demands.py): which IAM actions on which resources, with
which condition keys."""
from __future__ import annotations

from typing import Any, Awaitable, Callable

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


async def _stream_records(d: Demands, body: dict) -> None:
    iterator = body.get("ShardIterator")
    decoded = Iterator.decode(d.ctx.db.seal, iterator) if type(iterator) is str else None
    if decoded is not None:
        await d.on_arn("GetRecords", decoded.arn)


Builder = Callable[[Demands, dict], Awaitable[None]]


def _on_table(action: str, facts: Callable[[dict], dict] | None = None) -> Builder:
    return lambda d, body: d.on_table(action, body, facts(body) if facts else None)


def _on_arn(action: str, member: str, facts: Callable[[dict], dict] | None = None) -> Builder:
    return lambda d, body: d.on_arn(action, body.get(member), facts(body) if facts else None)


async def _imported_table(d: Demands, body: dict) -> None:
    """ImportTable: a check of the table it creates."""
    parameters = body.get("TableCreationParameters")
    if type(parameters) is dict:
        await d.on_table("ImportTable", parameters)


async def _anything(d: Demands, action: str) -> None:
    d.add(action, "*", {})


_BUILDERS: dict[str, Builder] = {
    "GetItem": lambda d, body: _item(d, body, "GetItem", "Key"),
    "PutItem": lambda d, body: _item(d, body, "PutItem", "Item"),
    "UpdateItem": lambda d, body: _item(d, body, "UpdateItem", "Key"),
    "DeleteItem": lambda d, body: _item(d, body, "DeleteItem", "Key"),
    "Query": lambda d, body: _read(d, body, "Query"),
    "Scan": lambda d, body: _read(d, body, "Scan"),
    "BatchGetItem": lambda d, body: _batch(d, body, "BatchGetItem", _keys_read),
    "BatchWriteItem": lambda d, body: _batch(d, body, "BatchWriteItem", _keys_written),
    "TransactGetItems": lambda d, body: _transact(d, body, "TransactGetItems"),
    "TransactWriteItems": lambda d, body: _transact(d, body, "TransactWriteItems"),
    "ExecuteStatement": lambda d, body: _statement(d, body),
    "BatchExecuteStatement": lambda d, body: _statements(d, body, "Statements", None),
    "ExecuteTransaction": lambda d, body: _statements(
        d, body, "TransactStatements", "ExecuteTransaction"),
    "CreateTable": _on_table("CreateTable", _tags),
    "DescribeTable": _on_table("DescribeTable"),
    "UpdateTable": _on_table("UpdateTable"),
    "DeleteTable": _on_table("DeleteTable"),
    "UpdateTimeToLive": _on_table("UpdateTimeToLive"),
    "DescribeTimeToLive": _on_table("DescribeTimeToLive"),
    "UpdateContributorInsights": _on_table("UpdateContributorInsights"),
    "DescribeContributorInsights": _on_table("DescribeContributorInsights"),
    "EnableKinesisStreamingDestination": _on_table("EnableKinesisStreamingDestination"),
    "DisableKinesisStreamingDestination": _on_table("DisableKinesisStreamingDestination"),
    "DescribeKinesisStreamingDestination": _on_table("DescribeKinesisStreamingDestination"),
    "UpdateKinesisStreamingDestination": _on_table("UpdateKinesisStreamingDestination"),
    "UpdateContinuousBackups": _on_table("UpdateContinuousBackups"),
    "DescribeContinuousBackups": _on_table("DescribeContinuousBackups"),
    "TagResource": _on_arn("TagResource", "ResourceArn", _tags),
    "UntagResource": _on_arn("UntagResource", "ResourceArn", _tags),
    "ListTagsOfResource": _on_arn("ListTagsOfResource", "ResourceArn"),
    "PutResourcePolicy": _on_arn("PutResourcePolicy", "ResourceArn"),
    "GetResourcePolicy": _on_arn("GetResourcePolicy", "ResourceArn"),
    "DeleteResourcePolicy": _on_arn("DeleteResourcePolicy", "ResourceArn"),
    "DescribeStream": _on_arn("DescribeStream", "StreamArn"),
    "GetShardIterator": _on_arn("GetShardIterator", "StreamArn"),
    "GetRecords": _stream_records,
    "ExportTableToPointInTime": _on_arn("ExportTableToPointInTime", "TableArn"),
    "DescribeExport": _on_arn("DescribeExport", "ExportArn"),
    "ImportTable": _imported_table,
    "DescribeImport": _on_arn("DescribeImport", "ImportArn"),
    "CreateBackup": _on_table("CreateBackup"),
    "DescribeBackup": _on_arn("DescribeBackup", "BackupArn"),
    "DeleteBackup": _on_arn("DeleteBackup", "BackupArn"),
    "RestoreTableFromBackup": _on_arn("RestoreTableFromBackup", "BackupArn"),
    "RestoreTableToPointInTime": lambda d, body: d.on_table(
        "RestoreTableToPointInTime", body,
        member="SourceTableArn" if "SourceTableArn" in body else "SourceTableName"),
}


# Operations whose one demand is their action on the table TableName names (or its
# index IndexName names): what Guard.granted may answer from its notes.
ONE_TABLE = frozenset(("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
                       "DescribeTable", "UpdateTable", "DeleteTable", "UpdateTimeToLive",
                       "DescribeTimeToLive", "UpdateContinuousBackups",
                       "DescribeContinuousBackups"))


async def demands_of(ctx: Context, operation: str, body: dict) -> list[Demand]:
    """Every check the request needs (operations on no resource: one on "*")."""
    d = Demands(ctx)
    builder = _BUILDERS.get(operation)
    if builder is None:  # ListTables, DescribeLimits, DescribeEndpoints, ListStreams,
        # ListExports, ListImports, ListBackups
        await _anything(d, operation)
    else:
        await builder(d, body)
    return d.found

