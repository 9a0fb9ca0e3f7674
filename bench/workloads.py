"""The workloads: what table each needs, what is preloaded, how it is driven.

Every workload gets a fresh table created through the DynamoDB API and dropped
afterwards, so one workload's items never slow the next (moto keeps all in memory).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dynamo import Client, item


@dataclass(frozen=True)
class Scale:
    keys: int  # preloaded items for GetItem and the 80/20 mix; Query gets keys // 10 partitions
    scan_items: int
    counters: int = 1000  # distinct atomic counters UpdateItem spreads over


@dataclass(frozen=True)
class Workload:
    name: str  # --only takes these
    title: str
    items_per_request: int
    range_key: tuple[str, str] | None = None
    # Writes the preloaded items; returns the key count the load generator picks from.
    preload: Callable[[Client, str, Scale], int] = lambda client, table, scale: 0
    script: str | None = None  # bench/lua/<script>.lua driven by wrk; None: the Scan loop

    @property
    def table(self) -> str:
        return "bench_" + self.name


def _items(client: Client, table: str, scale: Scale) -> int:
    client.batch_write(table, (item({"pk": {"S": f"k{n}"}}) for n in range(scale.keys)))
    return scale.keys


def _partitions(client: Client, table: str, scale: Scale) -> int:
    partitions = max(1, scale.keys // 10)
    client.batch_write(
        table,
        (item({"pk": {"S": f"p{p}"}, "sk": {"N": str(s)}}) for p in range(partitions) for s in range(10)),
    )
    return partitions


def _scan_items(client: Client, table: str, scale: Scale) -> int:
    client.batch_write(table, (item({"pk": {"S": f"s{n}"}}) for n in range(scale.scan_items)))
    return scale.scan_items


WORKLOADS = [
    Workload("put_item", "PutItem, ~200 B item, fresh key", 1, script="put_item"),
    Workload("get_item", "GetItem of an existing key", 1, preload=_items, script="get_item"),
    Workload("query", "Query returning the 10 items of a random partition", 10,
             range_key=("sk", "N"), preload=_partitions, script="query"),
    Workload("update_item", "UpdateItem atomic counter (ADD, UPDATED_NEW)", 1,
             preload=lambda client, table, scale: scale.counters, script="update_item"),
    Workload("delete_item", "DeleteItem of a random preloaded key (ALL_OLD)", 1, preload=_items,
             script="delete_item"),
    Workload("batch_write", "BatchWriteItem of 25 fresh ~200 B items", 25, script="batch_write"),
    Workload("mix", "80/20 GetItem/PutItem", 1, preload=_items, script="mix"),
    Workload("scan", "Scan of the whole table in pages (LastEvaluatedKey)", 1, preload=_scan_items),
    # Growth: the same PutItem into a table already holding --keys items (not in the default run).
    Workload("put_loaded", "PutItem, fresh key, into a table of --keys items", 1, preload=_items,
             script="put_item"),
]
DEFAULT = [workload.name for workload in WORKLOADS
           if workload.name not in ("put_loaded", "delete_item")]
BY_NAME = {workload.name: workload for workload in WORKLOADS}
