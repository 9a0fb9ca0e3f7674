"""DescribeContributorInsights: a table's or global secondary index's Contributor
Insights status, mode and CloudWatch rule names."""
from __future__ import annotations

from okura.core import insights, table_lookup
from okura.core.context import Context
from okura.operations.shared.contributor_insights import check_index, summary


async def handle(ctx: Context, body: dict) -> dict:
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    index = body.get("IndexName")
    check_index(table, index)
    now = ctx.clock.now()
    out = summary(table, index, now)
    state = insights.states(table).get(index or "")
    if state is not None:
        if state["Action"] == insights.ENABLE:
            out["ContributorInsightsRuleList"] = insights.rule_names(table, index, state)
        out["LastUpdateDateTime"] = state["Changed"]
    return out
