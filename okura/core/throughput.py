"""Throughput that bites: what a table, a global secondary index and a partition key may
spend per second, and the gate that throttles what goes beyond (docs/throttling.md).

Each budget is a token bucket on okura's clock (a test moves the clock rather than
sleeping), kept as the time it runs dry (GCRA: admitting is one comparison, spending one
addition). As in DynamoDB, a request is admitted while its buckets hold anything at all,
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

With PostgreSQL, nodes share the table and GSI budgets: each spends from its own copy,
and every 0.1 s adds what it spent to the budget's row in the database and takes the
row's level (core/shared_budgets.py). Partition-key budgets stay per node.
"""
from __future__ import annotations

import itertools
import logging
from typing import TYPE_CHECKING

from okura import arns, errors
from okura.core import features
from okura.core.catalog import DELETING
from okura.core.metrics import Metrics
from okura.errors import DynamoError

if TYPE_CHECKING:
    from okura.core.capacity import Ledger
    from okura.core.catalog import Table
    from okura.core.context import Context
    from okura.core.database import Database
    from okura.core.indexes import Index
    from okura.storage.engine import Transaction

log = logging.getLogger("okura")

OFF, SHADOW, ENFORCE = "off", "shadow", "enforce"
MODES = (OFF, SHADOW, ENFORCE)
BURST_SECONDS = 300.0
PARTITION_READ, PARTITION_WRITE = 3000.0, 1000.0
ACCOUNT_TABLE_READ = ACCOUNT_TABLE_WRITE = 40000.0  # DescribeLimits' per-table quotas
WARM_READ, WARM_WRITE = 12000.0, 4000.0  # what a new on-demand table serves at once
PEAK_SETTLES = 1800.0  # seconds before a peak raises what on-demand serves at once
WARN_EVERY = 60.0  # seconds between shadow mode's warnings for one table
_EPOCHS = itertools.count()

_PROVISIONED, _ACCOUNT, _MAX, _WARM, _KEY_RANGE = range(5)
_LIMITS = {_PROVISIONED: "ProvisionedThroughputExceeded", _ACCOUNT: "AccountLimitExceeded",
           _MAX: "MaxOnDemandThroughputExceeded", _KEY_RANGE: "KeyRangeThroughputExceeded"}


class Bucket:
    """Units a budget may spend: `rate` a second, up to `window` seconds of them kept. Its
    level at time t is min(rate * window, (t - dry) * rate): below zero once overdrawn."""

    __slots__ = ("rate", "window", "dry", "limit")

    def __init__(self, rate: float, window: float, now: float, limit: int) -> None:
        self.rate = rate
        self.window = window
        self.dry = now - window  # full
        self.limit = limit  # which of DynamoDB's limits this bucket is (_PROVISIONED, ...)

    def level(self, now: float) -> float:
        return min(self.rate * self.window, (now - self.dry) * self.rate)

    def rerate(self, rate: float, window: float, level: float, now: float) -> None:
        """Keep `level` (at most the new capacity) at a new rate."""
        self.rate = rate
        self.window = window
        self.dry = now - min(level, rate * window) / rate


class Budget:
    """One table's or GSI's read or write budget; on demand, also what it serves at once:
    the warm throughput or twice its highest settled second, up to its `ceiling`."""

    __slots__ = ("bucket", "on_demand", "warm", "ceiling", "ceiling_limit", "second", "used",
                 "rising", "settled", "spent")

    def __init__(self, bucket: Bucket, warm: float = 0.0, ceiling: float = 0.0,
                 ceiling_limit: int = _PROVISIONED) -> None:
        self.bucket = bucket
        self.on_demand = ceiling > 0
        self.warm = warm
        self.ceiling = ceiling  # on demand: the maximum, or the account's quota
        self.ceiling_limit = ceiling_limit  # _MAX or _ACCOUNT
        self.second = -1  # on demand: the second `used` counts
        self.used = 0.0
        self.rising: list[tuple[float, float]] = []  # (second, units) of rising peaks
        self.settled = 0.0  # the highest second that is PEAK_SETTLES old
        self.spent = 0.0  # units this node has spent, ever (core/shared_budgets.py)

    def count(self, units: float, now: float) -> None:
        """On demand: count `units` spent at `now` towards this second's traffic."""
        second = int(now)
        if second != self.second:
            self.next_second(now, second)
        self.used += units

    def next_second(self, now: float, second: int) -> None:
        """On demand: the second `used` counted is over (note it if it is a new peak, and
        settle the peaks old enough); `second` is now counted."""
        if self.used and (not self.rising or self.used > self.rising[-1][1]):
            self.rising.append((self.second, self.used))
        settled = self.settled
        while self.rising and now - self.rising[0][0] >= PEAK_SETTLES:
            settled = max(settled, self.rising.pop(0)[1])
        if settled != self.settled:
            self.settled = settled
            self.serve(now)
        self.second, self.used = second, 0.0

    def serve(self, now: float) -> None:
        """Set the rate to what on demand serves at once."""
        served = max(self.warm, 2 * self.settled)
        bucket = self.bucket
        if served >= self.ceiling:
            served, bucket.limit = self.ceiling, self.ceiling_limit
        else:
            bucket.limit = _WARM
        bucket.rerate(served, 1.0, bucket.level(now), now)


class _Shard:
    """The partition keys of one shard of a table's reads or writes (`shard_of`). `dry` is
    when the shard's spending, taken as one key's, runs dry: no key of the shard runs dry
    later, so while now is past it no key is looked up, and once now is a second past it
    every key of the shard is full (forgotten). Until a second key spends before then,
    the one key is `hk` and runs dry at `dry`: no dict, in the common case of keys far
    below their limit. Else `keys`: key -> when its bucket runs dry (a key not there is
    full), its full keys dropped once a second (`turn`)."""

    __slots__ = ("dry", "hk", "keys", "turn")

    def __init__(self) -> None:
        self.dry = -1e300  # full
        self.hk = b""
        self.keys: dict[bytes, float] | None = None
        self.turn = 0.0


SHARDS = 1024  # the shards of a table's partition keys (reads or writes)


def shard_of(hk: bytes) -> int:
    """A partition key's shard: its stored bytes start with a hash of its value
    (storage/keys.py), uniform, and cheaper to read than to hash again."""
    return (hk[0] << 8 | hk[1]) % SHARDS


class _Keys:
    """The buckets of one table's partition keys for reads or writes, in SHARDS shards:
    exact, yet a key far below its limit costs no dict look-up (docs/decisions.md,
    Capacity and throttling)."""

    __slots__ = ("shards",)

    def __init__(self) -> None:
        self.shards: list[_Shard | None] = [None] * SHARDS

    def empty(self, hk: bytes, now: float) -> bool:
        """Whether `hk`'s bucket is empty at `now`."""
        shard = self.shards[shard_of(hk)]
        if shard is None or now > shard.dry:
            return False
        keys = shard.keys
        if keys is None:
            return shard.hk == hk
        dry = keys.get(hk)
        return dry is not None and now <= dry

    def spend(self, hk: bytes, share: float, now: float) -> None:
        """`hk` spent `share` of its partition's second at `now`."""
        at = shard_of(hk)
        shard = self.shards[at]
        if shard is None:
            shard = self.shards[at] = _Shard()
        floor = now - 1.0
        if shard.dry <= floor:  # every key of the shard is full
            shard.dry, shard.hk, shard.keys = floor + share, hk, None
            return
        keys = shard.keys
        if keys is None:
            if shard.hk == hk:
                shard.dry += share
                return
            keys = shard.keys = {shard.hk: shard.dry}
            shard.turn = now + 1.0
        elif now >= shard.turn:  # drop the full keys, and bound the rest anew
            keys = shard.keys = {key: dry for key, dry in keys.items() if dry > floor}
            shard.dry = max(keys.values(), default=floor)
            shard.turn = now + 1.0
        dry = keys.get(hk, floor)
        keys[hk] = (dry if dry > floor else floor) + share
        shard.dry += share


class _Side:
    """A table's reads or writes: its budget, its partition keys' buckets and a unit's
    share of a partition's second."""

    __slots__ = ("budget", "keys", "per_unit")

    def __init__(self, budget: Budget, keys: _Keys, per_unit: float) -> None:
        self.budget = budget
        self.keys = keys
        self.per_unit = per_unit


class Held:
    """What the gate needs of one table document (`table`: kept by its id in
    Throughput._held), while the gate's `epoch` is the one it was made in."""

    __slots__ = ("table", "epoch", "off", "mode", "read", "write", "indexes", "gsi_writes")

    def __init__(self, table: Table, epoch: int, mode: str, read: Budget, write: Budget,
                 gsis: list[tuple[Index, Budget, Budget]],
                 keys: tuple[_Keys, _Keys]) -> None:
        self.table = table
        self.epoch = epoch
        self.off = mode == OFF
        self.mode = mode
        self.read = _Side(read, keys[0], _PER_READ_UNIT)
        self.write = _Side(write, keys[1], _PER_WRITE_UNIT)
        # GSI name -> (read, write) budgets; and each GSI with its write budget
        self.indexes = {index.name: (reads, writes) for index, reads, writes in gsis}
        self.gsi_writes = tuple((index, writes) for index, _, writes in gsis)


@features.register
class Throughput(features.Feature):
    """Every budget of this node, and the gate: `on` while any table may be throttled
    (the hot paths' one test: `gate = db.features[Throughput]`, then `gate.on`)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.mode = OFF  # every table's mode but those overridden (`throttle`)
        self.on = False
        self.clock = db.clock
        # Budgets count what they spent only where nodes share them (core/shared_budgets.py),
        # and so does `spent`, their sum: whether any has anything to share
        self.shared = db.engine.shared
        self.spent = 0.0
        self.overrides: dict[str, str] = {}  # table name -> mode (admin endpoint)
        # (table id, index name or None, write) -> (table version, Budget)
        self._budgets: dict[tuple[int, str | None, bool], tuple[int, Budget]] = {}
        # Table documents' Held from an earlier epoch (before a mode changed, or of
        # another Throughput) are stale
        self.epoch = next(_EPOCHS)
        self._keys: dict[int, tuple[_Keys, _Keys]] = {}
        self._held: dict[int, Held] = {}  # table id -> Held of the document last seen
        self._warned: dict[int, float] = {}
        # okura's clock as the latest request admitted arrived (Context.now): what the work
        # admitted then spends at (the same moment to a millisecond, and no clock reading)
        self.now = 0.0

    def throttle(self, mode: str | None, table: str | None = None) -> None:
        """Set the throttling mode of every table, or of one table by name (`mode` None:
        it follows every table's again)."""
        if table is None:
            assert mode is not None  # every table has a mode
            self.mode = mode
        elif mode is None:
            self.overrides.pop(table, None)
        else:
            self.overrides[table] = mode
        self.epoch = next(_EPOCHS)
        self.on = self.mode != OFF or any(m != OFF for m in self.overrides.values())

    def notice(self, table: Table) -> None:
        """A table document was loaded or saved: a table with budgets here takes its new
        throughput at once, not at its next request (its budgets would fill at the old
        rate until then). A table being deleted takes its budgets with it."""
        if not self.on:
            return
        if table.doc["TableStatus"] == DELETING:
            self._forget(table.id)
            return
        held = self._held.get(table.id)
        if table.id in self._keys and (held is None or held.table is not table
                                       or held.epoch != self.epoch):
            self._hold(table, self.clock.now())

    async def drop(self, unit: Transaction, table: Table) -> None:
        self._forget(table.id)

    def _forget(self, tid: int) -> None:
        self._keys.pop(tid, None)
        self._held.pop(tid, None)
        self._warned.pop(tid, None)
        for key in [key for key in self._budgets if key[0] == tid]:
            del self._budgets[key]

    # The gate, before the work
    def admit(self, ctx: Context, table: Table, hk: bytes | None, write: bool,
              index: Index | None = None, raising: bool = True) -> DynamoError | None:
        """Let a read or write of `table` (of its index `index`; of partition key `hk`)
        go on, or throttle it: DynamoDB's error, raised or (`raising` False: a batch
        leaves the item unprocessed) returned, in enforce mode; counted and logged in
        shadow mode."""
        now = ctx.now or self.clock.now()
        if now < self.now:  # it waited since it arrived: the gate's time never goes back
            now = self.now  # (the shards forget keys by it)
        self.now = now
        held = self._held.get(table.id)
        if held is None or held.table is not table or held.epoch != self.epoch:
            held = self._hold(table, now)
        if held.off:
            return None
        if index is None or not index.is_global:  # the table's budgets (an LSI's are its)
            side = held.write if write else held.read
            bucket = side.budget.bucket
            if now <= bucket.dry:
                return self._refused(ctx, held, table, None, None, write, bucket.limit, now,
                                     raising)
            if hk is not None and side.keys.empty(hk, now):
                return self._refused(ctx, held, table, None, hk, write, _KEY_RANGE, now,
                                     raising)
            if write:
                for other, writes in held.gsi_writes:  # a GSI short of write capacity
                    if now <= writes.bucket.dry:
                        return self._refused(ctx, held, table, other, None, True,
                                             writes.bucket.limit, now, raising)
            return None
        bucket = held.indexes[index.name][write].bucket
        if now <= bucket.dry:
            return self._refused(ctx, held, table, index, None, write, bucket.limit, now,
                                 raising)
        return None

    def _refused(self, ctx: Context, held: Held, table: Table, index: Index | None,
                 hk: bytes | None, write: bool, limit: int, now: float,
                 raising: bool) -> DynamoError | None:
        ctx.throttled = (table, index, hk)
        ctx.db.features[Metrics].throttled(table, index, write, ctx.operation)
        if held.mode == SHADOW:
            # the error is only made for the warning: under a load past the budget, every
            # request comes here
            last = self._warned.get(table.id)
            if last is None or now - last >= WARN_EVERY:
                self._warned[table.id] = now
                log.warning("throttling (shadow): %s of table %s would be throttled: %s",
                            ctx.operation, table.name, _error(table, index, write, limit).message)
            return None
        error = _error(table, index, write, limit)
        if raising:
            raise error
        return error

    # Spending, after the work
    def spend(self, ledger: Ledger, start: int) -> None:
        """Take the charges from `start` on (work just admitted and done) from their
        budgets."""
        now = self.now
        epoch = self.epoch
        shared = self.shared
        charges = ledger.charges
        held_by_id = self._held
        for i in range(start, len(charges)):  # not a slice: no list made
            table, index, hk, units, write = charges[i]
            held = held_by_id.get(table.id)
            if held is None or held.epoch != epoch or held.off:
                continue
            if index is None or not index.is_global:
                side = held.write if write else held.read
                budget = side.budget
                if hk is not None:  # its partition keeps one second of its limit
                    side.keys.spend(hk, units * side.per_unit, now)
            else:
                budget = held.indexes[index.name][write]
            # the bucket runs dry later by units / rate, from a full one at most
            bucket = budget.bucket
            floor = now - bucket.window
            dry = bucket.dry
            bucket.dry = (dry if dry > floor else floor) + units / bucket.rate
            if shared:
                budget.spent += units
                self.spent += units
            if budget.on_demand:
                budget.count(units, now)

    def budgets(self) -> list[tuple[str, int, Budget]]:
        """Every budget this node holds: its `budget_key`, the version of the table
        document it follows, and the budget (core/shared_budgets.py)."""
        return [(budget_key(tid, index, write), version, budget)
                for (tid, index, write), (version, budget) in self._budgets.items()]

    def _hold(self, table: Table, now: float) -> Held:
        keys = self._keys.get(table.id)
        if keys is None:
            keys = self._keys[table.id] = (_Keys(), _Keys())
        mode = self.overrides.get(table.name, self.mode)
        gsis = [(index, self._budget(table, index, False, now),
                 self._budget(table, index, True, now))
                for index in table.indexes if index.is_global]
        held = self._held[table.id] = Held(table, self.epoch, mode,
                                           self._budget(table, None, False, now),
                                           self._budget(table, None, True, now), gsis, keys)
        return held

    # Budgets, made as they are first needed and again when the table document changes
    def _budget(self, table: Table, index: Index | None, write: bool, now: float) -> Budget:
        name = None if index is None else index.name
        held = self._budgets.get((table.id, name, write))
        if held is not None and held[0] == table.version:
            return held[1]
        budget = self._make(table, name, write, now)
        if held is not None:  # keep what the old budget had spent, and on demand its peaks
            old = held[1]
            bucket = budget.bucket
            bucket.rerate(bucket.rate, bucket.window, old.bucket.level(now), now)
            budget.rising, budget.settled = old.rising, old.settled
            budget.second, budget.used, budget.spent = old.second, old.used, old.spent
            if budget.on_demand:
                budget.serve(now)
        self._budgets[table.id, name, write] = (table.version, budget)
        return budget

    def _make(self, table: Table, index_name: str | None, write: bool, now: float) -> Budget:
        doc = table.doc if index_name is None else next(
            index for index in table.doc.get("GlobalSecondaryIndexes", ())
            if index["IndexName"] == index_name)
        kind = "Write" if write else "Read"
        if not _on_demand(table):
            rate = float(doc.get("ProvisionedThroughput", {}).get(f"{kind}CapacityUnits", 0))
            return Budget(Bucket(max(rate, 1e-9), BURST_SECONDS, now, _PROVISIONED))
        maximum = doc.get("OnDemandThroughput", {}).get(f"Max{kind}RequestUnits", -1)
        account = ACCOUNT_TABLE_WRITE if write else ACCOUNT_TABLE_READ
        warm = doc.get("WarmThroughput", {}).get(f"{kind}UnitsPerSecond") or 0
        warm = max(float(warm), WARM_WRITE if write else WARM_READ)
        if maximum is not None and 0 < maximum < account:
            ceiling, limit = float(maximum), _MAX
        else:
            ceiling, limit = account, _ACCOUNT
        budget = Budget(Bucket(warm, 1.0, now, limit), warm, ceiling, limit)
        budget.serve(now)
        return budget


def budget_key(tid: int, index: str | None, write: bool) -> str:
    """A budget's name among nodes: table id, index name (empty: the table), 1 for writes."""
    return f"{tid} {index or ''} {int(write)}"


_PER_WRITE_UNIT, _PER_READ_UNIT = 1 / PARTITION_WRITE, 1 / PARTITION_READ


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
    resource = table.arn if index is None else arns.index(table.arn, index.name)
    reasons = [{"reason": reason, "resource": resource}]
    if limit == _MAX:
        return errors.throttling(reasons)
    if limit == _ACCOUNT:
        return errors.request_limit_exceeded(reasons)
    return errors.provisioned_throughput_exceeded(reasons)
