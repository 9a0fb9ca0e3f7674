"""CreateTable: validate the whole table definition, record it in the catalog."""
from __future__ import annotations

import uuid

from okura import errors
from okura.core import table_lookup
from okura.core.catalog import CREATING
from okura.core.context import Context
from okura.core.streams.state import follow_table
from okura.operations.shared import index_rules, table_rules, table_settings, vector_rules
from okura.operations.shared.table_description import describe
from okura.operations.shared.table_rules import PAY_PER_REQUEST, PROVISIONED


def _require_schema(body: dict) -> None:
    """KeySchema and AttributeDefinitions left the model's required list with global
    tables' GlobalTableSourceArn, but a new table still needs both."""
    missing = [path for path, member in (("keySchema", "KeySchema"),
                                         ("attributeDefinitions", "AttributeDefinitions"))
               if body.get(member) is None]
    if missing:
        count = len(missing)
        raise errors.validation(
            f"{count} validation error{'' if count == 1 else 's'} detected: " + "; ".join(
                f"Value null at '{path}' failed to satisfy constraint: Member must not be null"
                for path in missing))  # unverified


def _billing(body: dict) -> tuple[str, dict | None]:
    """The table's billing mode and provisioned throughput, as DynamoDB reconciles
    BillingMode with ProvisionedThroughput."""
    mode = body.get("BillingMode")
    throughput = body.get("ProvisionedThroughput")
    if mode == PAY_PER_REQUEST:
        if throughput is not None:
            raise table_rules.on_demand_with_throughput()
        return mode, None
    if throughput is None:
        if mode == PROVISIONED:
            raise table_rules.provisioned_without_throughput()
        raise errors.validation("No provisioned throughput specified for the table")
    table_rules.check_capacity(throughput, "table")
    return PROVISIONED, throughput


def table_document(ctx: Context, body: dict) -> dict:
    """The catalog document of the table `body` defines, after every rule."""
    schema = body["KeySchema"]
    table_rules.check_key_schema(schema, distinct=False)
    types = table_rules.attribute_types(body["AttributeDefinitions"])
    table_keys = [element["AttributeName"] for element in schema]
    indexes = index_rules.declared(body, schema)
    vectors = body.get(vector_rules.MEMBER) or []
    vector_rules.check_defined(vectors, types)
    table_rules.check_definitions(types, table_keys,
                                  indexes.key_names() + vector_rules.search_names(vectors))
    table_rules.check_distinct(schema)
    mode, throughput = _billing(body)
    indexes.check_throughput(mode, body.get("BillingMode") is not None)
    db = ctx.db
    now = round(db.clock.now(), 3)
    doc = {
        "AttributeDefinitions": body["AttributeDefinitions"],
        "TableName": table_lookup.table_name(ctx, body["TableName"]),
        "KeySchema": schema,
        "TableStatus": CREATING,
        "CreationDateTime": now,
        "ProvisionedThroughput": table_rules.provisioned_summary(throughput),
        "TableId": str(uuid.uuid4()),
    }
    doc["WarmThroughput"] = table_settings.warm(None, body.get("WarmThroughput"), throughput)
    if body.get("OnDemandThroughput") is not None:
        doc["OnDemandThroughput"] = table_settings.on_demand(
            body["OnDemandThroughput"], mode == PAY_PER_REQUEST, "table")
    if body.get("BillingMode") is not None:
        doc["BillingModeSummary"] = {"BillingMode": mode}
        if mode == PAY_PER_REQUEST:
            doc["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"] = now
    doc.update(indexes.documents())
    vector_entries = vector_rules.declared(body, types, table_keys, mode, indexes.all())
    if vector_entries:
        doc[vector_rules.MEMBER] = vector_entries
    stream = body.get("StreamSpecification")
    if stream is not None:
        table_settings.check_stream(stream, creating=True)
        doc.update(table_settings.stream(stream, now))
    doc.update(table_settings.sse(body.get("SSESpecification"), ctx.region, db.account))
    if "TableClass" in body:
        doc["TableClassSummary"] = {"TableClass": body["TableClass"]}
    doc["DeletionProtectionEnabled"] = bool(body.get("DeletionProtectionEnabled", False))
    tags = body.get("Tags")
    if tags is not None:
        doc["Tags"] = table_settings.merged_tags({}, tags)
    doc["StatusUntil"] = db.status_until(now)
    return doc


async def handle(ctx: Context, body: dict) -> dict:
    if body.get("TableName") is None:  # before the schema's members: unverified
        raise errors.validation(
            "The parameter 'TableName' is required but was not present in the request")
    _require_schema(body)
    doc = table_document(ctx, body)
    db = ctx.db
    table = await db.catalog.create(ctx.region, doc)
    if table is None:
        raise errors.resource_in_use(f"Table already exists: {doc['TableName']}")
    await follow_table(db, ctx.region, table.name)
    # The reply shows the table as DynamoDB answers it: still being created.
    description = await describe(db, table, counts=False, status=CREATING)
    for index in description.get("GlobalSecondaryIndexes", ()):
        index["IndexStatus"] = index["WarmThroughput"]["Status"] = CREATING
    for index in description.get(vector_rules.MEMBER, ()):
        index["IndexStatus"] = CREATING
    return {"TableDescription": description}
