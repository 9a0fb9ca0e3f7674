"""A table's monthly cost under AWS's published pricing rules, from its observed traffic
extrapolated or from rates the user gives, with prices from the dated data files in
prices/ (one per region; docs/advisor.md says how to update them).

- On demand: read and write request units, per million (observed units are request
  units: an eventually consistent read is half a unit).
- Provisioned: capacity units per hour, sized to the traffic at a target utilisation
  (70 %, auto scaling's default), and as declared; with 1-year reserved capacity in
  blocks of 100 units (Standard class only), the remainder at the hourly rate.
- Storage by table class, indexes' included; point-in-time recovery on the table's size;
  on-demand backups on their size; stream reads per 100,000 (Lambda triggers' are free,
  so only those the user states); global tables' replicated writes per replica; vector
  indexes' storage where the price file has `vector_storage_gb_month` (None otherwise:
  no vector prices are published in the files yet).
A month is 730 hours, as AWS's calculator counts; a GB is 2^30 bytes. The free tier is
not subtracted: it is per account, not per table.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from okura.advisor.model import TableView

HOURS = 730.0
SECONDS = HOURS * 3600.0
GB = float(1024 ** 3)
UTILISATION = 0.7
STANDARD, IA = "STANDARD", "STANDARD_INFREQUENT_ACCESS"
PRICES = Path(__file__).with_name("prices")


@dataclass
class Rates:
    """Traffic and sizes the user states (None: observe them); per table."""
    reads_per_second: float | None = None  # read request units (4 KB strongly consistent)
    writes_per_second: float | None = None  # write request units (1 KB)
    storage_gb: float | None = None
    stream_reads_per_second: float = 0.0  # GetRecords calls, outside Lambda triggers
    backup_gb: float | None = None
    replicas: int | None = None  # other regions of a global table


@cache
def prices(region: str) -> dict:
    """The region's price file, us-east-1's for a region without one."""
    path = PRICES / f"{region}.json"
    if not path.exists():
        path = PRICES / "us-east-1.json"
    return json.loads(path.read_text(encoding="utf-8"))


def _traffic(table: TableView, rates: Rates) -> tuple[float, float, float, float, bool]:
    """(table reads, table writes, index reads, index writes) per second, and whether
    any traffic is known."""
    usage = table.usage
    observed = usage is not None and usage.seconds > 0
    reads = writes = index_reads = index_writes = 0.0
    if observed:
        assert usage is not None
        reads, writes = usage.units(False) / usage.seconds, usage.units(True) / usage.seconds
        index_reads = sum(r for r, _ in usage.index_units.values()) / usage.seconds
        index_writes = sum(w for _, w in usage.index_units.values()) / usage.seconds
    if rates.reads_per_second is not None:
        reads, index_reads = rates.reads_per_second, 0.0
    if rates.writes_per_second is not None:
        # every GSI takes a copy of each write (a whole-item write projects into all)
        writes = rates.writes_per_second
        index_writes = writes * len(table.indexes())
    known = observed or rates.reads_per_second is not None or rates.writes_per_second is not None
    return reads, writes, index_reads, index_writes, known


def _storage_gb(table: TableView, rates: Rates) -> tuple[float, float]:
    """(table GB, indexes' GB)."""
    if rates.storage_gb is not None:
        return rates.storage_gb, 0.0
    indexes = sum(index.get("IndexSizeBytes") or 0 for index in table.indexes())
    return (table.description.get("TableSizeBytes") or 0) / GB, indexes / GB


def _provisioned(units: float, hour: float) -> float:
    return max(1, math.ceil(units / UTILISATION)) * hour * HOURS


def _reserved(units: float, hour: float, reserved: dict) -> float | None:
    needed = max(1, math.ceil(units / UTILISATION))
    blocks = needed // 100
    if not blocks:
        return None
    return blocks * (reserved["upfront"] / 12 + reserved["hour"] * HOURS) \
        + (needed - blocks * 100) * hour * HOURS


def _declared(table: TableView) -> tuple[float, float]:
    """Provisioned (read, write) capacity the table and its GSIs declare."""
    reads = writes = 0.0
    for part in (table.description, *table.indexes()):
        throughput = part.get("ProvisionedThroughput") or {}
        reads += _number(throughput.get("ReadCapacityUnits"))
        writes += _number(throughput.get("WriteCapacityUnits"))
    return reads, writes


def _number(value) -> float:
    """A figure as declared; 0 for one a template leaves to a variable or a function."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _replicas(table: TableView, rates: Rates) -> int:
    if rates.replicas is not None:
        return rates.replicas
    return max(0, len(table.description.get("Replicas") or ()) - 1)


def _class_costs(table: TableView, rates: Rates, price: dict, table_class: str) -> dict:
    p = price[table_class]
    reads, writes, index_reads, index_writes, _ = _traffic(table, rates)
    all_reads, all_writes = reads + index_reads, writes + index_writes
    on_demand = (all_reads * p["read_request_unit_per_million"]
                 + all_writes * p["write_request_unit_per_million"]) * SECONDS / 1e6
    provisioned = _provisioned(all_reads, p["rcu_hour"]) + _provisioned(all_writes, p["wcu_hour"])
    reserved = None
    if table_class == STANDARD:
        read_cost = _reserved(all_reads, p["rcu_hour"], price["reserved_100_rcu"])
        write_cost = _reserved(all_writes, p["wcu_hour"], price["reserved_100_wcu"])
        if read_cost is not None or write_cost is not None:
            reserved = ((read_cost if read_cost is not None
                         else _provisioned(all_reads, p["rcu_hour"]))
                        + (write_cost if write_cost is not None
                           else _provisioned(all_writes, p["wcu_hour"])))
    declared_reads, declared_writes = _declared(table)
    declared = (declared_reads * p["rcu_hour"] + declared_writes * p["wcu_hour"]) * HOURS
    table_gb, index_gb = _storage_gb(table, rates)
    replicas = _replicas(table, rates)
    on_demand_mode = table.billing_mode() != "PROVISIONED"
    replicated = replicas * (
        writes * SECONDS / 1e6 * p["replicated_write_request_unit_per_million"]
        if on_demand_mode else _provisioned(writes, p["replicated_wcu_hour"]))
    throughput = on_demand if on_demand_mode else (declared or provisioned)
    index_share = (index_reads * p["read_request_unit_per_million"]
                   + index_writes * p["write_request_unit_per_million"]) * SECONDS / 1e6
    if not on_demand_mode and all_reads + all_writes:
        index_share = throughput * (index_reads + index_writes) / (all_reads + all_writes)
    return {"on_demand": on_demand, "provisioned": provisioned, "provisioned_reserved": reserved,
            "provisioned_declared": declared, "storage": (table_gb + index_gb)
            * p["storage_gb_month"], "indexes": index_share + index_gb * p["storage_gb_month"],
            "replicated_writes": replicated, "throughput": throughput}


def monthly(table: TableView, rates: Rates, region: str) -> dict | None:
    """The table's cost lines per month (None: its size and traffic are both unknown)."""
    reads, writes, index_reads, index_writes, known = _traffic(table, rates)
    table_gb, index_gb = _storage_gb(table, rates)
    if not known and not table_gb + index_gb:
        return None
    price = prices(region)
    current = table.table_class()
    other = IA if current == STANDARD else STANDARD
    costs = _class_costs(table, rates, price, current)
    alternative = _class_costs(table, rates, price, other)
    pitr = table_gb * price["pitr_gb_month"] if (table.pitr or {}).get("Enabled") else 0.0
    backup_gb = rates.backup_gb if rates.backup_gb is not None else (table.backup_bytes or 0) / GB
    backups = backup_gb * price["backup_gb_month"]
    stream = (table.description.get("StreamSpecification") or {}).get("StreamEnabled")
    streams = (rates.stream_reads_per_second * SECONDS / 1e5
               * price["stream_read_request_units_per_100k"]) if stream else 0.0
    # vector indexes: their size is known, their prices only where the price file has them
    vector_indexes = table.description.get("VectorIndexes") or ()
    vector_gb = sum(index.get("IndexSizeBytes") or 0 for index in vector_indexes) / GB
    vector_price = price.get("vector_storage_gb_month")
    vectors = None if vector_price is None else vector_gb * vector_price
    fixed = pitr + backups + streams + (vectors or 0.0)

    def total(lines: dict) -> float:
        return lines["throughput"] + lines["storage"] + lines["replicated_writes"] + fixed

    out = {"table": table.name, "table_class": current, "billing_mode": table.billing_mode(),
           "traffic_known": known, "reads_per_second": reads, "writes_per_second": writes,
           "index_reads_per_second": index_reads, "index_writes_per_second": index_writes,
           "storage_gb": table_gb + index_gb, **costs, "pitr": pitr, "backups": backups,
           "streams": streams, "total": total(costs), "other_class": other,
           "other_class_total": total(alternative)}
    if vector_indexes:
        out.update(vector_storage_gb=vector_gb, vectors=vectors)
    return {key: round(value, 4) if isinstance(value, float) else value
            for key, value in out.items()}


def estimate(tables: list[TableView], rates: Rates, region: str) -> dict:
    """The report's "cost" member."""
    price = prices(region)
    lines = [line for line in (monthly(table, rates, region) for table in tables) if line]
    return {"region": price["region"], "currency": price["currency"],
            "prices_date": price["date"], "prices_source": price["source"],
            "hours_per_month": HOURS, "tables": lines,
            "total": round(sum(line["total"] for line in lines), 4)}
