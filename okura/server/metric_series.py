"""GET /okura/metrics?table=T[&region=R]: one table's metrics over the last hour of
okura's clock, period by period, as JSON for the console's graphs (docs/console.md).
/metrics (server/prometheus.py) publishes only the last complete period.

Each point: the period's start (epoch seconds), how many of its seconds have passed
(60 but for the period under way, the last point), the capacity units consumed by the
table and by each global secondary index (sums), throttle events, throttled requests,
and each operation's request count and average latency in milliseconds."""
from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs

import orjson

from okura.core.metrics import PERIOD, THROTTLED_REQUESTS, Metrics, Period, Spent

if TYPE_CHECKING:
    from okura.server.app import App

PATH = b"/okura/metrics"


def _units(total: dict, key: str, write: bool, units: float) -> None:
    owner = total.setdefault(key, {"read": 0.0, "write": 0.0})
    owner["write" if write else "read"] += units


def _add(point: dict, spent: Spent) -> None:
    """Fold one table document's samples into the point (a table whose document changed
    in the period has samples under each of its documents)."""
    _units(point["consumed"], "", False, spent.read[1])
    _units(point["consumed"], "", True, spent.write[1])
    for (index, write), stat in spent.indexes.items():
        _units(point["consumed"], index.name, write, stat[1])
    for (owner, write), count in spent.throttles.items():
        _units(point["throttle_events"], "" if owner is None else owner.name, write, count)
    for (metric, _operation), count in spent.counts.items():
        if metric == THROTTLED_REQUESTS:
            point["throttled_requests"] += count
    for operation, (latency, _returned) in spent.operations.items():
        seen = point["operations"].setdefault(operation, {"requests": 0, "ms": 0.0})
        seen["requests"] += latency[0]
        seen["ms"] += latency[1]


def _point(number: int, period: Period, region: str, name: str, seconds: float) -> dict:
    point: dict = {"start": number * PERIOD, "seconds": seconds, "consumed": {},
                   "throttle_events": {}, "throttled_requests": 0, "operations": {}}
    for table, spent in period.tables.items():
        if table.name == name and table.region == region:
            _add(point, spent)
    for seen in point["operations"].values():  # sums of ms -> averages
        seen["ms"] = seen["ms"] / seen["requests"] if seen["requests"] else 0.0
    return point


async def reply(app: App, method: bytes, path: bytes) -> tuple[int, bytes]:
    if method != b"GET":
        return 405, orjson.dumps({"error": "use GET"})
    query = parse_qs(path.partition(b"?")[2].decode("latin-1"))
    name = query.get("table", [""])[0]
    if not name:
        return 400, orjson.dumps({"error": "name a table: ?table=NAME"})
    region = query.get("region", ["us-east-1"])[0]
    metrics = app.db.features[Metrics]
    metrics.roll()
    now = app.db.clock.now()
    points = [_point(number, period, region, name, PERIOD)
              for number, period in metrics.history]
    points.append(_point(metrics.number, metrics.current, region, name,
                         max(1.0, now - metrics.number * PERIOD)))
    return 200, orjson.dumps({"table": name, "region": region, "now": now,
                              "period": PERIOD, "points": points})
