"""UpdateTable's GlobalSecondaryIndexUpdates: create a global index (backfilled in
the background, core/index_jobs.py), delete one, or change its throughput."""
from __future__ import annotations

from typing import TYPE_CHECKING

from okura import errors
from okura.core.catalog import DELETING, Table
from okura.operations.shared import index_rules, table_rules, table_settings
from okura.operations.shared.table_rules import PAY_PER_REQUEST, PROVISIONED

if TYPE_CHECKING:
    from okura.core.database import Database

GLOBAL = "GlobalSecondaryIndexes"
_INVALID = "One or more parameter values were invalid: "
_ONE_AT_A_TIME = ("Subscriber limit exceeded: Only 1 online index can be created or deleted "
                  "simultaneously per table")


def _action(update: dict) -> tuple[str, dict]:
    given = [(kind, action) for kind, action in update.items()
             if kind in ("Create", "Update", "Delete") and action is not None]
    if len(given) > 1:
        raise errors.validation(_INVALID + "Only one global secondary index action is allowed "
                                "per GlobalSecondaryIndexUpdate object")  # recorded
    if not given:
        raise errors.validation(  # recorded
            _INVALID + "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate."
            "Create, GlobalSecondaryIndexUpdate.Delete must not be null")
    return given[0]


def _not_found(name: str) -> errors.DynamoError:
    return errors.resource_not_found(f"Requested resource not found: Index: {name} not found")  # unverified


def _definitions(doc: dict, body: dict, action: dict) -> list[dict]:
    """The table's AttributeDefinitions with those the request adds; an attribute
    defined again must keep its type."""
    merged = {d["AttributeName"]: d for d in doc["AttributeDefinitions"]}
    requested = {d["AttributeName"]: d for d in body.get("AttributeDefinitions") or ()}
    for definition in requested.values():
        current = merged.get(definition["AttributeName"])
        if current is not None and current["AttributeType"] != definition["AttributeType"]:
            raise _redefined(doc, definition["AttributeName"], action["KeySchema"],
                             {**merged, **requested})
        merged[definition["AttributeName"]] = definition
    return list(merged.values())


def _redefined(doc: dict, name: str, new_schema: list[dict], new_types: dict) -> errors.DynamoError:
    """Recorded for a hash-only index over a hash-only one; which existing key schema is
    named, and how several elements are joined, unverified."""
    old_types = {d["AttributeName"]: d for d in doc["AttributeDefinitions"]}
    owners = [doc["KeySchema"]] + [index["KeySchema"] for kind in (GLOBAL, "LocalSecondaryIndexes")
                                   for index in doc.get(kind, ())]
    old_schema = next((schema for schema in owners
                       if any(element["AttributeName"] == name for element in schema)),
                      doc["KeySchema"])
    return errors.validation(
        _INVALID + "Attributes cannot be redefined. Please check that your attribute has the "
        "same type as previously defined. Existing schema: "
        f"{_schema(old_schema, old_types)} New schema: {_schema(new_schema, new_types)}")


def _schema(schema: list[dict], types: dict) -> str:
    elements = ", ".join(
        f"SchemaElement: key{{{element['AttributeName']}:"
        f"{types.get(element['AttributeName'], {}).get('AttributeType', '')}:{element['KeyType']}}}"
        for element in schema)
    return f"Schema:[{elements}]"


def _create(doc: dict, body: dict, action: dict, mode: str) -> dict:
    """The new index's catalog entry, after DynamoDB's rules; updates the table's
    AttributeDefinitions in `doc`."""
    name = action["IndexName"]
    existing = doc.get(GLOBAL, []) + doc.get("LocalSecondaryIndexes", [])
    if any(index["IndexName"] == name for index in existing):
        raise errors.validation(_INVALID + f"Index with name {name} already exists")  # unverified
    if len(doc.get(GLOBAL, [])) >= index_rules.MAX_GSI:
        raise errors.limit_exceeded(
            f"GlobalSecondaryIndex count exceeds the per-table limit of {index_rules.MAX_GSI}")  # unverified
    index_rules.check_global_key_schema(action["KeySchema"])
    # The request itself must define the new index's keys, even those the table
    # already defines (UpdateTable's reference; users' reports give the messages).
    if not body.get("AttributeDefinitions"):
        raise errors.validation("No Attribute Schema Defined")
    requested = {d["AttributeName"] for d in body["AttributeDefinitions"]}
    if any(element["AttributeName"] not in requested for element in action["KeySchema"]):
        raise errors.validation("Invalid KeySchema: Some index key attribute have no definition")
    definitions = _definitions(doc, body, action)
    projected = sum(index_rules.check_projection(index["Projection"])
                    for index in existing + [action])
    if projected > index_rules.MAX_PROJECTED:
        raise errors.limit_exceeded(
            _INVALID + "Number of projected attributes in all indexes exceeds limit of "
            f"{index_rules.MAX_PROJECTED}, number of projected attributes:{projected}")  # unverified
    index_rules.Declared([action], None).check_throughput(mode)
    doc["AttributeDefinitions"] = definitions
    return dict(index_rules.global_document(action, "CREATING"), Backfilling=False)


def _update(doc: dict, action: dict, mode: str) -> None:
    """An Update action: the index's provisioned capacity, on-demand maximums or warm
    throughput."""
    name = action["IndexName"]
    throughput = action.get("ProvisionedThroughput")
    if throughput is not None:
        if mode == PAY_PER_REQUEST:
            raise errors.validation(
                _INVALID + "ProvisionedThroughput should not be specified for index: "
                f"{name} when BillingMode is PAY_PER_REQUEST")  # unverified
        table_rules.check_capacity(throughput, "index")
    doc[GLOBAL] = [_updated(index, throughput, action, mode)
                   if index["IndexName"] == name else index for index in doc[GLOBAL]]


def _updated(index: dict, throughput: dict | None, action: dict, mode: str) -> dict:
    index = dict(index)
    if throughput is not None:
        index["ProvisionedThroughput"] = dict(
            index["ProvisionedThroughput"], ReadCapacityUnits=throughput["ReadCapacityUnits"],
            WriteCapacityUnits=throughput["WriteCapacityUnits"])
    if action.get("OnDemandThroughput") is not None:
        index["OnDemandThroughput"] = table_settings.on_demand(
            action["OnDemandThroughput"], mode == PAY_PER_REQUEST, f"index: {index['IndexName']}",
            index.get("OnDemandThroughput"))
    index["WarmThroughput"] = table_settings.warm(
        index.get("WarmThroughput"), action.get("WarmThroughput"), throughput)
    return index


def _cancels(doc: dict, kind: str, action: dict) -> bool:
    """Whether a Delete ends the backfill under way: "You can delete an index that is
    being created during the Backfilling phase" (API reference), but not before it."""
    return kind == "Delete" and any(
        index["IndexName"] == action["IndexName"] and index.get("Backfilling") is True
        and index["IndexStatus"] == "CREATING" for index in doc.get(GLOBAL, ()))


async def change_indexes(db: Database, table: Table, doc: dict, body: dict, now: float) -> None:
    """Apply the request's GlobalSecondaryIndexUpdates to `doc` (the table's document
    being edited), recording the background jobs they start."""
    actions = [_action(update) for update in body["GlobalSecondaryIndexUpdates"]]
    online = [(kind, action) for kind, action in actions if kind != "Update"]
    if len(online) > 1 or (online and doc.get("IndexJobs") and not _cancels(doc, *online[0])):
        raise errors.limit_exceeded(_ONE_AT_A_TIME)
    mode = doc.get("BillingModeSummary", {}).get("BillingMode", PROVISIONED)
    names = {index["IndexName"] for index in doc.get(GLOBAL, ())}
    jobs = dict(doc.get("IndexJobs", {}))
    for kind, action in actions:
        name = action["IndexName"]
        if kind == "Create":
            entry = _create(doc, body, action, mode)
            doc["IndexIds"] = dict(doc.get("IndexIds", {}), **{name: await db.catalog.new_id()})
            doc[GLOBAL] = doc.get(GLOBAL, []) + [entry]
            jobs[name] = {"Action": "Create", "Start": now + db.status_delay, "After": None}
            continue
        if name not in names:
            raise _not_found(name)
        if kind == "Update":
            _update(doc, action, mode)
        else:
            doc[GLOBAL] = [{**{k: v for k, v in index.items() if k != "Backfilling"},
                            "IndexStatus": DELETING} if index["IndexName"] == name
                           else index for index in doc[GLOBAL]]
            jobs[name] = {"Action": "Delete", "Start": now + db.status_delay}  # ends a backfill
    if jobs:
        doc["IndexJobs"] = jobs
