"""DynamoDB's rules on vector indexes: CreateTable's VectorIndexes and UpdateTable's
VectorIndexUpdates, and their catalog entries (core/vectors/definitions.py).

Messages the developer guide quotes are marked "guide"; the others are okura's wording
in DynamoDB's style (docs/decisions.md, Vector indexes).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from okura import errors
from okura.core.catalog import ACTIVE, CREATING, Table
from okura.core.spaces import vector_log_of
from okura.core.vectors import backfill
from okura.core.vectors.definitions import HASH, MEMBER
from okura.operations.shared import index_rules
from okura.operations.shared.table_rules import PAY_PER_REQUEST

if TYPE_CHECKING:
    from okura.core.database import Database

MAX_DIMENSIONS = 4096  # as many as a SearchVector holds
MAX_VECTOR_INDEXES = 20  # per table, as global secondary indexes (unverified)
MAX_PROJECTED = 20  # NonKeyAttributes + the vector attribute + INLINE_FILTER elements
_INVALID = "One or more parameter values were invalid: "


def on_demand_only() -> errors.DynamoError:
    return errors.validation(
        _INVALID + "Vector indexes are supported only on tables with BillingMode "
        "PAY_PER_REQUEST")


def search_names(indexes: list[dict]) -> list[str]:
    """The attributes the indexes' search schemas name: AttributeDefinitions they use."""
    return [element["AttributeName"] for index in indexes
            for element in index.get("SearchSchema", ())]


def check_defined(indexes: list[dict], types: dict[str, str]) -> None:
    if any(name not in types for name in search_names(indexes)):
        raise errors.validation("One element in SearchSchema is not defined in attribute "
                                "definitions")  # guide


def check(indexes: list[dict], types: dict[str, str], key_names: list[str], mode: str,
          others: list[dict], existing: list[dict]) -> None:
    """Each new vector index's rules, against the table's attribute types, its key
    attributes, billing mode, secondary indexes (`others`) and vector indexes."""
    if mode != PAY_PER_REQUEST:
        raise on_demand_only()
    if len(existing) + len(indexes) > MAX_VECTOR_INDEXES:
        raise errors.limit_exceeded(
            f"VectorIndex count exceeds the per-table limit of {MAX_VECTOR_INDEXES}")
    taken = {index["IndexName"] for index in others + existing}
    dims = {index["VectorAttribute"]["AttributeName"]: index["Dimensions"] for index in existing}
    for index in indexes:
        name = index["IndexName"]
        if name in taken:
            raise errors.validation(_INVALID + f"Duplicate index name: {name}")
        taken.add(name)
        schema = index.get("SearchSchema") or []
        check_defined([index], types)
        names = [element["AttributeName"] for element in schema]
        if len(set(names)) != len(names):
            raise errors.validation(_INVALID + "Duplicate attribute in SearchSchema")
        if sum(element["SearchSchemaElementType"] == HASH for element in schema) > 1:
            raise errors.validation(_INVALID + "SearchSchema can have at most one HASH element")
        attribute = index["VectorAttribute"]["AttributeName"]
        if attribute in types or attribute in key_names:
            raise errors.validation(
                _INVALID + f"Vector attribute {attribute} cannot be a key or a SearchSchema "
                "attribute")
        size = index["Dimensions"]
        if size > MAX_DIMENSIONS:
            raise errors.validation(
                _INVALID + f"Dimensions must be between 1 and {MAX_DIMENSIONS}, but was {size}")
        if dims.setdefault(attribute, size) != size:
            raise errors.validation(
                _INVALID + f"Vector indexes on attribute {attribute} must have the same "
                f"number of dimensions: {dims[attribute]} and {size}")
        filters = sum(element["SearchSchemaElementType"] != HASH for element in schema)
        projected = index_rules.check_projection(index["Projection"]) + 1 + filters
        if projected > MAX_PROJECTED:
            raise errors.limit_exceeded(
                _INVALID + "Number of projected attributes in vector index exceeds limit of "
                f"{MAX_PROJECTED}, number of projected attributes:{projected}")


def definition(index: dict) -> dict:
    """A VectorIndex (the request's form) of a description or request."""
    return {name: index[name] for name in ("IndexName", "VectorAttribute", "SearchSchema",
                                           "Projection", "Dimensions", "DistanceFunction")
            if name in index}


def entry(index: dict, status: str, backfilling: bool) -> dict:
    """The index's VectorIndexDescription as the catalog keeps it."""
    out = definition(index)
    out["IndexStatus"] = status
    out["Backfilling"] = backfilling
    return out


def declared(body: dict, types: dict[str, str], key_names: list[str], mode: str,
             others: list[dict]) -> list[dict]:
    """CreateTable's vector indexes, checked, as catalog entries (an empty table has
    nothing to backfill)."""
    indexes = body.get(MEMBER)
    if not indexes:
        return []
    check(indexes, types, key_names, mode, others, [])
    return [entry(index, ACTIVE, False) for index in indexes]


def _action(update: dict) -> tuple[str, dict]:
    given = [(kind, action) for kind, action in update.items()
             if kind in ("Create", "Delete") and action is not None]
    if len(given) != 1:
        raise errors.validation(
            _INVALID + "One of VectorIndexUpdate.Create, VectorIndexUpdate.Delete must be "
            "specified, and only one")
    return given[0]


async def change(db: Database, table: Table, doc: dict, body: dict) -> list[int]:
    """Apply UpdateTable's VectorIndexUpdates to `doc` (being edited); the row space ids
    of the indexes created, whose backfill `start` begins once `doc` is saved."""
    updates = body["VectorIndexUpdates"]
    if len(updates) > 1:
        raise errors.validation(
            _INVALID + "Only one vector index can be created or deleted per UpdateTable")
    kind, action = _action(updates[0])
    existing = list(doc.get(MEMBER, ()))
    name = action["IndexName"]
    if kind == "Delete":
        if all(index["IndexName"] != name for index in existing):
            raise errors.resource_not_found(
                f"Requested resource not found: Index: {name} not found")
        remaining = [index for index in existing if index["IndexName"] != name]
        if remaining:
            doc[MEMBER] = remaining
        else:
            del doc[MEMBER]
        ids = dict(doc["IndexIds"])
        index_id = ids.pop(name)
        async with db.engine.transaction() as unit:
            await unit.drop_rows(index_id)
            await unit.drop_rows(vector_log_of(index_id))
        doc["IndexIds"] = ids
        return []
    definitions = {d["AttributeName"]: d for d in doc["AttributeDefinitions"]}
    for definition in body.get("AttributeDefinitions") or ():
        definitions.setdefault(definition["AttributeName"], definition)
    types = {name: d["AttributeType"] for name, d in definitions.items()}
    mode = doc.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")
    others = doc.get("GlobalSecondaryIndexes", []) + doc.get("LocalSecondaryIndexes", [])
    check([action], types, [k["AttributeName"] for k in doc["KeySchema"]], mode, others,
          existing)
    doc["AttributeDefinitions"] = list(definitions.values())
    index_id = await db.catalog.new_id()
    doc["IndexIds"] = dict(doc.get("IndexIds", {}), **{name: index_id})
    doc[MEMBER] = existing + [entry(action, CREATING, True)]
    return [index_id]


async def start(db: Database, table: Table, created: list[int]) -> None:
    for index_id in created:
        await backfill.start(db, table, index_id)
