"""The partition keys' buckets (core/throughput.py, `_Keys`) kept in shards must decide
exactly as one bucket per key would: a key is throttled while its bucket, of one second
of its partition's limit, is empty. And they go with their table."""
from __future__ import annotations

import random

import pytest

from okura.core.capacity import Ledger
from okura.core.catalog import Table
from okura.core.clock import Clock
from okura.core.throughput import ENFORCE, SHARDS, Throughput, _Keys, shard_of
from okura.storage.keys import partition


class _PerKey:
    """The model: every key's own bucket, never forgotten."""

    def __init__(self) -> None:
        self.dry: dict[bytes, float] = {}

    def empty(self, hk: bytes, now: float) -> bool:
        return now <= self.dry.get(hk, -1e300)

    def spend(self, hk: bytes, share: float, now: float) -> None:
        self.dry[hk] = max(self.dry.get(hk, -1e300), now - 1.0) + share


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


def test_keys_spread_over_the_shards():
    used = {shard_of(partition("S", f"user#{i}")) for i in range(SHARDS)}
    assert len(used) > SHARDS / 2  # ~63 % for uniform shards


def test_a_deleted_table_takes_its_budgets_and_keys_with_it():
    doc = {"TableName": "t", "TableStatus": "ACTIVE",
           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
           "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
           "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}
    gate = Throughput(ENFORCE, Clock())
    table = Table(7, 1, "us-east-1", "000000000000", doc)
    gate.notice(table, 0.0)
    assert not gate.budgets()  # nothing is made before the table's first request
    ledger = Ledger()
    ledger.write(table, partition("S", "a"), 100)
    gate._hold(table, 0.0)  # what its first request's admission does
    gate.spend(ledger, 0)
    assert len(gate.budgets()) == 2 and table.id in gate._keys
    gate.notice(Table(7, 2, "us-east-1", "000000000000", dict(doc, TableStatus="DELETING")), 1.0)
    assert not gate.budgets() and table.id not in gate._keys
