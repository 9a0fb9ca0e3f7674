"""DescribeEndpoints: where clients should send their requests, which is here."""
from __future__ import annotations

from okura import shapes

CACHE_MINUTES = 1440  # what DynamoDB answers


def address(request) -> str:
    """host:port the client reached us at: its Host header, else our socket's address."""
    host = request.headers.get("host")
    if host:
        return host
    ip, port = request.local_address[:2]
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


async def handle(request, body: dict) -> dict:
    shapes.check("DescribeEndpoints", body)
    return {"Endpoints": [{"Address": address(request), "CachePeriodInMinutes": CACHE_MINUTES}]}
