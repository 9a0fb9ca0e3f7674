"""DescribeLimits: the account's capacity quotas (DynamoDB's defaults)."""
from __future__ import annotations

from okura.core.context import Context
from okura.operations.shared.table_rules import ACCOUNT_MAX_CAPACITY, TABLE_MAX_CAPACITY

_LIMITS = {
    "AccountMaxReadCapacityUnits": ACCOUNT_MAX_CAPACITY,
    "AccountMaxWriteCapacityUnits": ACCOUNT_MAX_CAPACITY,
    "TableMaxReadCapacityUnits": TABLE_MAX_CAPACITY,
    "TableMaxWriteCapacityUnits": TABLE_MAX_CAPACITY,
}


async def handle(ctx: Context, body: dict) -> dict:
    return dict(_LIMITS)
