"""UpdateTable: billing mode, provisioned throughput, stream, encryption, table
class, deletion protection, global secondary indexes and replicas (global tables:
operations/shared/replica_updates.py) of an existing table."""
from __future__ import annotations

from okura import errors
from okura.core import table_lookup
from okura.core.catalog import ACTIVE, UPDATING, Table
from okura.core.context import Context
from okura.core.streams.state import follow_table
from okura.core.replication import group
from okura.operations.shared import (index_updates, replica_updates, table_rules,
                                     table_settings, vector_rules)
from okura.operations.shared.table_description import describe
from okura.operations.shared.table_rules import PAY_PER_REQUEST, PROVISIONED

_CHANGES = ("ProvisionedThroughput", "BillingMode", "StreamSpecification",
            "GlobalSecondaryIndexUpdates", "SSESpecification", "ReplicaUpdates", "TableClass",
            "DeletionProtectionEnabled", "OnDemandThroughput", "WarmThroughput",
            "VectorIndexUpdates")


def _billing_mode(doc: dict) -> str:
    return doc.get("BillingModeSummary", {}).get("BillingMode", PROVISIONED)


def _on_demand(summary: dict) -> dict:
    """A ProvisionedThroughput description once billing is per request: zero units."""
    return dict(summary, ReadCapacityUnits=0, WriteCapacityUnits=0)


def _throughput(doc: dict, body: dict, now: float) -> None:
    """Apply BillingMode and ProvisionedThroughput to `doc` (a copy being edited)."""
    current_mode = _billing_mode(doc)
    mode = body.get("BillingMode", current_mode)
    requested = body.get("ProvisionedThroughput")
    if mode == PAY_PER_REQUEST:
        if requested is not None:
            raise table_rules.on_demand_with_throughput()
        if current_mode != PAY_PER_REQUEST:
            doc["BillingModeSummary"] = {"BillingMode": PAY_PER_REQUEST,
                                         "LastUpdateToPayPerRequestDateTime": now}
            doc["ProvisionedThroughput"] = _on_demand(doc["ProvisionedThroughput"])
            if "GlobalSecondaryIndexes" in doc:
                doc["GlobalSecondaryIndexes"] = [
                    dict(index, ProvisionedThroughput=_on_demand(index["ProvisionedThroughput"]))
                    for index in doc["GlobalSecondaryIndexes"]]
        return
    if requested is None:
        if current_mode == PAY_PER_REQUEST:
            raise table_rules.provisioned_without_throughput()
        return
    table_rules.check_capacity(requested, "table")
    if current_mode == PAY_PER_REQUEST:
        _check_index_throughput(doc, body)
        # on-demand maximums mean nothing to provisioned capacity
        doc.pop("OnDemandThroughput", None)
        if "GlobalSecondaryIndexes" in doc:
            doc["GlobalSecondaryIndexes"] = [
                {name: value for name, value in index.items() if name != "OnDemandThroughput"}
                for index in doc["GlobalSecondaryIndexes"]]
    current = doc["ProvisionedThroughput"]
    read, write = requested["ReadCapacityUnits"], requested["WriteCapacityUnits"]
    old_read, old_write = current["ReadCapacityUnits"], current["WriteCapacityUnits"]
    if current_mode == PROVISIONED and (read, write) == (old_read, old_write):
        raise errors.validation(
            "The provisioned throughput for the table will not change. The requested value "
            f"equals the current value. Current ReadCapacityUnits provisioned for the table: "
            f"{old_read}. Requested ReadCapacityUnits: {read}. Current WriteCapacityUnits "
            f"provisioned for the table: {old_write}. Requested WriteCapacityUnits: {write}. "
            "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request "
            "higher limits.")
    summary = dict(current, ReadCapacityUnits=read, WriteCapacityUnits=write)
    if current_mode == PROVISIONED:
        if read > old_read or write > old_write:
            summary["LastIncreaseDateTime"] = now
        if read < old_read or write < old_write:
            summary["LastDecreaseDateTime"] = now
            summary["NumberOfDecreasesToday"] = current["NumberOfDecreasesToday"] + 1
    doc["ProvisionedThroughput"] = summary
    if current_mode != PROVISIONED or "BillingMode" in body:
        doc["BillingModeSummary"] = {"BillingMode": PROVISIONED}


def _check_index_throughput(doc: dict, body: dict) -> None:
    """Leaving per-request billing, each global index needs its capacity in the same
    request (an Update of GlobalSecondaryIndexUpdates), as the table does."""
    given = {update["Update"]["IndexName"] for update in body.get("GlobalSecondaryIndexUpdates") or ()
             if update.get("Update") and update["Update"].get("ProvisionedThroughput")}
    missing = [index["IndexName"] for index in doc.get("GlobalSecondaryIndexes", ())
               if index["IndexName"] not in given]
    if missing:
        raise errors.validation("One or more parameter values were invalid: ProvisionedThroughput "
                                f"must be specified for index: {','.join(missing)}")


def _stream(doc: dict, spec: dict, now: float) -> None:
    table_settings.check_stream(spec, creating=False)
    enabled = doc.get("StreamSpecification", {}).get("StreamEnabled", False)
    if spec["StreamEnabled"]:
        if enabled:
            raise errors.validation(f"Table already has an enabled stream: TableName: {doc['TableName']}")
        doc.update(table_settings.stream(spec, now))
    else:
        if not enabled:
            raise errors.validation(f"Table has no stream to disable: TableName: {doc['TableName']}")
        # The old stream stays readable (LatestStreamLabel) after it is disabled.
        del doc["StreamSpecification"]


def updated_document(table: Table, body: dict, region: str, account: str, now: float) -> dict:
    """The table's catalog document after the changes `body` asks for."""
    doc = dict(table.doc)
    if "BillingMode" in body or "ProvisionedThroughput" in body:
        _throughput(doc, body, now)
    if body.get("WarmThroughput") is not None or body.get("ProvisionedThroughput") is not None:
        doc["WarmThroughput"] = table_settings.warm(
            doc.get("WarmThroughput"), body.get("WarmThroughput"), body.get("ProvisionedThroughput"))
    if body.get("OnDemandThroughput") is not None:
        doc["OnDemandThroughput"] = table_settings.on_demand(
            body["OnDemandThroughput"], _billing_mode(doc) == PAY_PER_REQUEST, "table",
            doc.get("OnDemandThroughput"))
    spec = body.get("StreamSpecification")
    if spec is not None:
        _stream(doc, spec, now)
    sse = body.get("SSESpecification")
    if sse is not None:
        doc.pop("SSEDescription", None)
        doc.update(table_settings.sse(sse, region, account))
    table_class = body.get("TableClass")
    if table_class is not None:
        doc["TableClassSummary"] = {"TableClass": table_class, "LastUpdateDateTime": now}
    if "DeletionProtectionEnabled" in body:
        doc["DeletionProtectionEnabled"] = body["DeletionProtectionEnabled"]
    return doc


async def handle(ctx: Context, body: dict) -> dict:
    # recorded: an empty GlobalSecondaryIndexUpdates counts as absent, and beside a change
    # it is refused
    if not any(body.get(member) not in (None, []) for member in _CHANGES):
        raise errors.validation(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
            "GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, "
            "MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, "
            "DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is "
            "required")
    if body.get("GlobalSecondaryIndexUpdates") == []:
        raise errors.validation(
            "One or more parameter values were invalid: List of GlobalSecondaryIndexUpdates is empty")
    replica_updates.check_alone(body, _CHANGES)
    db = ctx.db
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    now = db.clock.now()
    status = table.status(now)
    if status != ACTIVE:
        raise table_rules.in_use(table, status)
    now = round(now, 3)
    after = None
    if body.get("ReplicaUpdates"):
        doc, after = await replica_updates.update(ctx, table, body, dict(table.doc), now)
    else:
        if group.others(table):
            await replica_updates.check_global(db, table, body)
        doc = updated_document(table, body, ctx.region, db.account, now)
    if body.get("GlobalSecondaryIndexUpdates"):
        await index_updates.change_indexes(db, table, doc, body, now)
    created: list[int] = []
    if body.get("VectorIndexUpdates"):
        created = await vector_rules.change(db, table, doc, body)
    elif doc.get(vector_rules.MEMBER) and _billing_mode(doc) != PAY_PER_REQUEST:
        raise vector_rules.on_demand_only()
    # Only changes DynamoDB applies in the background pass through UPDATING.
    background = any(member in body for member in _CHANGES if member != "DeletionProtectionEnabled")
    if background:
        doc["TableStatus"] = UPDATING
        doc["StatusUntil"] = db.status_until(now)
    table = await db.catalog.save(table, doc)
    await vector_rules.start(db, table, created)
    if after is not None:
        await after(db, table)
    if "StreamSpecification" in body:
        await follow_table(db, ctx.region, table.name)
    # as DynamoDB answers, whatever the delay
    description = await describe(db, table, status=UPDATING if background else None)
    return {"TableDescription": description}
