"""Running PartiQL statements through the item write path and the Query/Scan reads.

A WHERE clause is split into its top-level AND terms: equalities on key attributes
name an item (or, for the partition key alone, or an IN list, partitions to
query); everything else stays a condition (writes) or a filter (reads), evaluated
by the expressions evaluator.
"""
from __future__ import annotations

import base64
from functools import cmp_to_key

import orjson

from okura import errors, expressions, partiql
from okura.core import items, reads, table_lookup
from okura.core.catalog import Table
from okura.core.context import Context
from okura.expressions.ast import And, Call, Compare, Const, In, Or, Path
from okura.expressions.evaluate import get as get_path
from okura.operations.shared import write_actions
from okura.operations.shared.paged_reads import read_source
from okura.operations.shared.single_item import returned_values
from okura.partiql import messages
from okura.values import key_rules, ordering, sizes, validation

_SETS = frozenset(("SS", "NS", "BS"))
_NEXT_TOKEN = b"partiql-next-token"  # the purpose its NextToken is sealed for
MAX_KEYS_IN = 50  # partition key values a read may name (developer guide, "PartiQL operators")
Write = partiql.Insert | partiql.Update | partiql.Delete | partiql.Exists
Statement = partiql.Select | Write


def prepare(body: dict) -> Statement:
    parameters = body.get("Parameters")
    for value in parameters or ():
        validation.check_value(value)
    return partiql.statement(body["Statement"], parameters)


def _terms(where: object) -> list[object]:
    if where is None:
        return []
    if type(where) is And:
        return _terms(where.left) + _terms(where.right)
    return [where]


def _equality(term: object, names: tuple[str, ...]) -> tuple[str, dict] | None:
    if type(term) is not Compare or term.op != "=":
        return None
    for a, b in ((term.left, term.right), (term.right, term.left)):
        if type(a) is Path and len(a.elements) == 1 and a.elements[0] in names and \
                type(b) is Const:
            return a.elements[0], b.value
    return None


def _join(terms: list[object]) -> object:
    node = None
    for term in terms:
        node = term if node is None else And(node, term)
    return node


def split_key(table: Table, where: object) -> tuple[dict | None, object]:
    """(the key WHERE's equalities name, the rest of WHERE); key None unless every key
    attribute has its equality."""
    key, rest = {}, []
    for term in _terms(where):
        found = _equality(term, table.key_names)
        if found is not None and found[0] not in key:
            key[found[0]] = found[1]
        else:
            rest.append(term)
    if len(key) != len(table.key_names):
        return None, where
    key_rules.check_key(key, table.schema)
    return key, _join(rest)


async def write_change(ctx: Context, stmt: Write, body: dict,
                       changed: list[expressions.Path] | None = None) -> write_actions.Action:
    """The change an INSERT, UPDATE, DELETE or EXISTS statement makes; an UPDATE adds
    the paths it writes to `changed` (for RETURNING MODIFIED)."""
    if type(stmt) is partiql.Insert:
        item = stmt.item.value.get("M") if type(stmt.item) is Const else None
        table = await table_lookup.serving_table(ctx, stmt.table)
        validation.check_item(item)
        assert item is not None  # check_item refuses anything but a map
        key_rules.check_item_keys(item, table.schema)
        sizes.check_item_size(item)
        return write_actions.Action(write_actions.insert_change(table, item))
    select = stmt.select if type(stmt) is partiql.Exists else stmt
    table = await table_lookup.serving_table(ctx, select.table)
    key, condition = split_key(table, select.where)
    if key is None:
        raise messages.key_equality()
    if type(stmt) is partiql.Update:
        for name, actions in (("set_add", stmt.adds), ("set_delete", stmt.deletes)):
            for _, value in actions:
                if type(value) is not Const or next(iter(value.value)) not in _SETS:
                    raise messages.set_operand(name)
        update = expressions.UpdateExpression(sets=stmt.sets, removes=stmt.removes, adds=stmt.adds,
                                    deletes=stmt.deletes)
        write_actions.check_key_untouched(table, update)
        return write_actions.Action(write_actions.update_change(
            table, key, update, condition, body, must_exist=True, changed=changed))
    if type(stmt) is partiql.Delete:
        return write_actions.Action(
            write_actions.delete_change(table, key, condition, body, absent_ok=True))
    present = Call("attribute_exists", (Path((table.hash_key,)),))
    condition = present if condition is None else And(present, condition)
    return write_actions.Action(write_actions.check_change(table, key, condition, body), check=True)


async def write_alone(ctx: Context, stmt: Write, body: dict
                      ) -> tuple[items.Change, dict | None, dict | None, dict | None]:
    """Run an INSERT, UPDATE or DELETE on its own: its change, the item before and
    after, and what its RETURNING asks for (None for nothing)."""
    if type(stmt) is partiql.Exists:
        raise messages.malformed("EXISTS is only allowed in transactions")  # unverified
    changed: list[expressions.Path] = []
    change = (await write_change(ctx, stmt, body, changed)).change
    old, new = await items.write(ctx, change)
    returning = None if type(stmt) is partiql.Insert else stmt.returning
    # an empty projection returns no item, as UpdateItem returns no Attributes
    return change, old, new, returned_values(returning, old, new, changed) or None


async def source_of(ctx: Context, select: partiql.Select, consistent: bool = False) -> reads.Source:
    """What a SELECT reads, under Query's rules on indexes."""
    return read_source(await table_lookup.serving_table(ctx, select.table), select.index, consistent)


def _partitions(source: reads.Source, where: object) -> list[dict] | None:
    """Partition key values WHERE confines a read to (an equality, an IN, or an OR of
    those on a single partition key attribute), or None for a scan."""
    if len(source.hash_keys) != 1:
        return None
    name, type_ = source.hash_keys[0]
    for term in _terms(where):
        values = _key_values(term, name)
        if values is None:
            continue
        if len(values) > MAX_KEYS_IN:
            raise messages.too_many_in(MAX_KEYS_IN)
        # a value of another type than the key's matches nothing
        unique = {orjson.dumps(v): v for v in values if type_ in v}
        return list(unique.values())
    return None


def _key_values(term: object, name: str) -> list[dict] | None:
    """The values a term allows attribute `name`, when it allows no others."""
    found = _equality(term, (name,))
    if found is not None:
        return [found[1]]
    if type(term) is In and term.operand == Path((name,)) and all(
            type(choice) is Const for choice in term.choices):
        return [choice.value for choice in term.choices]
    if type(term) is Or:
        left, right = _key_values(term.left, name), _key_values(term.right, name)
        if left is not None and right is not None:
            return left + right
    return None


def _ordered(source: reads.Source, order: tuple, partitions: list[dict] | None) -> bool:
    """Apply ORDER BY: sorts `partitions` (in place) when it names the partition key;
    answers whether each partition reads forward (its sort key ascending)."""
    hash_key = source.hash_keys[0][0]
    range_key = source.range_keys[0][0] if source.range_keys else None
    forward = True
    for path, descending in order:
        name = path.elements[0] if len(path.elements) == 1 else None
        if name is None or name not in (hash_key, range_key):
            raise messages.order_key(expressions.unparse(path))
        if partitions is None:
            raise messages.order_without_partition()
        if name == hash_key:
            partitions.sort(key=cmp_to_key(ordering.compare), reverse=descending)
        else:
            forward = not descending
    return forward


class SelectPage:
    """A SELECT's page: its items, and where it stopped early: NextToken, and the key of
    the last item read (LastEvaluatedKey)."""
    __slots__ = ("items", "next_token", "last_key")

    def __init__(self, found: list, next_token: str | None = None,
                 last_key: dict | None = None):
        self.items = found
        self.next_token = next_token
        self.last_key = last_key


async def select(ctx: Context, stmt: partiql.Select, limit: int | None, next_token: str | None,
                 consistent: bool = False) -> SelectPage:
    """One page of a SELECT: a key read, a Query of partitions or a Scan."""
    source = await source_of(ctx, stmt, consistent)
    table = source.table
    partitions = _partitions(source, stmt.where)
    forward = _ordered(source, stmt.order, partitions)
    if stmt.index is None:
        key, _ = split_key(table, stmt.where)
        if key is not None:
            raw = await items.fetch(ctx, table, key, consistent)
            return SelectPage(_filtered(ctx, stmt, [] if raw is None else [raw]))
    walk = reads.Walk(None if partitions is None
                      else [source.partition([value]) for value in partitions], forward=forward)
    # what a token binds: the table, index and partitions walked (its place is among them)
    read = (table.id, stmt.index, None if partitions is None else len(partitions))
    page = await reads.read(ctx, source, walk, limit, consistent, _cursor(ctx, read, next_token))
    found = _filtered(ctx, stmt, page.docs)
    ctx.metrics.paged("Scan" if partitions is None else "Query", table,
                      "" if source.index is None else source.index.name, consistent,
                      len(page.docs), len(found), None if stmt.projection is None
                      else frozenset(path.elements[0] for path in stmt.projection))
    # DynamoDB pages by items read: resume after the last one, filtered out or not
    if page.position is None:
        return SelectPage(found)
    assert page.last is not None  # a page that stopped early says where
    return SelectPage(found, _token(ctx, read, page.position), source.last_key(orjson.loads(page.last)))


async def key_target(ctx: Context, stmt: partiql.Select) -> tuple[Table, dict]:
    """The table and whole key a SELECT names where a read must name one item of a table
    (BatchExecuteStatement, ExecuteTransaction)."""
    table = (await source_of(ctx, stmt)).table
    key, _ = split_key(table, stmt.where)
    if key is None or stmt.index is not None:
        raise messages.key_equality()
    return table, key


def selected(ctx: Context, stmt: partiql.Select, raw: bytes | None) -> dict | None:
    """The item a key read returns: None if absent or WHERE is false, else projected."""
    found = _filtered(ctx, stmt, [] if raw is None else [raw])
    return found[0] if found else None


def _filtered(ctx: Context, stmt: partiql.Select, docs: list[bytes]) -> list[dict]:
    """The items WHERE keeps of those read, projected (and counted as returned)."""
    where, projection = stmt.where, stmt.projection
    found = [orjson.loads(doc) for doc in docs]
    out = [item for item in found if where is None or expressions.evaluate(where, item)]
    ctx.returned += len(out)
    if projection is None:
        return out
    # a nested path ending in a name gives its value under that name (recorded from
    # DynamoDB for SELECT mymap.nested); other paths project as ProjectionExpression does
    nested = [path for path in projection
              if len(path.elements) > 1 and type(path.elements[-1]) is str]
    shape = expressions.Projection([path for path in projection if path not in nested])
    return [_selected_paths(shape, nested, item) for item in out]


def _selected_paths(shape: expressions.Projection, nested: list, item: dict) -> dict:
    got = expressions.project(shape, item)
    for path in nested:
        value = get_path(item, path.elements)
        if value is not None:
            got[path.elements[-1]] = value
    return got


def _token(ctx: Context, read: tuple, position: tuple[int, bytes, bytes]) -> str:
    """A sealed NextToken: the read it continues and the position to resume after."""
    place, hk, rk = position
    return ctx.db.seal.token(_NEXT_TOKEN, [*read, place, base64.b64encode(hk).decode(),
                                           base64.b64encode(rk).decode()])


def _cursor(ctx: Context, read: tuple, token: str | None) -> tuple[int, bytes, bytes] | None:
    """The position of a NextToken `_token` made for the same read."""
    if token is None:
        return None
    sealed = ctx.db.seal.opened(_NEXT_TOKEN, token)
    if sealed is None or tuple(sealed[:len(read)]) != read:  # not a token of this read
        raise errors.validation("Invalid NextToken")  # unverified
    place, hk, rk = sealed[len(read):]
    return place, base64.b64decode(hk), base64.b64decode(rk)
