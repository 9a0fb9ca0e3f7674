"""DynamoDB's TableDescription of a table, as CreateTable, DescribeTable,
UpdateTable and DeleteTable return it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from okura import arns
from okura.core.catalog import ACTIVE, PRIVATE, Table
from okura.core.replication import group
from okura.operations.shared import replica_updates, table_settings

if TYPE_CHECKING:
    from okura.core.database import Database


async def describe(db: Database, table: Table, counts: bool = True,
                   status: str | None = None) -> dict:
    """The TableDescription as of now; `counts` False skips ItemCount and
    TableSizeBytes (zero in CreateTable's and DeleteTable's replies); `status`: the one a
    reply shows whatever the delay (CREATING, UPDATING, DELETING), else the table's."""
    now = db.clock.now()
    doc = table.doc
    description = {name: value for name, value in doc.items() if name not in PRIVATE}
    description["TableStatus"] = status or table.status(now)
    description["WarmThroughput"] = _warm(doc, description["TableStatus"])
    description["TableArn"] = table.arn
    ids = doc.get("IndexIds", {})
    stats = await db.catalog.stats((table.id, *ids.values())) if counts else {}
    description["ItemCount"], description["TableSizeBytes"] = stats.get(table.id, (0, 0))
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        if kind in description:
            description[kind] = [_index(table, index, stats.get(ids.get(index["IndexName"])))
                                 for index in description[kind]]
    if "VectorIndexes" in description:
        description["VectorIndexes"] = [
            _vector_index(table, index, stats.get(ids.get(index["IndexName"])))
            for index in description["VectorIndexes"]]
    if "LatestStreamLabel" in doc:
        description["LatestStreamArn"] = arns.stream(table.arn, doc["LatestStreamLabel"])
    if group.MEMBERS in doc:
        description["Replicas"] = await replica_updates.described(db, table)
    return description


def _warm(owner: dict, status: str) -> dict:
    """WarmThroughput as described: with its owner's status (tables created before okura
    kept it: the default, raised to their provisioned capacity)."""
    warm = owner.get("WarmThroughput") or table_settings.warm(
        None, None, owner.get("ProvisionedThroughput"))
    return dict(warm, Status=status)


def _index(table: Table, index: dict, stats: tuple[int, int] | None) -> dict:
    described = dict(index, IndexArn=arns.index(table.arn, index["IndexName"]))
    if index.get("IndexStatus") == ACTIVE:
        described.pop("Backfilling", None)  # recorded: an ACTIVE index has no Backfilling
    if "IndexStatus" in index:  # a global index
        described["WarmThroughput"] = _warm(index, index["IndexStatus"])
    if stats is not None:
        described["ItemCount"], described["IndexSizeBytes"] = stats
    return described


def _vector_index(table: Table, index: dict, stats: tuple[int, int] | None) -> dict:
    described = dict(index, IndexArn=arns.index(table.arn, index["IndexName"]))
    described["ItemCount"], described["IndexSizeBytes"] = stats or (0, 0)
    return described
