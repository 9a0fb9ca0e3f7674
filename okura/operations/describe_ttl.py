"""DescribeTimeToLive: a table's TTL setting."""
from __future__ import annotations

from okura.core import table_lookup
from okura.core.context import Context


def ttl_description(doc: dict) -> dict:
    setting = doc.get("TimeToLive")
    if setting is None:
        return {"TimeToLiveStatus": "DISABLED"}
    return {"TimeToLiveStatus": "ENABLED", "AttributeName": setting["AttributeName"]}


async def handle(ctx: Context, body: dict) -> dict:
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    return {"TimeToLiveDescription": ttl_description(table.doc)}
