"""DescribeEndpoints: where clients should send their requests, which is here."""
from __future__ import annotations

from okura.core.context import Context

CACHE_MINUTES = 1440  # what DynamoDB answers


async def handle(ctx: Context, body: dict) -> dict:
    return {"Endpoints": [{"Address": ctx.address(), "CachePeriodInMinutes": CACHE_MINUTES}]}
