"""GET /metrics: this node's DynamoDB metrics in Prometheus's text format, named as the
Prometheus CloudWatch exporter names DynamoDB's CloudWatch metrics, so dashboards
built on it work unchanged (docs/metrics.md).

The exporter turns each CloudWatch metric and statistic into a gauge named
aws_dynamodb_<metric in snake case>_<statistic> (sum, sample_count, average, minimum,
maximum) holding the statistic over the last complete period, labelled job, instance
and the metric's dimensions in snake case (table_name, operation,
global_secondary_index_name); okura adds region, since one okura serves them all.
"""
from __future__ import annotations

import math
import re
from typing import Iterator

import orjson

from okura.core import jobs, metrics
from okura.core.catalog import Table
from okura.core.consistency.lag import Lag
from okura.core.database import Database
from okura.core.index_jobs import progress
from okura.core.insights import Insights
from okura.core.metrics import Metrics
from okura.core.replication.applier import Replicas

PATH = b"/metrics"
CONTENT_TYPE = b"text/plain; version=0.0.4; charset=utf-8"
_STATISTICS = (("sum", "Sum"), ("sample_count", "SampleCount"), ("average", "Average"),
               ("minimum", "Minimum"), ("maximum", "Maximum"))
_DIMENSIONS = {"table_name": "TableName", "operation": "Operation",
               "global_secondary_index_name": "GlobalSecondaryIndexName",
               "function_name": "FunctionName", "receiving_region": "ReceivingRegion"}
_UNITS = {"SuccessfulRequestLatency": "Milliseconds", "OnlineIndexPercentageProgress": "Percent",
          "Duration": "Milliseconds", "IteratorAge": "Milliseconds", "ReplicationLatency": "Milliseconds"}
GLOBAL = "GlobalSecondaryIndexes"

# (CloudWatch metric, labels other than job and instance) -> statistic set
Series = dict[tuple[str, tuple[tuple[str, str], ...]], metrics.Stat]


def snake(name: str) -> str:
    """The exporter's snake case: ConsumedReadCapacityUnits -> consumed_read_capacity_units."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


async def reply(db: Database) -> tuple[int, bytes]:
    """(status, body) of GET /metrics."""
    return 200, await page(db)


async def page(db: Database) -> bytes:
    series: Series = {}
    period = db.features[Metrics].complete()
    for table, spent in period.tables.items():
        _spent(series, table, spent)
    for region, count in period.user_errors.items():
        _merge(series, "UserErrors", (("region", region),), [count, count, 1, 1])
    for table in await db.catalog.every():
        _settings(series, table)
    for (name, source, target), stat in db.features[Replicas].latencies().items():
        series["ReplicationLatency", (("table_name", name), ("receiving_region", target),
                                      ("region", source))] = list(stat)
    functions: Series = {}
    for (region, name), stats in period.functions.items():
        for metric, stat in stats.items():
            functions[metric, (("function_name", name), ("region", region))] = stat
    return "".join((*_render(series), *_render(functions, "AWS/Lambda"),
                    *_denials(db.features[Metrics].access_denials),
                    *_injected(db.features[Metrics].injected_faults),
                    *_insights(db), *lagging(db),
                    *_jobs(await jobs.pending(db)))).encode()


def _jobs(pending: list[dict]) -> Iterator[str]:
    """okura's own gauges of its background jobs (backups, restores, exports, ...): the
    units each has done and, where it knows it, of how many (docs/metrics.md)."""
    for member, metric in (("Done", "okura_job_done"), ("Total", "okura_job_total")):
        shown = [job for job in pending if isinstance(job["State"].get(member), (int, float))]
        if shown:
            yield f"# TYPE {metric} gauge\n"
        for job in shown:
            yield (f'{metric}{{kind="{_escape(job["Kind"])}",job="{_escape(job["Id"])}"}} '
                   f'{_number(job["State"][member])}\n')


def _denials(counts: dict[tuple[str, str, str], int]) -> Iterator[str]:
    """okura's own counter of --auth warn's would-be denials (docs/access.md)."""
    return _counter("okura_access_denials_total", ("action", "resource", "reason"), counts)


def _injected(counts: dict[tuple[str, str, str], int]) -> Iterator[str]:
    """okura's own counter of injected faults (docs/admin.md, "Fault injection")."""
    return _counter("okura_injected_faults_total", ("operation", "table_name", "fault"), counts)


def _insights(db: Database) -> Iterator[str]:
    """Contributor Insights' most accessed and throttled keys of the tables this node
    watches, as gauges of their counts (docs/contributor-insights.md)."""
    now = db.clock.now()
    lines = []
    insights = db.features[Insights]
    for table in list(insights.watched.values()):
        for resource in insights.report(table, now):
            for rule, top in resource.get("Rules", {}).items():
                for entry in top:
                    labels = ",".join(f'{name}="{_escape(value)}"' for name, value in (
                        ("table_name", table.name), ("index", resource.get("IndexName", "")),
                        ("rule", rule), ("key", orjson.dumps(entry["Key"]).decode()),
                        ("region", table.region)))
                    lines.append(f"okura_contributor_insights_count{{{labels}}} {entry['Count']}\n")
    if lines:
        yield "# TYPE okura_contributor_insights_count gauge\n"
    yield from lines


def lagging(db: Database) -> Iterator[str]:
    """okura's own gauges of eventual consistency (docs/consistency.md): per table and
    index, the writes eventually consistent readers do not see yet and the age of the
    oldest."""
    rows = [(",".join(f'{name}="{_escape(text)}"' for name, text in (
        ("table_name", table.name), ("index", index or ""), ("region", table.region))),
        (writes, age)) for table, index, writes, age in db.features[Lag].report(db.clock.now())]
    for place, metric in enumerate(("okura_consistency_pending_writes",
                                    "okura_consistency_oldest_pending_seconds")):
        if rows:
            yield f"# TYPE {metric} gauge\n"
        for labels, values in rows:
            yield f"{metric}{{{labels}}} {_number(values[place])}\n"


def _counter(metric: str, names: tuple[str, ...], counts: dict[tuple, int]) -> Iterator[str]:
    if counts:
        yield f"# TYPE {metric} counter\n"
    for values, count in sorted(counts.items()):
        labels = ",".join(f'{name}="{_escape(value)}"' for name, value in zip(names, values))
        yield f"{metric}{{{labels}}} {count}\n"


def _labels(table: Table, **dimensions: str) -> tuple[tuple[str, str], ...]:
    return (("table_name", table.name), *dimensions.items(), ("region", table.region))


def _gauge(series: Series, metric: str, labels: tuple, value: float) -> None:
    """A series of one value, whoever reports it (a setting, a zero)."""
    series[metric, labels] = [1, value, value, value]


def _merge(series: Series, metric: str, labels: tuple, stat: metrics.Stat) -> None:
    """Add a statistic set to a series (several table objects, one per version of a
    table's document, may have counted one table)."""
    if not stat[0]:
        return
    held = series.get((metric, labels))
    if held is None:
        series[metric, labels] = list(stat)
    else:
        held[0] += stat[0]
        held[1] += stat[1]
        held[2] = min(held[2], stat[2])
        held[3] = max(held[3], stat[3])


def _spent(series: Series, table: Table, spent: metrics.Spent) -> None:
    table_only = _labels(table)
    _merge(series, "ConsumedReadCapacityUnits", table_only, spent.read)
    _merge(series, "ConsumedWriteCapacityUnits", table_only, spent.write)
    for (index, write), stat in spent.indexes.items():
        _merge(series, "ConsumedWriteCapacityUnits" if write else "ConsumedReadCapacityUnits",
               _labels(table, global_secondary_index_name=index.name), stat)
    for (metric, operation), count in spent.counts.items():
        labels = _labels(table, operation=operation) if operation else table_only
        _merge(series, metric, labels, [count, count, 1, 1])
    for (gsi, write), count in spent.throttles.items():
        labels = table_only if gsi is None else _labels(
            table, global_secondary_index_name=gsi.name)
        _merge(series, "WriteThrottleEvents" if write else "ReadThrottleEvents", labels,
               [count, count, 1, 1])
    for operation, (latency, returned) in spent.operations.items():
        labels = _labels(table, operation=operation)
        _merge(series, "SuccessfulRequestLatency", labels, latency)
        _merge(series, "ReturnedItemCount", labels, returned)
        if latency[0] and ("ThrottledRequests", labels) not in series:
            _gauge(series, "ThrottledRequests", labels, 0.0)  # served, none throttled
    for metric, spent_any in (("ReadThrottleEvents", spent.read[0]),
                              ("WriteThrottleEvents", spent.write[0])):
        if (spent_any or spent.indexes) and (metric, table_only) not in series:
            _gauge(series, metric, table_only, 0.0)


def _settings(series: Series, table: Table) -> None:
    """What CloudWatch reports of a table's settings: its provisioned capacity (tables
    billed per request have none) and the progress of its indexes being built."""
    doc = table.doc
    provisioned = doc.get("BillingModeSummary", {}).get("BillingMode") != "PAY_PER_REQUEST"
    owners: list[tuple[Table, dict[str, str], dict]] = [(table, {}, doc)]
    owners += [(table, {"global_secondary_index_name": index["IndexName"]}, index)
               for index in doc.get(GLOBAL, ())]
    for owner, dimensions, settings in owners:
        labels = _labels(owner, **dimensions)
        throughput = settings.get("ProvisionedThroughput")
        if provisioned and throughput:
            for kind in ("Read", "Write"):
                _gauge(series, f"Provisioned{kind}CapacityUnits", labels,
                       throughput.get(f"{kind}CapacityUnits", 0))
    for name, job in doc.get("IndexJobs", {}).items():
        if job.get("Action") == "Create":
            _gauge(series, "OnlineIndexPercentageProgress",
                   _labels(table, global_secondary_index_name=name), progress(job))


def _render(series: Series, namespace: str = "AWS/DynamoDB") -> Iterator[str]:
    job = "aws_" + namespace.partition("/")[2].lower()
    by_metric: dict[str, list] = {}
    for (metric, labels), stat in sorted(series.items()):
        by_metric.setdefault(metric, []).append((labels, stat))
    for metric, entries in by_metric.items():
        dimensions = ", ".join(_DIMENSIONS[name] for name, _ in entries[0][0]
                               if name in _DIMENSIONS)
        for suffix, statistic in _STATISTICS:
            name = f"{job}_{snake(metric)}_{suffix}"
            yield (f"# HELP {name} CloudWatch metric {namespace} {metric} Dimensions: "
                   f"[{dimensions}] Statistic: {statistic} Unit: {_UNITS.get(metric, 'Count')}\n"
                   f"# TYPE {name} gauge\n")
            for labels, (count, total, low, high) in entries:
                value = {"sum": total, "sample_count": count, "average": total / count,
                         "minimum": low, "maximum": high}[suffix]
                shown = "".join(f',{key}="{_escape(text)}"' for key, text in labels)
                yield f'{name}{{job="{job}",instance=""{shown}}} {_number(value)}\n'


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value))
