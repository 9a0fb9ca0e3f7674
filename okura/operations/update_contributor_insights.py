"""UpdateContributorInsights: turn Contributor Insights on (in a mode) or off for a
table or one of its global secondary indexes. The setting is kept in the table's
catalog document; the status passes through ENABLING / DISABLING for the server's
status delay, as a table's does."""
from __future__ import annotations

from okura.core import insights, table_lookup
from okura.core.context import Context
from okura.operations.shared.contributor_insights import check_index


async def handle(ctx: Context, body: dict) -> dict:
    db = ctx.db
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    index = body.get("IndexName")
    check_index(table, index)
    now = db.clock.now()
    settings = dict(insights.states(table))
    current = settings.get(index or "")
    enable = body["ContributorInsightsAction"] == insights.ENABLE
    if enable:
        # ENABLE without a mode is ACCESSED_AND_THROTTLED_KEYS, even on a resource
        # enabled in another mode (API reference: the mode's default)
        mode = body.get("ContributorInsightsMode", insights.ACCESSED)
        created = (current["Created"] if current is not None
                   and current["Action"] == insights.ENABLE else int(now * 1000))
    else:
        mode = current["Mode"] if current is not None else insights.ACCESSED
        created = current["Created"] if current is not None else int(now * 1000)
    settings[index or ""] = {"Action": body["ContributorInsightsAction"], "Mode": mode,
                             "Created": created, "Changed": now,
                             "Until": db.status_until(now)}
    table = await db.catalog.save(table, dict(table.doc, ContributorInsights=settings))
    out: dict = {"TableName": table.name}
    if index is not None:
        out["IndexName"] = index
    out["ContributorInsightsStatus"] = "ENABLING" if enable else "DISABLING"
    out["ContributorInsightsMode"] = mode
    return out
