"""UpdateTimeToLive: turn a table's TTL on (naming the expiry attribute) or off.
Expiring items is core's business (core.ttl); this records the setting and
registers the table with the sweeper."""
from __future__ import annotations

from okura import errors
from okura.core.catalog import ACTIVE
from okura.core.context import Context
from okura.core.ttl import registry
from okura.core import table_lookup
from okura.operations.shared.table_rules import in_use

CHANGE_INTERVAL = 3600  # seconds after a change of TTL before the next is accepted


async def handle(ctx: Context, body: dict) -> dict:
    spec = body["TimeToLiveSpecification"]
    db = ctx.db
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    status = table.status(db.clock.now())
    if status != ACTIVE:
        raise in_use(table, status)
    current = table.doc.get("TimeToLive")
    name = spec["AttributeName"]
    if spec["Enabled"]:
        if current is not None:
            if current["AttributeName"] != name:  # as users' code quotes it
                raise _different(current)
            raise errors.validation("TimeToLive is already enabled")  # unverified
        doc = dict(table.doc, TimeToLive={"AttributeName": name})
    else:
        if current is None:
            raise errors.validation("TimeToLive is already disabled")  # unverified
        if current["AttributeName"] != name:
            raise _different(current)
        doc = {key: value for key, value in table.doc.items() if key != "TimeToLive"}
    # "Any additional UpdateTimeToLive calls for the same table during this one hour
    # duration result in a ValidationException" (API reference).
    now = db.clock.now()
    if now < table.doc.get("TimeToLiveChanged", -CHANGE_INTERVAL) + CHANGE_INTERVAL:
        raise errors.validation(
            "Time to live has been modified multiple times within a fixed interval")  # unverified
    doc["TimeToLiveChanged"] = now
    table = await db.catalog.save(table, doc)
    if spec["Enabled"]:
        await registry.enable(db, table)
    else:
        await registry.disable(db, table.region, table.name)
    return {"TimeToLiveSpecification": {"Enabled": spec["Enabled"], "AttributeName": name}}


def _different(current: dict) -> errors.DynamoError:
    return errors.validation("TimeToLive is active on a different AttributeName: current "
                             f"AttributeName is {current['AttributeName']}")
