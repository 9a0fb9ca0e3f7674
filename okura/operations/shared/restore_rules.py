"""The table a restore creates: the source's key schema, indexes, billing and
encryption (as the backup kept them, or the source table's current settings for a
point-in-time restore), with the request's overrides, held to CreateTable's rules.
Streams, TTL, tags, point-in-time recovery and deletion protection are not restored
(API reference: they are set up again by hand)."""
from __future__ import annotations

from okura import errors
from okura.core import restores, table_lookup
from okura.core.catalog import CREATING, DELETING
from okura.core.context import Context
from okura.operations.create_table import table_document
from okura.operations.shared import vector_rules
from okura.operations.shared.backup_replies import billing_mode
from okura.operations.shared.table_description import describe
from okura.operations.shared.table_rules import PROVISIONED


def _throughput(owner: dict) -> dict:
    throughput = owner["ProvisionedThroughput"]
    return {"ReadCapacityUnits": throughput["ReadCapacityUnits"],
            "WriteCapacityUnits": throughput["WriteCapacityUnits"]}


def _global(index: dict, provisioned: bool) -> dict:
    """A global index of the source as CreateTable takes it."""
    request = {"IndexName": index["IndexName"], "KeySchema": index["KeySchema"],
               "Projection": index["Projection"]}
    if provisioned:
        request["ProvisionedThroughput"] = _throughput(index)
    elif "OnDemandThroughput" in index:
        request["OnDemandThroughput"] = index["OnDemandThroughput"]
    return request


def _sse(source: dict) -> dict | None:
    described = source.get("SSEDescription")
    if described is None:
        return None
    return {"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": described["KMSMasterKeyArn"]}


async def check_target_free(ctx: Context, name: str) -> None:
    """No table of the target's name: TableAlreadyExistsException, or TableInUseException
    while one is being created or deleted (API reference)."""
    table = await table_lookup.table_or_none(ctx, name)
    if table is None:
        return
    if table.status(ctx.clock.now()) in (CREATING, DELETING):
        raise errors.backup_error("TableInUseException",
                                  f"Table is being created or deleted: {name}")  # unverified
    raise errors.backup_error("TableAlreadyExistsException",
                              f"Table already exists: {name}")  # unverified


def target_document(ctx: Context, source: dict, body: dict, summary: dict) -> dict:
    """The catalog document of the table a restore request creates from the source
    table's document: CREATING until the restore job ends."""
    mode = body.get("BillingModeOverride") or billing_mode(source)
    provisioned = mode == PROVISIONED
    request: dict = {"TableName": body["TargetTableName"], "KeySchema": source["KeySchema"],
                     "BillingMode": mode}
    throughput = body.get("ProvisionedThroughputOverride")
    if throughput is None and provisioned and billing_mode(source) == PROVISIONED:
        throughput = _throughput(source)
    if throughput is not None:
        request["ProvisionedThroughput"] = throughput
    on_demand = body.get("OnDemandThroughputOverride", source.get("OnDemandThroughput"))
    if on_demand is not None and not provisioned:
        request["OnDemandThroughput"] = on_demand
    globals_ = body.get("GlobalSecondaryIndexOverride")
    if globals_ is None:
        globals_ = [_global(index, provisioned and billing_mode(source) == PROVISIONED)
                    for index in source.get("GlobalSecondaryIndexes", ())]
    locals_ = body.get("LocalSecondaryIndexOverride")
    if locals_ is None:
        locals_ = [{"IndexName": index["IndexName"], "KeySchema": index["KeySchema"],
                    "Projection": index["Projection"]}
                   for index in source.get("LocalSecondaryIndexes", ())]
    if globals_:
        request["GlobalSecondaryIndexes"] = globals_
    if locals_:
        request["LocalSecondaryIndexes"] = locals_
    vectors = body.get("VectorIndexOverride")
    if vectors is None:
        vectors = [vector_rules.definition(index) for index in source.get(vector_rules.MEMBER, ())]
    if vectors:
        request[vector_rules.MEMBER] = vectors
    used = {element["AttributeName"] for owner in (request, *globals_, *locals_)
            for element in owner["KeySchema"]}
    used.update(vector_rules.search_names(vectors))
    request["AttributeDefinitions"] = [definition for definition in source["AttributeDefinitions"]
                                       if definition["AttributeName"] in used]
    sse = body.get("SSESpecificationOverride") or _sse(source)
    if sse is not None:
        request["SSESpecification"] = sse
    if "TableClassSummary" in source:
        request["TableClass"] = source["TableClassSummary"]["TableClass"]
    doc = table_document(ctx, request)
    doc["StatusUntil"] = restores.UNTIL_DONE
    if "GlobalSecondaryIndexes" in doc:
        doc["GlobalSecondaryIndexes"] = [dict(index, IndexStatus=CREATING)
                                         for index in doc["GlobalSecondaryIndexes"]]
    doc["RestoreSummary"] = dict(summary, RestoreInProgress=True)
    return doc


async def create_target(ctx: Context, doc: dict, source: dict) -> dict:
    """Create the target table and start filling it: the reply's TableDescription."""
    table = await ctx.db.catalog.create(ctx.region, doc)
    if table is None:
        raise errors.backup_error("TableAlreadyExistsException",
                                  f"Table already exists: {doc['TableName']}")  # unverified
    await restores.start(ctx.db, table, source)
    return {"TableDescription": await describe(ctx.db, table, counts=False)}
