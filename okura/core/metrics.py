"""DynamoDB's CloudWatch metrics, counted by this node.

CloudWatch publishes each metric as statistics (SampleCount, Sum, Minimum, Maximum,
Average) over periods; okura keeps the same over one-minute periods of its own
clock, so moving the clock ends a period as it ends TTL waits. Each request adds a
handful of samples to the current period's plain dicts (the request path pays a few
dictionary updates); a scrape reads the last complete period (server/prometheus.py).

A key is (metric, region, table name, dimension): the dimension is the operation,
the global secondary index ("" for the table) or "" where CloudWatch has none.
Every figure is this node's: on PostgreSQL each node counts what it served, and a
dashboard sums the nodes (docs/metrics.md).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from okura.errors import DynamoError

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.clock import Clock
    from okura.core.context import Context

PERIOD = 60.0  # seconds: CloudWatch's one-minute statistics
LATENCY = "SuccessfulRequestLatency"
READ_UNITS = "ConsumedReadCapacityUnits"
WRITE_UNITS = "ConsumedWriteCapacityUnits"
RETURNED = "ReturnedItemCount"
USER_ERRORS = "UserErrors"
SYSTEM_ERRORS = "SystemErrors"
CONDITION_FAILED = "ConditionalCheckFailedRequests"
TRANSACTION_CONFLICT = "TransactionConflict"
THROTTLED = "ThrottledRequests"
READ_THROTTLES = "ReadThrottleEvents"
WRITE_THROTTLES = "WriteThrottleEvents"
TTL_DELETED = "TimeToLiveDeletedItemCount"
# Operations whose ReturnedItemCount CloudWatch publishes.
_RETURNING = frozenset(("Query", "Scan", "ExecuteStatement"))
# 400s that CloudWatch counts under their own metric rather than UserErrors.
_OWN_METRIC = {"ConditionalCheckFailedException": CONDITION_FAILED,
               "TransactionConflictException": TRANSACTION_CONFLICT}

# One statistic set: [SampleCount, Sum, Minimum, Maximum].
Stat = list
Key = tuple[str, str, str, str]


def _add(period: dict, key: Key, value: float) -> None:
    stat = period.get(key)
    if stat is None:
        period[key] = [1, value, value, value]
    else:
        stat[0] += 1
        stat[1] += value
        if value < stat[2]:
            stat[2] = value
        elif value > stat[3]:
            stat[3] = value


class Metrics:
    __slots__ = ("clock", "period", "current", "last")

    def __init__(self, clock: Clock):
        self.clock = clock
        self.period = self._period_now()
        self.current: dict[Key, Stat] = {}  # the period under way
        self.last: dict[Key, Stat] = {}  # the last complete one

    def _period_now(self) -> int:
        return math.floor(self.clock.now() / PERIOD)

    def roll(self) -> None:
        """Start a new period if the clock has left the current one (called every
        second, and before a scrape)."""
        period = self._period_now()
        if period != self.period:
            # a period that saw no request is an empty one
            self.last = self.current if period == self.period + 1 else {}
            self.current = {}
            self.period = period

    def request(self, ctx: Context, seconds: float, error: DynamoError | None) -> None:
        """Count one finished DynamoDB request: what its ledger spent, and its outcome
        (`error` None: it succeeded, in `seconds`)."""
        current = self.current
        charges = ctx.ledger.charges
        if len(charges) == 1:
            table, index, _, units, write = charges[0]
            _add(current, (WRITE_UNITS if write else READ_UNITS, table.region, table.name,
                           "" if index is None or not index.is_global else index.name), units)
        elif charges:
            spent: dict[Key, float] = {}
            for table, index, _, units, write in charges:
                key = (WRITE_UNITS if write else READ_UNITS, table.region, table.name,
                       "" if index is None or not index.is_global else index.name)
                spent[key] = spent.get(key, 0.0) + units
            for key, units in spent.items():
                _add(current, key, units)
        table = ctx.table
        operation = ctx.operation
        if error is None:
            if table is not None and charges:
                _add(current, (LATENCY, table.region, table.name, operation), seconds * 1000.0)
                if operation in _RETURNING:
                    _add(current, (RETURNED, table.region, table.name, operation), ctx.returned)
            return
        if error.status >= 500:
            if table is not None:
                _add(current, (SYSTEM_ERRORS, table.region, table.name, operation), 1)
            return
        own = _OWN_METRIC.get(error.name)
        if own is None and error.name == "TransactionCanceledException" and any(
                reason.get("Code") == "TransactionConflict"
                for reason in (error.extra or {}).get("CancellationReasons", ())):
            own = TRANSACTION_CONFLICT
        if own is not None and table is not None:
            _add(current, (own, table.region, table.name, ""), 1)
        else:
            _add(current, (USER_ERRORS, ctx.region, "", ""), 1)

    def expired(self, table: Table) -> None:
        """TTL deleted one item of `table`."""
        _add(self.current, (TTL_DELETED, table.region, table.name, ""), 1)

    def snapshot(self) -> dict[Key, Stat]:
        """The last complete period's statistics."""
        self.roll()
        return self.last
