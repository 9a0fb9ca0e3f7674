"""The partition keys' buckets (core/throughput.py, `_Keys`) kept in shards must decide
exactly as one bucket per key would: a key is throttled while its bucket, of one second
of its partition's limit, is empty. And they go with their table."""
from __future__ import annotations

import random

import pytest

from okura.core.capacity import Ledger
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.database import Database
from okura.core.throughput import ENFORCE, SHARDS, Throughput, _Keys, shard_of
from okura.storage.keys import partition
from okura.storage.memory import MemoryEngine


class _PerKey:
    """The model: every key's own bucket, never forgotten."""

    def __init__(self) -> None:
        self.dry: dict[bytes, float] = {}

    def empty(self, hk: bytes, now: float) -> bool:
        return now <= self.dry.get(hk, -1e300)

    def spend(self, hk: bytes, share: float, now: float) -> None:
        self.dry[hk] = max(self.dry.get(hk, -1e300), now - 1.0) + share


_DOC = {"TableName": "t", "TableStatus": "ACTIVE",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}
_STEPS, _WEIGHTS = (0.0, 0.0001, 0.001, 0.01, 0.3, 1.5), (30, 30, 20, 10, 2, 1)


@pytest.mark.parametrize("seed", range(6))
def test_shards_decide_as_one_bucket_per_key(seed):
    rng = random.Random(seed)
    # more keys than shards, so that shards hold several (their dicts), and a few hot
    # keys that run their buckets dry; steps short and long, so shards fill again and
    # their dicts' full keys are dropped
    keys = [partition("S", f"k{i}") for i in range(SHARDS * 3)]
    hot = keys[:5]
    sharded, model = _Keys(), _PerKey()
    now, throttled, decided = 1000.0, 0, 0
    for _ in range(40_000):
        now += rng.choices(_STEPS, _WEIGHTS)[0]
        hk = rng.choice(hot) if rng.random() < 0.5 else rng.choice(keys)
        empty = model.empty(hk, now)
        assert sharded.empty(hk, now) == empty, (hk, now)
        decided += 1
        if empty:
            throttled += 1
        else:  # a throttled request spends nothing
            share = rng.choice((0.001, 0.01, 0.1, 0.4, 0.9))
            sharded.spend(hk, share, now)
            model.spend(hk, share, now)
    assert 0 < throttled < decided / 2  # both kinds of decision were checked


def test_a_key_alone_in_its_shard_keeps_no_dict():
    keys, hk = _Keys(), partition("S", "a")
    keys.spend(hk, 0.5, 10.0)
    keys.spend(hk, 0.6, 10.1)  # 1.1 s of its second spent by 10.1: empty until 10.1
    shard = keys.shards[shard_of(hk)]
    assert shard is not None and shard.keys is None
    assert keys.empty(hk, 10.1) and not keys.empty(hk, 10.11)


def test_a_shard_of_many_keys_is_bounded_anew_every_second():
    """Keys that together outspend one key's limit, none of them near its own: the
    shard's bound, their sum, runs ahead of now, but is brought back to its keys' own
    once a second, as its full keys are dropped."""
    first = partition("S", "k0")
    same = [hk for hk in (partition("S", f"k{i}") for i in range(200_000))
            if shard_of(hk) == shard_of(first)][:50]
    keys, model, now = _Keys(), _PerKey(), 100.0
    for step in range(5000):  # 5 s; each key spends a tenth of its limit a second
        now += 0.001
        hk = same[step % len(same)]
        assert not keys.empty(hk, now) and not model.empty(hk, now)
        keys.spend(hk, 0.005, now)
        model.spend(hk, 0.005, now)
    shard = keys.shards[shard_of(first)]
    # at most the sum of its last second (5 s of one key's limit) past now; left a sum
    # since the start it would be ~20 s past
    assert shard is not None and shard.dry < now + 5.0


def test_keys_spread_over_the_shards():
    used = {shard_of(partition("S", f"user#{i}")) for i in range(SHARDS)}
    assert len(used) > SHARDS / 2  # ~63 % for uniform shards


def _gate(db: Database) -> Throughput:
    gate = db.features[Throughput]
    gate.throttle(ENFORCE)
    return gate


def test_a_deleted_table_takes_its_budgets_and_keys_with_it():
    gate = _gate(Database(MemoryEngine(), "000000000000"))
    table = Table(7, 1, "us-east-1", "000000000000", _DOC)
    gate.notice(table)
    assert not gate.budgets()  # nothing is made before the table's first request
    ledger = Ledger()
    ledger.write(table, partition("S", "a"), 100)
    gate._hold(table, 0.0)  # what its first request's admission does
    gate.spend(ledger, 0)
    assert len(gate.budgets()) == 2 and table.id in gate._keys
    gate.notice(Table(7, 2, "us-east-1", "000000000000", dict(_DOC, TableStatus="DELETING")))
    assert not gate.budgets() and table.id not in gate._keys


def test_the_gates_time_never_goes_back():
    """A request that waited since it arrived (an injected latency, a slow catalog) is
    admitted at the latest time the gate has seen, not before it: the shards forget
    keys by that time."""
    db = Database(MemoryEngine(), "000000000000")
    gate = _gate(db)
    table = Table(7, 1, "us-east-1", "000000000000", _DOC)
    hk = partition("S", "a")
    for arrived, decided in ((100.0, 100.0), (98.0, 100.0), (101.0, 101.0)):
        ctx = Context(db, "PutItem", "us-east-1")
        ctx.now = arrived
        assert gate.admit(ctx, table, hk, True, raising=False) is None
        assert gate.now == decided
