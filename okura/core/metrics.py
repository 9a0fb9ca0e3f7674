"""DynamoDB's CloudWatch metrics, counted by this node.

CloudWatch publishes each metric as statistics (SampleCount, Sum, Minimum, Maximum,
Average) over periods; okura keeps the same over one-minute periods of its own
clock, so moving the clock ends a period as it ends TTL waits. A scrape reads the last
complete period, grouped by region and table name (server/prometheus.py).

The commonest request (it succeeded and spent on its table alone) only extends the
list of its (table, operation, kind) with its latency, units and returned items: one
dict lookup, one extend. The lists fold into the period's statistics in C (slices, len,
sum, min, max) once they hold FOLD samples and at every roll. Rolls happen every second
and whenever the clock is moved, so a request in the first second of a period that
real time began may be counted in the period before. Every other request is sampled at
once.

Every figure is this node's: on PostgreSQL each node counts what it served, and a
dashboard sums the nodes (docs/metrics.md).

Besides the periods, `usage` tallies each table's traffic since the node started, for the
design advisor (GET /okura/usage, docs/advisor.md): requests and units per operation
(added when samples fold: nothing per request), and what CloudWatch does not publish:
Query and Scan per index with ScannedCount, Count, consistent reads and the attributes
they named, and item reads by key with their consistent share (an increment or two per
read).
"""
from __future__ import annotations

import math
from collections import deque
from typing import TYPE_CHECKING

from okura.core import features
from okura.errors import THROTTLING_ERRORS, DynamoError

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.context import Context
    from okura.core.database import Database
    from okura.core.indexes import Index

PERIOD = 60.0  # seconds: CloudWatch's one-minute statistics
HISTORY = 60  # complete periods kept for the console's graphs (an hour of okura's clock)
FOLD = 512  # samples a pending list holds before it folds
# Operations whose ReturnedItemCount CloudWatch publishes.
RETURNING = frozenset(("Query", "Scan", "ExecuteStatement"))
# Every 400 is a UserError but a failed condition and a throttle, each counted under a
# table metric of its own; a transaction conflict is both.
CONDITION_FAILED_ERROR = "ConditionalCheckFailedException"
CONDITION_FAILED = "ConditionalCheckFailedRequests"
TRANSACTION_CONFLICT = "TransactionConflict"
SYSTEM_ERRORS = "SystemErrors"
TTL_DELETED = "TimeToLiveDeletedItemCount"
THROTTLED_REQUESTS = "ThrottledRequests"

_NONE: dict = {}  # an empty look-up (never written)
# A statistic set: [SampleCount, Sum, Minimum, Maximum]
Stat = list


def stat() -> Stat:
    return [0, 0.0, math.inf, -math.inf]


def _sample(stat: Stat, value: float) -> None:
    stat[0] += 1
    stat[1] += value
    if value < stat[2]:
        stat[2] = value
    if value > stat[3]:
        stat[3] = value


class Spent:
    """One table's samples in one period."""

    __slots__ = ("read", "write", "indexes", "operations", "counts", "throttles")

    def __init__(self) -> None:
        self.read = stat()  # ConsumedReadCapacityUnits of the table itself, per request
        self.write = stat()
        # (global secondary index, write): its consumed units, per request
        self.indexes: dict[tuple[Index, bool], Stat] = {}
        # operation: [latency statistics in ms, ReturnedItemCount statistics]
        self.operations: dict[str, tuple[Stat, Stat]] = {}
        # (metric, operation or ""): a count (errors, TTL deletions, throttled requests)
        self.counts: dict[tuple[str, str], int] = {}
        # (global secondary index or None, write): Read/WriteThrottleEvents
        self.throttles: dict[tuple[Index | None, bool], int] = {}


class Tally:
    """One table's traffic since the node started (docs/advisor.md's usage)."""

    __slots__ = ("operations", "reads", "attributes", "item_reads", "index_units")

    def __init__(self) -> None:
        # operation: [requests, read units, write units] of the table (and its local indexes)
        self.operations: dict[str, list] = {}
        # index name ("" the table): {operation: [requests, consistent, scanned, returned,
        # requests that named their attributes]}
        self.reads: dict[str, dict[str, list[int]]] = {}
        self.attributes: dict[str, set[str]] = {}  # index name: top-level attributes named
        self.item_reads = [0, 0]  # reads of items by key: [all, consistent]
        self.index_units: dict[str, list[float]] = {}  # GSI: [read units, write units]

    def spent(self, operation: str, requests: int, units: float, write: bool) -> None:
        entry = self.operations.get(operation)
        if entry is None:
            entry = self.operations[operation] = [0, 0.0, 0.0]
        entry[0] += requests
        entry[2 if write else 1] += units

    def as_json(self) -> dict:
        return {"operations": self.operations, "reads": self.reads,
                "attributes": {name: sorted(names) for name, names in self.attributes.items()},
                "item_reads": self.item_reads, "index_units": self.index_units}


class Period:
    """What a period saw: per table object, and UserErrors per region (CloudWatch's
    UserErrors has no table)."""

    __slots__ = ("tables", "user_errors", "functions")

    def __init__(self) -> None:
        self.tables: dict[Table, Spent] = {}
        self.user_errors: dict[str, int] = {}
        # (region, function name): Lambda's metric name -> its statistics (triggers)
        self.functions: dict[tuple[str, str], dict[str, Stat]] = {}

    def spent(self, table: Table) -> Spent:
        spent = self.tables.get(table)
        if spent is None:
            spent = self.tables[table] = Spent()
        return spent


# Samples not yet folded, per (table, operation, write): latency in seconds, units,
# ReturnedItemCount, latency, units, ... (one flat list: extending it is the cheapest
# thing a request can do)
Pending = list
_SAMPLE = 3  # values per sample
_FOLD_AT = FOLD * _SAMPLE  # the length of a pending list that folds


def _fold(samples: Stat, values: list, scale: float = 1.0) -> None:
    """Add a list of samples to a statistic set (`scale`: a unit change)."""
    samples[0] += len(values)
    samples[1] += sum(values) * scale
    samples[2] = min(samples[2], min(values) * scale)
    samples[3] = max(samples[3], max(values) * scale)


@features.register
class Metrics(features.Feature):
    __slots__ = ("clock", "number", "current", "last", "pending", "access_denials",
                 "injected_faults", "since", "usage", "tallies", "history")

    def __init__(self, db: Database):
        super().__init__(db)
        self.clock = clock = db.clock
        self.number = self._number_now()
        self.current = Period()  # the period under way
        self.last = Period()  # the last complete one
        self.pending: dict[tuple[Table, str, bool], Pending] = {}
        # --auth warn's would-be denials since the start: (action, resource, reason) -> count
        self.access_denials: dict[tuple[str, str, str], int] = {}
        # faults injected since the start (core/faults.py): (operation, table, fault) -> count
        self.injected_faults: dict[tuple[str, str, str], int] = {}
        self.since = clock.now()  # when `usage` began
        # (region, table name, table id): its tally (a table made again is a new one)
        self.usage: dict[tuple[str, str, int], Tally] = {}
        # each table document seen since the last roll: its tally (one look-up by identity)
        self.tallies: dict[Table, Tally] = {}
        # (number, period) of the last complete periods that saw requests, oldest first
        self.history: deque[tuple[int, Period]] = deque(maxlen=HISTORY)

    def _number_now(self) -> int:
        return math.floor(self.clock.now() / PERIOD)

    def roll(self) -> None:
        """Start a new period if the clock has left the current one (called every
        second, and before a scrape)."""
        for key, pending in self.pending.items():
            if pending:
                self._fold(key, pending)
        # a table document that has changed since is a key of its own: none outlive a roll
        self.pending = {}
        self.tallies = {}
        number = self._number_now()
        if number != self.number:
            # a period that saw no request is an empty one
            self.last = self.current if number == self.number + 1 else Period()
            if self.current.tables:
                self.history.append((self.number, self.current))
            self.current = Period()
            self.number = number

    def request(self, ctx: Context, seconds: float, error: DynamoError | None) -> None:
        """Count one finished DynamoDB request: what its ledger spent, and its outcome
        (`error` None: it succeeded, in `seconds`)."""
        charges = ctx.ledger.charges
        if error is None and len(charges) == 1:
            table, index, _, units, write = charges[0]
            if index is None and ctx.table is table:
                key = (table, ctx.operation, write)
                pending = self.pending.get(key)
                if pending is None:
                    pending = self.pending[key] = []
                pending.extend((seconds, units, ctx.returned))
                if len(pending) >= _FOLD_AT:
                    self._fold(key, pending)
                return
        self._at_once(ctx, seconds, error)

    def tally(self, table: Table) -> Tally:
        tally = self.tallies.get(table)
        if tally is None:
            key = (table.region, table.name, table.id)
            tally = self.usage.get(key)
            if tally is None:
                tally = self.usage[key] = Tally()
            self.tallies[table] = tally
        return tally

    def _fold(self, key: tuple[Table, str, bool], pending: Pending) -> None:
        table, operation, write = key
        spent = self.current.spent(table)
        units = pending[1::_SAMPLE]
        _fold(spent.write if write else spent.read, units)
        self.tally(table).spent(operation, len(units), sum(units), write)
        samples = spent.operations.get(operation)
        if samples is None:
            samples = spent.operations[operation] = (stat(), stat())
        _fold(samples[0], pending[0::_SAMPLE], 1000.0)
        if operation in RETURNING:
            _fold(samples[1], pending[2::_SAMPLE])
        del pending[:]

    def _at_once(self, ctx: Context, seconds: float, error: DynamoError | None) -> None:
        """Sample a request other than the commonest at once."""
        period = self.current
        tables = self._charges(ctx) if ctx.ledger.charges else ()
        if error is None:
            operation = ctx.operation
            for charged in tables:  # a request that spent nothing has no latency metric
                self.tally(charged).spent(operation, 1, 0.0, False)
                samples = period.spent(charged).operations.get(operation)
                if samples is None:
                    samples = period.spent(charged).operations[operation] = (stat(), stat())
                _sample(samples[0], seconds * 1000.0)
                if operation in RETURNING:
                    _sample(samples[1], ctx.returned)
            return
        table = ctx.table
        if error.status >= 500:
            if table is not None:
                self._count(period.spent(table), SYSTEM_ERRORS, ctx.operation)
            return
        if error.name == CONDITION_FAILED_ERROR and table is not None:
            self._count(period.spent(table), CONDITION_FAILED, "")  # not a UserError
            return
        if error.name in THROTTLING_ERRORS:
            return  # not a UserError: throttled() counted it
        errors = period.user_errors
        errors[ctx.region] = errors.get(ctx.region, 0) + 1
        if table is not None and (error.name == "TransactionConflictException" or (
                error.name == "TransactionCanceledException" and any(
                    reason.get("Code") == "TransactionConflict"
                    for reason in (error.extra or {}).get("CancellationReasons", ())))):
            self._count(period.spent(table), TRANSACTION_CONFLICT, "")

    def _charges(self, ctx: Context) -> tuple[Table, ...]:
        """Sample a request's charges, summed per table, index and kind; the tables it
        spent on, in order of first use."""
        summed: dict[tuple[Table, Index | None, bool], float] = {}
        for table, index, _, units, write in ctx.ledger.charges:
            key = (table, index if index is not None and index.is_global else None, write)
            summed[key] = summed.get(key, 0.0) + units
        period = self.current
        for (table, index, write), units in summed.items():
            spent = period.spent(table)
            tally = self.tally(table)
            if index is None:
                _sample(spent.write if write else spent.read, units)
                tally.spent(ctx.operation, 0, units, write)
            else:
                index_units = tally.index_units.setdefault(index.name, [0.0, 0.0])
                index_units[write] += units
                samples = spent.indexes.get((index, write))
                if samples is None:
                    samples = spent.indexes[index, write] = stat()
                _sample(samples, units)
        return tuple(dict.fromkeys(table for table, _, _ in summed))

    @staticmethod
    def _count(spent: Spent, metric: str, operation: str) -> None:
        key = (metric, operation)
        spent.counts[key] = spent.counts.get(key, 0) + 1

    def paged(self, operation: str, table: Table, index: str, consistent: bool, scanned: int,
              returned: int, named: frozenset | None) -> None:
        """A Query or Scan (`operation`: a PartiQL SELECT counts as the one it is) read a
        page of `index` ("" the table); `named`: the top-level attributes it asked for
        (None: all there are)."""
        tally = self.tally(table)
        counts = tally.reads.get(index, _NONE).get(operation)
        if counts is None:
            counts = tally.reads.setdefault(index, {})[operation] = [0, 0, 0, 0, 0]
        counts[0] += 1
        counts[1] += consistent
        counts[2] += scanned
        counts[3] += returned
        if named is not None:
            counts[4] += 1
            tally.attributes.setdefault(index, set()).update(named)

    def item_read(self, table: Table, consistent: bool) -> None:
        """An item was read by its key (GetItem, BatchGetItem, PartiQL)."""
        reads = self.tally(table).item_reads
        reads[0] += 1
        reads[1] += consistent

    def throttled(self, table: Table, index: Index | None, write: bool, operation: str) -> None:
        """A request of `operation` was throttled (or would have been: shadow mode) by
        the budget of `table` or of its global secondary index `index`."""
        spent = self.current.spent(table)
        self._count(spent, THROTTLED_REQUESTS, operation)
        key = (index, write)
        spent.throttles[key] = spent.throttles.get(key, 0) + 1

    def expired(self, table: Table) -> None:
        """TTL deleted one item of `table`."""
        self._count(self.current.spent(table), TTL_DELETED, "")

    def invoked(self, function: str, region: str, seconds: float, failed: bool,
                throttled: bool, iterator_age_ms: float | None) -> None:
        """A trigger invoked `function` (AWS/Lambda's metrics: Invocations, Errors,
        Throttles, Duration, IteratorAge); a throttled call is not an invocation."""
        stats = self.current.functions.setdefault((region, function), {})
        samples = [("Throttles", 1.0)] if throttled else [
            ("Invocations", 1.0), ("Errors", float(failed)), ("Duration", seconds * 1000.0)]
        if iterator_age_ms is not None and not throttled:
            samples.append(("IteratorAge", iterator_age_ms))
        for metric, value in samples:
            _sample(stats.setdefault(metric, stat()), value)

    def complete(self) -> Period:
        """The last complete period."""
        self.roll()
        return self.last
