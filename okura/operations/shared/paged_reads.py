"""What Query and Scan share: Select and its rules, the index a request reads,
ExclusiveStartKey, and the reply built from a page of stored rows (filter,
projection, Count and ScannedCount, LastEvaluatedKey, ConsumedCapacity)."""
from __future__ import annotations

import orjson

from okura import errors, expressions
from okura.expressions import legacy
from okura.core import reads
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.reads import Source
from okura.values import key_rules, validation

ALL, PROJECTED, SPECIFIC, COUNT = ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES",
                                   "SPECIFIC_ATTRIBUTES", "COUNT")
_START_INVALID = "The provided starting key is invalid: "
_EXCLUSIVE_INVALID = "The provided exclusive start key is invalid: "


def requested_select(body: dict, operation: str) -> str | None:
    """Select as the request states it, after the rules that need no table."""
    select = body.get("Select")
    for param in ("ProjectionExpression", "AttributesToGet"):
        if body.get(param) is not None:
            if select is not None and select != SPECIFIC:
                raise errors.validation(  # unverified for AttributesToGet
                    f"Cannot specify the {param} when choosing to get {select}")
            return SPECIFIC
    if select == SPECIFIC:
        raise errors.validation(  # unverified
            "Must specify the ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
    if select == PROJECTED and body.get("IndexName") is None:
        verb = "Querying" if operation == "Query" else "Scanning"
        raise errors.validation(  # unverified
            f"ALL_PROJECTED_ATTRIBUTES can be used only when {verb} using an IndexName")
    return select


def compile_expressions(body: dict, names: expressions.Resolver,
                        legacy_filter: str) -> tuple[object, expressions.Projection | None]:
    """(filter, projection) of a request, each None when absent; `legacy_filter` names the
    operation's legacy filter parameter (QueryFilter, ScanFilter)."""
    text = body.get("FilterExpression")
    filter_ = (legacy.condition(body, legacy_filter) if text is None
               else expressions.condition(text, names, "FilterExpression"))
    text = body.get("ProjectionExpression")
    if text is not None:
        return filter_, expressions.projection(text, names)
    attributes = body.get("AttributesToGet")
    return filter_, None if attributes is None else legacy.projection(attributes)


class Reading:
    """A Query or Scan compiled against its table: where it reads, what it returns."""

    __slots__ = ("source", "select", "filter", "values", "projection", "fetch", "consistent",
                 "mode", "limit", "named")

    def __init__(self, table: Table, body: dict, select: str | None, filter_: object,
                 projection: expressions.Projection | None) -> None:
        self.consistent = bool(body.get("ConsistentRead"))
        self.source = read_source(table, body.get("IndexName"), self.consistent)
        self.filter = filter_
        self.values = body.get("ExpressionAttributeValues")  # what the filter's placeholders stand for
        self.projection = projection
        self.mode = body.get("ReturnConsumedCapacity")
        self.limit = body.get("Limit")
        index = self.source.index
        self.select = select or (ALL if index is None else PROJECTED)
        # the top-level attributes it reads (None: all there are), for the advisor
        self.named = (frozenset() if self.select == COUNT else None if projection is None
                      else frozenset(path.elements[0] for path in projection.paths))
        # Attributes an LSI does not hold come from the table item; a GSI cannot.
        self.fetch = False
        if index is None:
            return
        held = projected_names(self.source)
        if held is None:
            return
        if self.select == ALL:
            if index.is_global:
                raise errors.validation(
                    "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not "
                    f"supported for global secondary index {index.name} because its projection "
                    "type is not ALL")
            self.fetch = True
        elif projection is not None:
            missing = list(dict.fromkeys(path.elements[0] for path in projection.paths
                                         if path.elements[0] not in held))
            if missing and index.is_global:
                raise errors.validation(
                    "One or more parameter values were invalid: Global secondary index "
                    f"{index.name} does not project [{', '.join(missing)}]")
            self.fetch = bool(missing)

    def _count(self, ctx: Context, scanned: int, returned: int) -> None:
        """Tell the advisor's usage tally (core/metrics.py) what the page read and kept."""
        index = self.source.index
        ctx.metrics.paged(ctx.operation, self.source.table, "" if index is None else index.name,
                          self.consistent, scanned, returned, self.named)

    def start(self, body: dict, query: bool = False) -> tuple[bytes, bytes] | None:
        """The stored position ExclusiveStartKey names, after DynamoDB's checks (whose
        message says why for a Scan, not for a Query: as users' reports quote them)."""
        key = body.get("ExclusiveStartKey")
        if key is None:
            return None
        validation.check_item(key)
        source = self.source
        schema = list(dict.fromkeys(source.hash_keys + source.range_keys + source.table.schema))
        try:
            key_rules.check_key(key, schema)
        except errors.DynamoError as error:
            assert error.message is not None  # key_rules' errors say what is wrong
            if key.keys() == {name for name, _ in schema}:
                raise error  # recorded: a key of the wrong types says only that
            if len(schema) == 1 and (query or schema[0][0] in key):
                # recorded (the table has no sort key) up to the colon; the reason unverified
                raise errors.validation(_EXCLUSIVE_INVALID + error.message) from None
            raise errors.validation(_START_INVALID.rstrip(": ") if query
                                    else _START_INVALID + error.message) from None
        return source.position(key)

    async def page(self, ctx: Context, walk: reads.Walk,
                   start: tuple[bytes, bytes] | None) -> dict | bytes:
        """Read a page of `walk` from after `start` and build the Query/Scan reply."""
        page = await reads.read(ctx, self.source, walk, self.limit, self.consistent,
                                None if start is None else (0, *start), self.fetch)
        capacity = ctx.ledger.consumed_one(self.mode)
        if (self.filter is None and self.projection is None and not self.fetch
                and self.select != COUNT and capacity is None):
            # Stored rows are wire JSON: copy them into the reply undecoded.
            count = len(page.docs)
            ctx.returned = count
            self._count(ctx, count, count)
            raw = (b'{"Items":[' + b",".join(page.docs) + b'],"Count":%d,"ScannedCount":%d'
                   % (count, count))
            if page.last is not None:
                key = self.source.last_key(orjson.loads(page.last))
                raw += b',"LastEvaluatedKey":' + orjson.dumps(key)
            return raw + b"}"
        items = [orjson.loads(doc) for doc in page.docs]
        if self.filter is not None:
            evaluate, values = expressions.evaluate, self.values
            items = [item for item in items if evaluate(self.filter, item, values)]
        out: dict = {}
        if self.select != COUNT:
            if self.projection is not None:
                project = expressions.project
                items = [project(self.projection, item) for item in items]
            out["Items"] = items
        out["Count"] = ctx.returned = len(items)
        out["ScannedCount"] = page.scanned
        self._count(ctx, page.scanned, len(items))
        if page.last is not None:
            out["LastEvaluatedKey"] = self.source.last_key(orjson.loads(page.last))
        if capacity is not None:
            out["ConsumedCapacity"] = capacity
        return out


def read_source(table: Table, name: str | None, consistent: bool) -> Source:
    """The table, or its index `name`, as a read of it (Query, Scan, SELECT) sees it,
    after DynamoDB's rules on reading an index."""
    if name is None:
        return Source(table)
    for index in table.indexes:
        if index.name == name:
            if index.status != "ACTIVE":
                raise errors.validation(  # unverified
                    f"Cannot read from backfilling global secondary index: {name}")
            if consistent and index.is_global:
                raise errors.validation(
                    "Consistent reads are not supported on global secondary indexes")
            return Source(table, index)
    raise errors.validation(f"The table does not have the specified index: {name}")  # unverified


def projected_names(source: Source) -> frozenset | None:
    """Top-level attributes an index entry holds (None: all of them)."""
    assert source.index is not None  # a read of an index
    projection = source.index.projection
    if projection["ProjectionType"] == "ALL":
        return None
    return frozenset(source.key_names) | frozenset(projection.get("NonKeyAttributes", ()))
