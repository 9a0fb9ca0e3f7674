"""DescribeTimeToLive: a table's TTL setting."""
from __future__ import annotations

from okura import shapes
from okura.operations.table_rules import existing_table


def ttl_description(doc: dict) -> dict:
    setting = doc.get("TimeToLive")
    if setting is None:
        return {"TimeToLiveStatus": "DISABLED"}
    return {"TimeToLiveStatus": "ENABLED", "AttributeName": setting["AttributeName"]}


async def handle(request, body: dict) -> dict:
    shapes.check("DescribeTimeToLive", body)
    table = await existing_table(request, body["TableName"])
    return {"TimeToLiveDescription": ttl_description(table.doc)}
