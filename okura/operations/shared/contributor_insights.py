"""What the Contributor Insights operations share: the resource a request names and its
description (core/insights.py keeps the settings and the counts)."""
from __future__ import annotations

from okura import errors
from okura.core import insights
from okura.core.catalog import Table


def check_index(table: Table, index: str | None) -> None:
    """A named index must be one of the table's global secondary indexes."""
    if index is not None and not any(i.name == index and i.is_global for i in table.indexes):
        # DynamoDB's text for an unknown index here is not documented (unverified)
        raise errors.resource_not_found()


def summary(table: Table, index: str | None, now: float) -> dict:
    """A ContributorInsightsSummary: the resource, its status and, once enabled, its mode."""
    state = insights.states(table).get(index or "")
    out: dict = {"TableName": table.name}
    if index is not None:
        out["IndexName"] = index
    out["ContributorInsightsStatus"] = insights.status(state, now)
    if state is not None:
        out["ContributorInsightsMode"] = state["Mode"]
    return out
