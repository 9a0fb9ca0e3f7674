"""What a request asks of IAM: each (action, resource) it needs, with the condition keys
DynamoDB gives that check (the service authorization reference's "Actions, resources
and condition keys for Amazon DynamoDB", and the developer guide's "Using IAM policy
conditions for fine-grained access control").

Every resource is checked: each table of a batch, each action of a transaction (as
GetItem, PutItem, UpdateItem, DeleteItem or ConditionCheckItem, with
dynamodb:EnclosingOperation), each PartiQL statement's table (PartiQLSelect, ...), an
index a read names, the stream of a streams call. Whatever part of a request is
malformed (a member of the wrong type, an expression that does not parse) adds no
check: the operation refuses that request with DynamoDB's error before it touches
anything."""
from __future__ import annotations

from typing import Any, Callable, Container, NamedTuple

from okura import arns, expressions, partiql
from okura.core import table_lookup
from okura.core.catalog import POLICIES, Table
from okura.core.context import Context
from okura.errors import DynamoError
from okura.expressions.ast import And, Compare, Const, Path, Value

Values = list[str]


class Demand(NamedTuple):
    action: str  # dynamodb:GetItem
    resource: str  # an ARN, or "*"
    facts: dict[str, Values]  # condition keys of this check (lower-case)
    table: Table | None  # whose resource policy also decides (None: no policy applies)


def _text(value: Any) -> str | None:
    """A key value as IAM compares it: S as is, N's digits, B its base64 text."""
    if type(value) is dict and len(value) == 1:
        (kind, inner), = value.items()
        if kind in ("S", "N", "B") and type(inner) is str:
            return inner
    return None


class _Every:
    def __contains__(self, key: object) -> bool:
        return True


_EVERY_KEY = _Every()


class Demands:
    """Builds the demands of one request."""

    __slots__ = ("ctx", "found")

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.found: list[Demand] = []

    async def table(self, value: Any) -> tuple[str, Table | None] | None:
        """(ARN, table or None if it does not exist) of a TableName member."""
        if type(value) is not str:
            return None
        try:
            name = table_lookup.table_name(self.ctx, value)
        except DynamoError:
            return None
        db = self.ctx.db
        table = db.catalog.cached(self.ctx.region, name) or await db.catalog.get(self.ctx.region, name)
        arn = table.arn if table is not None else \
            arns.table(self.ctx.region, self.ctx.account, name)
        return arn, table

    def wants(self, table: Table | None) -> Container[str]:
        """The condition keys a check on the table needs: those the caller's policies read,
        or every key if the table has a resource policy."""
        if table is not None and POLICIES in table.doc:
            return _EVERY_KEY
        identity = self.ctx.identity
        return _EVERY_KEY if identity is None else identity.keys

    def add(self, action: str, resource: str, facts: dict[str, Values],
            table: Table | None = None) -> None:
        if table is not None and table.doc.get("Tags"):
            facts = dict(facts)
            for key, value in table.doc["Tags"].items():
                facts["aws:resourcetag/" + key.lower()] = [value]
        self.found.append(Demand("dynamodb:" + action, resource, facts, table))

    async def on_table(self, action: str, body: dict, facts: dict[str, Values] | None = None,
                       member: str = "TableName") -> None:
        """One check of the table a member names (and of the index the body names)."""
        named = await self.table(body.get(member))
        if named is None:
            return
        arn, table = named
        facts = {} if facts is None else facts
        index = body.get("IndexName")
        if type(index) is str:
            arn = arns.index(arn, index)
        self.add(action, arn, facts, table)

    async def on_arn(self, action: str, arn: Any, facts: dict[str, Values] | None = None) -> None:
        """One check of a resource named by ARN (tags, resource policies, streams)."""
        if type(arn) is not str:
            return
        table = None
        stream = arns.parse_stream(arn)
        if stream is not None:
            region, name, _label = stream
            table = self.ctx.db.catalog.cached(region, name) or \
                await self.ctx.db.catalog.get(region, name)
        else:
            parsed = arns.parse_table(arns.without_index(arn))
            if parsed is not None:
                region, name = parsed.region, parsed.name
                table = self.ctx.db.catalog.cached(region, name) or \
                    await self.ctx.db.catalog.get(region, name)
        self.add(action, arn, facts or {}, table)


def leading_keys(table: Table | None, keys: list[Any], index: Any = None) -> Values | None:
    """dynamodb:LeadingKeys: the partition key values of the items or keys given."""
    if table is None:
        return None
    name = hash_key_of(table, index)
    values = []
    for key in keys:
        if type(key) is dict:
            text = _text(key.get(name))
            if text is not None:
                values.append(text)
    return values


def hash_key_of(table: Table, index: Any) -> str:
    """The partition key attribute of the table, or of its index of that name."""
    if type(index) is str:
        for found in table.indexes:
            if found.name == index:
                return found.hash_keys[0][0] if found.hash_keys else table.hash_key
    return table.hash_key


def attribute_names(*groups: Any) -> Values:
    """dynamodb:Attributes: the top-level attribute names a request names."""
    names: dict[str, None] = {}
    for group in groups:
        if type(group) is dict:
            names.update(dict.fromkeys(group))
        elif type(group) in (list, tuple):
            for item in group:
                if type(item) is str:
                    names[item] = None
                elif type(item) is Path and item.elements and type(item.elements[0]) is str:
                    names[item.elements[0]] = None
    return list(names)


def resolver(body: dict) -> expressions.Resolver | None:
    try:
        return expressions.Resolver(body.get("ExpressionAttributeNames"),
                                    body.get("ExpressionAttributeValues"))
    except (DynamoError, AttributeError, TypeError):
        return None


def _paths(body: dict, member: str, parse: Callable[[str, expressions.Resolver], Any]) -> tuple:
    """The paths of the body's expression in `member`, as `parse` finds them."""
    text = body.get(member)
    names = resolver(body) if type(text) is str else None
    if type(text) is not str or names is None:
        return ()
    try:
        return parse(text, names).paths
    except (DynamoError, TypeError):
        return ()


def projected(body: dict) -> tuple:
    """The paths of a ProjectionExpression (or the names of AttributesToGet)."""
    legacy = body.get("AttributesToGet")
    if type(legacy) is list:
        return tuple(legacy)
    return _paths(body, "ProjectionExpression", expressions.projection)


def updated(body: dict) -> tuple:
    """The paths an UpdateExpression (or AttributeUpdates) writes."""
    legacy = body.get("AttributeUpdates")
    if type(legacy) is dict:
        return tuple(legacy)
    return _paths(body, "UpdateExpression", expressions.update)


def queried_keys(body: dict, table: Table | None) -> Values | None:
    """The partition key value a Query's key condition names."""
    if table is None:
        return None
    name = hash_key_of(table, body.get("IndexName"))
    legacy = body.get("KeyConditions")
    if type(legacy) is dict:
        condition = legacy.get(name)
        if type(condition) is not dict:
            return []
        listed = condition.get("AttributeValueList")
        if type(listed) is list and len(listed) == 1 and condition.get("ComparisonOperator") == "EQ":
            text = _text(listed[0])
            return [] if text is None else [text]
        return []
    text = body.get("KeyConditionExpression")
    names = resolver(body) if type(text) is str else None
    if type(text) is not str or names is None:
        return []
    try:
        node = expressions.key_condition(text, names)
    except (DynamoError, TypeError):
        return []
    return equal_to(node, name, body.get("ExpressionAttributeValues"))


def equal_to(node: object, name: str, values: Any) -> Values:
    """The values an AND of conditions sets `name` equal to."""
    found: Values = []
    pending = [node]
    while pending:
        node = pending.pop()
        if type(node) is And:
            pending += (node.left, node.right)
        elif type(node) is Compare and node.op == "=":
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if type(a) is Path and a.elements == (name,):
                    if type(b) is Const:
                        text = _text(b.value)
                    elif type(b) is Value and type(values) is dict:
                        text = _text(values.get(b.placeholder))
                    else:
                        text = None
                    if text is not None:
                        found.append(text)
    return found


def given(body: dict, *members: str) -> dict[str, Values]:
    """dynamodb:<member> for each request member present (ReturnValues, Select, ...)."""
    return {"dynamodb:" + member.lower(): [body[member]] for member in members
            if type(body.get(member)) is str}


def statement_of(body: Any) -> object | None:
    """The PartiQL statement of an ExecuteStatement body (or a batch's statement)."""
    if type(body) is not dict or type(body.get("Statement")) is not str:
        return None
    parameters = body.get("Parameters")
    try:
        return partiql.statement(body["Statement"], parameters if type(parameters) is list else None)
    except (DynamoError, TypeError, ValueError, AttributeError, IndexError):
        return None


PARTIQL_ACTIONS = {partiql.Select: "PartiQLSelect", partiql.Insert: "PartiQLInsert",
                   partiql.Update: "PartiQLUpdate", partiql.Delete: "PartiQLDelete",
                   partiql.Exists: "PartiQLSelect"}
