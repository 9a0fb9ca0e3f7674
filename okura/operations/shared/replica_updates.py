"""UpdateTable's ReplicaUpdates (global tables version 2019.11.21): its rules in
DynamoDB's order, and its actions: a replica created in another region (its table made
from this one's document, filled by a background job), updated (its overrides) or
deleted; and the Replicas a TableDescription lists.

Every replica's document names the others (core/replication/group.py), so a change of
the group is saved in the document of every member."""
from __future__ import annotations

import uuid

from okura import arns, errors
from okura.core.catalog import ACTIVE, CREATING, DELETING, CatalogChanged, Table
from okura.core.context import Context
from okura.core.database import Database
from okura.core.replication import copy, group
from okura.core.streams.state import follow_table
from okura.operations.shared import table_settings
from okura.operations.shared.table_drop import drop
from okura.operations.shared.table_rules import PAY_PER_REQUEST, PROVISIONED

_INVALID = "One or more parameter values were invalid: "
# what a replica's document does not take from its source: what is regional (tags,
# policies, point-in-time recovery, Kinesis destinations, deletion protection) and
# what it has of its own (its id, its stream's label, its index row spaces)
_REGIONAL = ("TableId", "IndexIds", "IndexJobs", "Tags", "ResourcePolicies", "Snapshots",
             "PointInTime", "KinesisDestinations", "TimeToLive", "TimeToLiveChanged",
             "LatestStreamLabel", "RestoreSummary", "SSEDescription", "StatusUntil",
             "DeletionProtectionEnabled", *group.PRIVATE)
_OVERRIDES = ("ProvisionedThroughputOverride", "OnDemandThroughputOverride",
              "GlobalSecondaryIndexes", "TableClassOverride")
NOT_BUILT = ("okura does not support {} yet (docs/differences.md)")


def check_alone(body: dict, changes: tuple[str, ...]) -> None:
    """ReplicaUpdates must be the only change a request asks for (checked before the
    table's state)."""
    if body.get("ReplicaUpdates") and any(
            body.get(member) not in (None, []) for member in changes
            if member != "ReplicaUpdates"):
        raise errors.validation(
            _INVALID + "Replica modification must be the only operation in the request")


def _actions(body: dict, home: str) -> list[tuple[str, dict]]:
    """The (action, its member) pairs of ReplicaUpdates, after the rules on their
    number and kinds; a Create repeated for one region counts once."""
    consistency = body.get("MultiRegionConsistency")
    if body.get("GlobalTableWitnessUpdates"):
        if consistency != "STRONG":
            raise errors.validation("MultiRegionConsistency must be set as STRONG when "
                                    "GlobalTableWitnessUpdates parameter is present.")
    if consistency == "STRONG":
        raise errors.validation(NOT_BUILT.format("multi-Region strong consistency (STRONG)"))
    actions: list[tuple[str, dict]] = []
    for update in body["ReplicaUpdates"]:
        given = [(name, value) for name, value in update.items() if value is not None]
        if len(given) > 1:
            raise errors.validation(
                "Update table operation with more than one type of replica actions not allowed.")
        if not given or (given[0][0] == "Update" and not any(
                given[0][1].get(member) is not None for member in _OVERRIDES)):
            raise errors.validation(
                "There are no actions specified in the Replica Update Action of the request.")
        if given[0] not in actions:
            actions.append(given[0])
    kinds = {name for name, _ in actions}
    if "Disassociate" in kinds:
        raise errors.validation(NOT_BUILT.format("the Disassociate replica action"))
    if consistency is not None and kinds != {"Create"}:
        raise errors.validation(
            "Only Replica Create actions are supported when MultiRegionConsistency parameter "
            "is provided.")
    if len(kinds) > 1:
        raise errors.validation(
            "Update table operation with more than one type of replica actions not allowed.")
    if kinds & {"Create", "Delete"} and len(actions) > 1:
        raise errors.validation(
            "Update table operation with more than one create or delete replica actions not "
            "allowed")
    regions = [member["RegionName"] for _, member in actions]
    if len(set(regions)) < len(regions):
        raise errors.validation("Cannot target multiple regions with the same action")
    if home in regions:
        raise errors.validation("Cannot add or delete the local region through ReplicaUpdates. "
                                "Use CreateTable, DeleteTable, or UpdateTable as required.")
    return actions


async def check_global(db: Database, table: Table, body: dict) -> None:
    """What a global table's replica refuses of the other changes UpdateTable makes."""
    spec = body.get("StreamSpecification")
    if spec is not None and spec.get("StreamEnabled") is False:
        raise errors.validation(
            _INVALID + "Disabling Stream is not allowed for a Global Table replica.")
    await busy(db, table)


async def busy(db: Database, table: Table) -> None:
    """No table change while one of its replicas is being created, updated or deleted."""
    now = db.clock.now()
    leaving = any(until > now for until in table.doc.get(group.LEAVING, {}).values())
    for region in group.others(table):
        member = await db.catalog.get(region, table.name)
        if leaving or (member is not None and member.status(now) != ACTIVE):
            raise errors.resource_in_use(
                "The resource which you are attempting to change is in use.")


async def update(ctx: Context, table: Table, body: dict, doc: dict, now: float) -> tuple:
    """Check ReplicaUpdates against `table` and apply them: `doc` (the table's new
    document, edited here) and what to do once it is saved, `after(db, saved)`."""
    actions = _actions(body, table.region)
    await busy(ctx.db, table)
    members = group.others(table)
    action, member = actions[0]
    region = member["RegionName"]
    if action == "Create":
        if region in members or await ctx.db.catalog.get(region, table.name) is not None:
            raise errors.validation(
                f"Failed to create a the new replica of table with name: \u2018{table.name}\u2019 "
                "because one or more replicas already existed as tables.")
        if table.doc.get("BillingModeSummary", {}).get("BillingMode", PROVISIONED) != \
                PAY_PER_REQUEST:
            raise errors.validation("Table write capacity should either be Pay-Per-Request or "
                                    "AutoScaled.")
        return await _create(ctx, table, doc, member, now)
    missing = [member["RegionName"] for _, member in actions
               if member["RegionName"] not in members]
    if missing:
        raise errors.validation(
            "Update global table operation failed because one or more replicas were not part "
            f"of the global table. Please retry the request without these replicas: "
            f"[{', '.join(missing)}].")
    if action == "Delete":
        return await _delete(ctx.db, table, doc, region, now)
    for _, member in actions:
        await _override(ctx.db, table, member, now)
    return doc, None


async def _create(ctx: Context, table: Table, doc: dict, action: dict, now: float) -> tuple:
    db = ctx.db
    region = action["RegionName"]
    if "StreamSpecification" not in doc:  # replication needs one: DynamoDB turns it on
        doc.update(table_settings.stream(
            {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}, now))
    replica = {name: value for name, value in doc.items() if name not in _REGIONAL}
    replica.update(TableId=str(uuid.uuid4()), CreationDateTime=now, TableStatus=CREATING,
                   StatusUntil=copy.UNTIL_DONE, DeletionProtectionEnabled=False,
                   LatestStreamLabel=table_settings.stream_label(now),
                   GlobalTableVersion=group.VERSION)
    replica[group.MEMBERS] = [table.region, *group.others(table)]
    if "GlobalSecondaryIndexes" in replica:
        replica["GlobalSecondaryIndexes"] = [
            {name: value for name, value in index.items() if name != "Backfilling"} | {
                "IndexStatus": ACTIVE} for index in replica["GlobalSecondaryIndexes"]]
    if "SSEDescription" in doc:
        replica.update(table_settings.sse({"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId":
                                           action.get("KMSMasterKeyId")}, region, db.account))
    _overridden(replica, action, now)
    target = await db.catalog.create(region, replica)
    if target is None:  # made meanwhile
        raise errors.validation(
            f"Failed to create a the new replica of table with name: \u2018{table.name}\u2019 "
            "because one or more replicas already existed as tables.")
    await follow_table(db, region, table.name)
    for other in group.others(table):
        await _rewrite(db, other, table.name, lambda doc: group.joined(doc, region))
    doc = group.joined(doc, region)

    async def after(db: Database, saved: Table) -> None:
        await follow_table(db, saved.region, saved.name)
        await copy.start(db, saved, target)
    return doc, after


def _overridden(doc: dict, action: dict, now: float) -> None:
    """A replica's document with the overrides of a Create or Update action (kept to
    describe them; an on-demand read maximum and a table class also take effect)."""
    overrides = dict(doc.get(group.OVERRIDES, {}))
    for name in _OVERRIDES:
        if action.get(name) is not None:
            overrides[name] = action[name]
    doc[group.OVERRIDES] = overrides
    on_demand = action.get("OnDemandThroughputOverride")
    if on_demand is not None and "MaxReadRequestUnits" in on_demand:
        doc["OnDemandThroughput"] = dict(doc.get("OnDemandThroughput", {}),
                                         MaxReadRequestUnits=on_demand["MaxReadRequestUnits"])
    if action.get("TableClassOverride") is not None:
        doc["TableClassSummary"] = {"TableClass": action["TableClassOverride"],
                                    "LastUpdateDateTime": now}


async def _override(db: Database, table: Table, action: dict, now: float) -> None:
    def edit(doc: dict) -> dict:
        doc = dict(doc, TableStatus="UPDATING", StatusUntil=db.status_until(now))
        _overridden(doc, action, now)
        return doc
    await _rewrite(db, action["RegionName"], table.name, edit)


async def _delete(db: Database, table: Table, doc: dict, region: str, now: float) -> tuple:
    replica = await db.catalog.get(region, table.name)
    if replica is not None and replica.doc.get("DeletionProtectionEnabled"):
        raise errors.validation(
            f"Cannot delete table {table.name} in region {region} because it has deletion "
            "protection enabled. Disable deletion protection first.")
    until = db.status_until(now)
    for other in group.others(table):
        if other != region:
            await _rewrite(db, other, table.name, lambda doc: group.left(doc, region, until))
    if replica is not None:
        await drop(db, replica, now)
    return group.left(doc, region, until), None


async def leave(db: Database, table: Table, now: float) -> None:
    """A replica deleted by DeleteTable in its region leaves its global table."""
    until = db.status_until(now)
    for other in group.others(table):
        await _rewrite(db, other, table.name, lambda doc: group.left(doc, table.region, until))


async def _rewrite(db: Database, region: str, name: str, edit) -> None:
    """Save `edit(document)` as the document of the table `name` in `region`."""
    for _ in range(5):
        table = await db.catalog.get(region, name)
        if table is None:
            return
        try:
            await db.catalog.save(table, edit(table.doc))
            return
        except CatalogChanged:
            continue


async def described(db: Database, table: Table) -> list[dict]:
    """The Replicas of a TableDescription: every other replica, and those being
    deleted, as this region sees them."""
    now = db.clock.now()
    replicas = []
    leaving = [region for region, until in table.doc.get(group.LEAVING, {}).items()
               if until > now]
    for region in [*group.others(table), *leaving]:
        replica = await db.catalog.get(region, table.name)
        status = DELETING if region in leaving else \
            None if replica is None else replica.status(now)
        if status is None:
            continue
        description = {"RegionName": region, "ReplicaStatus": status}
        if status == CREATING and replica is not None:
            description["ReplicaStatusPercentProgress"] = \
                await copy.progress(db, replica) or "0"
        doc = table.doc if replica is None else replica.doc
        overrides = doc.get(group.OVERRIDES, {})
        for name in ("ProvisionedThroughputOverride", "OnDemandThroughputOverride"):
            if name in overrides:
                description[name] = overrides[name]
        if "SSEDescription" in doc:
            description["KMSMasterKeyId"] = doc["SSEDescription"].get("KMSMasterKeyArn")
        indexes = {index["IndexName"]: index for index in overrides.get("GlobalSecondaryIndexes", ())}
        if table.doc.get("GlobalSecondaryIndexes"):
            description["GlobalSecondaryIndexes"] = [
                {"IndexName": index["IndexName"], **{
                    name: value for name, value in indexes.get(index["IndexName"], {}).items()
                    if name != "IndexName"}}
                for index in table.doc["GlobalSecondaryIndexes"]]
        description["ReplicaTableClassSummary"] = doc.get(
            "TableClassSummary", {"TableClass": "STANDARD"})
        description["ReplicaArn"] = arns.table(region, db.account, table.name)
        replicas.append(description)
    return replicas
