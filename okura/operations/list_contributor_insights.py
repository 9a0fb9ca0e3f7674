"""ListContributorInsights: the Contributor Insights status of every table of the
region (or of one table) and of their global secondary indexes, a page at a time."""
from __future__ import annotations

from okura import errors
from okura.core import paging, table_lookup
from okura.core.context import Context
from okura.operations.shared.contributor_insights import summary

DEFAULT_PAGE = 100  # MaxResults' ceiling (the model); the default is not documented
_NEXT_TOKEN = b"list-contributor-insights"


async def handle(ctx: Context, body: dict) -> dict:
    name = body.get("TableName")
    if name is not None:
        tables = [await table_lookup.any_status_table(ctx, name)]
    else:
        tables = sorted((table for table in await ctx.db.catalog.every()
                         if table.region == ctx.region), key=lambda table: table.name)
    now = ctx.clock.now()
    summaries = [summary(table, index, now) for table in tables
                 for index in (None, *(i.name for i in table.indexes if i.is_global))]
    token = body.get("NextToken")
    seal = ctx.db.seal
    start = 0
    if token is not None:  # a sealed place in the list
        start = seal.opened(_NEXT_TOKEN, token)
        if type(start) is not int or start > len(summaries):
            raise errors.validation("Invalid NextToken")  # unverified
    chosen, last = paging.page(summaries, body.get("MaxResults") or DEFAULT_PAGE, start)
    out: dict = {"ContributorInsightsSummaries": chosen}
    if last is not None:  # the place after it
        out["NextToken"] = seal.token(_NEXT_TOKEN, start + len(chosen))
    return out
