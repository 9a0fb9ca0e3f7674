"""Throughput that bites: what a table, a global secondary index and a partition key may
spend per second, and the gate that throttles what goes beyond (docs/throttling.md).

Each budget is a token bucket on okura's clock (a test moves the clock rather than
sleeping). As in DynamoDB, a request is admitted while its buckets hold anything at all,
and spends what its ledger says once its work is done, so a bucket may go below zero
and then throttles until it refills; a throttled request spent nothing.

- Provisioned: the table's and each GSI's read and write capacity per second, with up
  to 300 seconds of unused capacity kept as burst. A new budget starts with its whole
  burst (what okura assumes of a new table: DynamoDB calls burst best effort).
- On demand: the table's (or GSI's) OnDemandThroughput maximum where set, the account's
  per-table quota (DescribeLimits: 40,000 units) otherwise; and what DynamoDB serves at
  once: the warm throughput (12,000 read and 4,000 write units for a new table, or more
  as WarmThroughput says) or twice the highest second of traffic that is at least 30
  minutes old, whichever is more.
- Every partition key value: 3,000 read and 1,000 write units per second (the partition
  limits, in the state DynamoDB's adaptive capacity reaches: a hot item isolated in a
  partition of its own, lent the table's unused capacity up to that limit).
- A write must also find write capacity in each of the table's GSIs: an index short of
  it throttles the table's writes, as in DynamoDB.

Budgets are per node: with PostgreSQL each node holds an equal share of every budget
(`share`), which keeps several nodes under a steady load within the configured rate
without a round trip per request (docs/throttling.md says what that costs).
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from okura import errors
from okura.errors import DynamoError

if TYPE_CHECKING:
    from okura.core.capacity import Ledger
    from okura.core.catalog import Table
    from okura.core.context import Context
    from okura.core.indexes import Index

log = logging.getLogger("okura")

OFF, SHADOW, ENFORCE = "off", "shadow", "enforce"
MODES = (OFF, SHADOW, ENFORCE)
BURST_SECONDS = 300.0
PARTITION_READ, PARTITION_WRITE = 3000.0, 1000.0
ACCOUNT_TABLE_READ = ACCOUNT_TABLE_WRITE = 40000.0  # DescribeLimits' per-table quotas
WARM_READ, WARM_WRITE = 12000.0, 4000.0  # what a new on-demand table serves at once
PEAK_SETTLES = 1800.0  # seconds before a peak raises what on-demand serves at once
WARN_EVERY = 60.0  # seconds between shadow mode's warnings for one table
PARTITIONS_KEPT = 100_000  # partition buckets kept per node before the idle ones go

_PROVISIONED, _ACCOUNT, _MAX, _WARM, _KEY_RANGE = range(5)
_LIMITS = {_PROVISIONED: "ProvisionedThroughputExceeded", _ACCOUNT: "AccountLimitExceeded",
           _MAX: "MaxOnDemandThroughputExceeded", _KEY_RANGE: "KeyRangeThroughputExceeded"}


class Bucket:
    """Units a budget may spend: `rate` per second, at most `capacity` kept."""

    __slots__ = ("rate", "capacity", "level", "at", "limit")

    def __init__(self, rate: float, capacity: float, now: float, limit: int) -> None:
        self.rate = rate
        self.capacity = capacity
        self.level = capacity
        self.at = now
        self.limit = limit  # which of DynamoDB's limits this bucket is (_PROVISIONED, ...)

    def empty(self, now: float) -> bool:
        """Refill up to now; whether nothing is left to spend."""
        level = self.level + (now - self.at) * self.rate
        self.level = level if level < self.capacity else self.capacity
        self.at = now
        return level <= 0.0


class Budget:
    """One table's or GSI's read or write budget; on demand, also what it serves at once:
    the warm throughput or twice its highest settled second, up to its `ceiling`."""

    __slots__ = ("bucket", "on_demand", "warm", "ceiling", "ceiling_limit", "second", "used",
                 "rising", "settled")

    def __init__(self, bucket: Bucket, warm: float = 0.0, ceiling: float = 0.0,
                 ceiling_limit: int = _PROVISIONED) -> None:
        self.bucket = bucket
        self.on_demand = ceiling > 0
        self.warm = warm
        self.ceiling = ceiling  # on demand: the maximum, or the account's quota
        self.ceiling_limit = ceiling_limit  # _MAX or _ACCOUNT
        self.second = -1.0  # on demand: the second `used` counts
        self.used = 0.0
        self.rising: list[tuple[float, float]] = []  # (second, units) of rising peaks
        self.settled = 0.0  # the highest second that is PEAK_SETTLES old
        if self.on_demand:
            self._serve()
            bucket.level = bucket.capacity

    def spend(self, units: float, now: float) -> None:
        self.bucket.level -= units
        if self.on_demand:
            second = float(int(now))
            if second != self.second:
                self._close(now)
                self.second, self.used = second, 0.0
            self.used += units

    def _close(self, now: float) -> None:
        """The second `used` counted is over: note it if it is a new peak, and settle the
        peaks old enough."""
        if self.used and (not self.rising or self.used > self.rising[-1][1]):
            self.rising.append((self.second, self.used))
        settled = self.settled
        while self.rising and now - self.rising[0][0] >= PEAK_SETTLES:
            settled = max(settled, self.rising.pop(0)[1])
        if settled != self.settled:
            self.settled = settled
            self._serve()

    def _serve(self) -> None:
        served = max(self.warm, 2 * self.settled)
        bucket = self.bucket
        if served >= self.ceiling:
            served, bucket.limit = self.ceiling, self.ceiling_limit
        else:
            bucket.limit = _WARM
        bucket.rate = bucket.capacity = served


class Throughput:
    """Every budget of this node, and the gate."""

    def __init__(self, mode: str, share: float = 1.0) -> None:
        self.mode = mode
        self.share = share  # this node's part of every budget (PostgreSQL: 1 / nodes)
        self.overrides: dict[str, str] = {}  # table name -> mode (admin endpoint)
        # (table id, index name or None, write) -> (table version, Budget)
        self._budgets: dict[tuple[int, str | None, bool], tuple[int, Budget]] = {}
        self._partitions: dict[tuple[int, bytes, bool], Bucket] = {}
        self._warned: dict[int, float] = {}

    def mode_of(self, table: Table) -> str:
        return self.overrides.get(table.name, self.mode) if self.overrides else self.mode

    # The gate, before the work
    def admit(self, ctx: Context, table: Table, hk: bytes | None, write: bool,
              index: Index | None = None) -> None:
        """Let a read or write of `table` (of its GSI `index`; of partition key `hk`) go
        on, or throttle it: raise DynamoDB's error (enforce), or count and log what
        would have been (shadow)."""
        refusal = self.refusal(ctx, table, hk, write, index)
        if refusal is not None:
            raise refusal

    def refusal(self, ctx: Context, table: Table, hk: bytes | None, write: bool,
                index: Index | None = None) -> DynamoError | None:
        """admit()'s decision: the error to throttle with in enforce mode, else None
        (a batch leaves the item unprocessed instead of raising)."""
        mode = self.mode_of(table)
        if mode == OFF:
            return None
        now = ctx.db.clock.now()
        gsi = index if index is not None and index.is_global else None
        hit = self._limited(table, gsi, hk, write, now)
        if hit is None and write:
            for other in table.indexes:  # a GSI short of write capacity throttles writes
                if other.is_global:
                    bucket = self._budget(table, other, True, now).bucket
                    if bucket.empty(now):
                        hit = (other, bucket.limit, None)
                        break
        if hit is None:
            return None
        limited, limit, key = hit
        ctx.throttled = (table, limited, key)
        ctx.db.metrics.throttled(table, limited, write, ctx.operation)
        error = _error(table, limited, write, limit)
        if mode == SHADOW:
            last = self._warned.get(table.id)
            if last is None or now - last >= WARN_EVERY:
                self._warned[table.id] = now
                log.warning("throttling (shadow): %s of table %s would be throttled: %s",
                            ctx.operation, table.name, error.message)
            return None
        return error

    def _limited(self, table: Table, index: Index | None, hk: bytes | None, write: bool,
                 now: float) -> tuple[Index | None, int, bytes | None] | None:
        budget = self._budget(table, index, write, now)
        if budget.bucket.empty(now):
            return index, budget.bucket.limit, None
        if hk is not None:
            partition = self._partition(table, index, hk, write, now)
            if partition.empty(now):
                return index, _KEY_RANGE, hk
        return None

    # Spending, after the work
    def spend(self, ctx: Context, ledger: Ledger, start: int) -> None:
        """Take the charges from `start` on (work just done) from their budgets."""
        now = ctx.db.clock.now()
        for table, index, hk, units, write in ledger[start:]:
            if self.mode_of(table) == OFF:
                continue
            gsi = index if index is not None and index.is_global else None
            self._budget(table, gsi, write, now).spend(units, now)
            if hk is not None and gsi is None:
                self._partition(table, None, hk, write, now).level -= units

    # Budgets, made as they are first needed and again when the table document changes
    def _budget(self, table: Table, index: Index | None, write: bool, now: float) -> Budget:
        name = None if index is None else index.name
        held = self._budgets.get((table.id, name, write))
        if held is not None and held[0] == table.version:
            return held[1]
        budget = self._make(table, name, write, now)
        if held is not None:  # keep what the old budget had spent, and on demand its peaks
            old = held[1]
            old.bucket.empty(now)  # refilled at the old rate up to the change
            budget.bucket.level = min(old.bucket.level, budget.bucket.capacity)
            budget.rising, budget.settled = old.rising, old.settled
            budget.second, budget.used = old.second, old.used
        self._budgets[table.id, name, write] = (table.version, budget)
        return budget

    def _make(self, table: Table, index_name: str | None, write: bool, now: float) -> Budget:
        doc = table.doc if index_name is None else next(
            index for index in table.doc.get("GlobalSecondaryIndexes", ())
            if index["IndexName"] == index_name)
        kind = "Write" if write else "Read"
        share = self.share
        if not _on_demand(table):
            rate = float(doc.get("ProvisionedThroughput", {}).get(f"{kind}CapacityUnits", 0))
            rate *= share
            return Budget(Bucket(rate, rate * BURST_SECONDS, now, _PROVISIONED))
        maximum = doc.get("OnDemandThroughput", {}).get(f"Max{kind}RequestUnits", -1)
        account = ACCOUNT_TABLE_WRITE if write else ACCOUNT_TABLE_READ
        warm = doc.get("WarmThroughput", {}).get(f"{kind}UnitsPerSecond") or 0
        warm = max(float(warm), WARM_WRITE if write else WARM_READ)
        if maximum is not None and 0 < maximum < account:
            ceiling, limit = float(maximum), _MAX
        else:
            ceiling, limit = account, _ACCOUNT
        return Budget(Bucket(0.0, 0.0, now, limit), warm * share, ceiling * share, limit)

    def _partition(self, table: Table, index: Index | None, hk: bytes, write: bool,
                   now: float) -> Bucket:
        key = (table.id if index is None else -table.id, hk, write)
        bucket = self._partitions.get(key)
        if bucket is None:
            if len(self._partitions) >= PARTITIONS_KEPT:
                self._forget_full(now)
            rate = (PARTITION_WRITE if write else PARTITION_READ) * self.share
            bucket = self._partitions[key] = Bucket(rate, rate, now, _KEY_RANGE)
        return bucket

    def _forget_full(self, now: float) -> None:
        """Drop the partition buckets that have refilled: they hold nothing to remember."""
        for key, bucket in list(self._partitions.items()):
            if bucket.level + (now - bucket.at) * bucket.rate >= bucket.capacity:
                del self._partitions[key]


def _on_demand(table: Table) -> bool:
    return table.doc.get("BillingModeSummary", {}).get("BillingMode") == "PAY_PER_REQUEST"


def _error(table: Table, index: Index | None, write: bool, limit: int) -> DynamoError:
    """DynamoDB's error for a limit: ProvisionedThroughputExceededException for
    provisioned capacity and partition limits, ThrottlingException for on-demand
    maximums and what on demand serves at once, RequestLimitExceeded for the account's
    quota. What on demand serves at once has no reason of its own among DynamoDB's 16."""
    if limit == _WARM:
        return errors.throttling([])
    reason = ("Index" if index is not None else "Table") + ("Write" if write else "Read") + \
        _LIMITS[limit]
    resource = table.arn if index is None else f"{table.arn}/index/{index.name}"
    reasons = [{"reason": reason, "resource": resource}]
    if limit == _MAX:
        return errors.throttling(reasons)
    if limit == _ACCOUNT:
        return errors.request_limit_exceeded(reasons)
    return errors.provisioned_throughput_exceeded(reasons)
