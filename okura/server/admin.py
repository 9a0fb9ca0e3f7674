"""okura's own admin endpoints, outside the DynamoDB API: requests whose path starts
with /okura/ (DynamoDB requests go to /, and no X-Amz-Target reaches these).
Documented in docs/admin.md.

- GET  /okura/clock: {"now": epoch seconds, "offset": seconds ahead of real time}
- POST /okura/clock {"advance": seconds}: move the server's clock forward and
  reply as GET does. The clock never moves back. On a shared database the move
  is stored there, and every node follows it (core/clock.py).

- GET  /okura/throttling: {"mode": every table's, "tables": {name: its own mode}}
- POST /okura/throttling {"mode": "off"|"shadow"|"enforce", "table": name (optional)}: set
  every table's mode, or one table's ("mode": null: it follows every table's again)

- POST /okura/reset: drop every table and backup (core/reset.py); {"dropped": tables}
- POST /okura/seed {description}: create tables and items (server/seeding.py)
- POST /okura/settle: apply every write still to reach a global table's other replicas
  (core/replication/applier.py), then make every write visible to eventually consistent
  readers (core/consistency/); {"applied": replicated writes, "settled": writes that were
  not yet visible}
- GET  /okura/consistency: {"mode": every table's, "tables": {name: its own mode},
  "maxDelay": seconds, "seed": N, "pending": per table and index, writes not yet visible}
- POST /okura/consistency {"mode": "strong"|"eventual", "table": name (optional)}: set
  every table's mode, or one table's ("mode": null: it follows every table's again);
  "seed": N and "maxDelay": seconds (alone or with a mode) start the delays afresh
- GET, POST /okura/replication: replication delays and paused regions (failover drills,
  docs/global-tables.md)

- GET, POST {rule} or [rules], DELETE /okura/faults: injected faults (core/faults.py)
- GET /okura/contributor-insights/<table>[?region=R]: a table's most accessed and
  throttled keys (core/insights.py)
- GET /okura/usage[?region=R], GET /okura/advice[?region=R&sample=N]: the design
  advisor's traffic tallies and report (server/advice.py)
- GET /okura/metrics?table=T[&region=R]: a table's metrics period by period over the
  last hour, for the console's graphs (server/metric_series.py)

A request from a web page of another origin than localhost's or this server's, or with
a body other than application/json, is refused (server/browsers.py).

With --auth enforce every admin request is signed (SigV4, service dynamodb) with one of
the auth config's admin_access_key_ids, else 403.
"""
from __future__ import annotations

import math
from urllib.parse import parse_qs, unquote
from typing import TYPE_CHECKING, Callable

import orjson

from okura.access.guard import RAW
from okura.core.consistency.delays import Delays
from okura.core.consistency.lag import MODES as CONSISTENCY_MODES, Lag
from okura.core.faults import FaultError, Faults
from okura.core.insights import Insights
from okura.core.metrics import Metrics
from okura.core.replication.applier import Replicas
from okura.core.reset import drop_everything
from okura.core.throughput import MODES, Throughput
from okura.server import advice, metric_series, seeding

if TYPE_CHECKING:
    from okura.core.clock import Clock
    from okura.server.app import App

PREFIX = b"/okura/"
INSIGHTS = b"/okura/contributor-insights/"


def _error(status: int, message: str) -> tuple[int, bytes]:
    return status, orjson.dumps({"error": message})


NOT_JSON = _error(400, "the body must be a JSON object")


def _json(body: bytes):
    """A request's JSON body (none: {}), or NOT_JSON, the reply to one that is not JSON."""
    try:
        return orjson.loads(body or b"{}")
    except orjson.JSONDecodeError:
        return NOT_JSON


def _clock_state(clock: Clock) -> tuple[int, bytes]:
    return 200, orjson.dumps({"now": clock.now(), "offset": clock.offset})


async def handle(app: App, method: bytes, path: bytes, body: bytes,
                 headers: dict) -> tuple[int, bytes]:
    """(status, JSON body) of one admin request."""
    cross_site = app.browsers.admin_refusal(method, headers, body)  # a page elsewhere
    if cross_site is not None:
        return _error(*cross_site)
    if app.guard is not None:  # --auth enforce: signed with an admin key (docs/access.md)
        refusal = app.guard.admin_refusal(headers[RAW], body)
        if refusal is not None:
            return _error(403, refusal)
    route = path.split(b"?", 1)[0]
    if route in _TEST_DATA:
        return await _TEST_DATA[route](app, method, body)
    if route.startswith(INSIGHTS):
        return await insights(app, method, path)
    if route in (advice.USAGE, advice.ADVICE):
        return await advice.handle(app, method, path)
    if route == b"/okura/throttling":
        return _throttling(app, method, body)
    if route == b"/okura/consistency":
        return _consistency(app, method, body)
    if route == metric_series.PATH:
        return await metric_series.reply(app, method, path)
    if route != b"/okura/clock":
        return _error(404, "no such admin endpoint")
    clock = app.db.clock
    if method == b"GET":
        return _clock_state(clock)
    if method != b"POST":
        return _error(405, "use GET or POST")
    request = _json(body)
    if request is NOT_JSON:
        return NOT_JSON
    seconds = request.get("advance") if isinstance(request, dict) else None
    if ((type(seconds) is not int and type(seconds) is not float)
            or not math.isfinite(seconds) or seconds < 0):
        return _error(400, '"advance" must be a non-negative number of seconds')
    await clock.advance(seconds)
    app.db.features[Metrics].roll()  # a period the move ended is complete at once
    app.db.background.signal("clock")  # what waited for the clock (replication delays)
    return _clock_state(clock)


async def _reset(app: App, method: bytes, body: bytes) -> tuple[int, bytes]:
    if method != b"POST":
        return _error(405, "use POST")
    return 200, orjson.dumps({"dropped": await drop_everything(app.db)})


async def _seed(app: App, method: bytes, body: bytes) -> tuple[int, bytes]:
    if method != b"POST":
        return _error(405, "use POST")
    description = _json(body)
    if description is NOT_JSON:
        return NOT_JSON
    try:
        return 200, orjson.dumps(await seeding.load(app.db, description))
    except seeding.SeedError as error:
        return _error(400, str(error))


async def _faults(app: App, method: bytes, body: bytes) -> tuple[int, bytes]:
    """Injected faults (core/faults.py): GET lists the rules, POST adds one or a list,
    DELETE clears them all."""
    faults = app.db.features[Faults]
    if method == b"POST":
        specs = _json(body)
        if specs is NOT_JSON:
            return NOT_JSON
        try:
            added = faults.add(specs)
        except FaultError as error:
            return _error(400, str(error))
        return 200, orjson.dumps({"rules": [rule.describe() for rule in added]})
    if method == b"DELETE":
        return 200, orjson.dumps({"cleared": faults.clear()})
    if method != b"GET":
        return _error(405, "use GET, POST or DELETE")
    return 200, orjson.dumps({"rules": faults.describe()})


async def insights(app: App, method: bytes, path: bytes) -> tuple[int, bytes]:
    if method != b"GET":
        return _error(405, "use GET")
    route, _, query = path.partition(b"?")
    name = unquote(route[len(INSIGHTS):].decode("latin-1"))
    region = parse_qs(query.decode("latin-1")).get("region", ["us-east-1"])[0]
    table = await app.db.catalog.get(region, name)
    if table is None:
        return _error(404, f"no table {name!r} in {region}")
    resources = app.db.features[Insights].report(table, app.db.clock.now())
    return 200, orjson.dumps({"TableName": table.name, "Resources": resources})


async def _settle(app: App, method: bytes, body: bytes) -> tuple[int, bytes]:
    """Apply every write still to reach a global table's other replicas, then settle every
    write for eventually consistent readers (docs/consistency.md, docs/global-tables.md)."""
    if method != b"POST":
        return _error(405, "use POST")
    # replicated writes are writes to settle
    applied = await app.db.features[Replicas].settle()
    settled = await app.db.features[Lag].settle()
    app.db.background.signal("streams")  # triggers deliver the records now readable
    return 200, orjson.dumps({"applied": applied, "settled": settled})


async def _replication(app: App, method: bytes, body: bytes) -> tuple[int, bytes]:
    """Failover drills: GET the replication settings; POST {"delay": seconds, "table":
    name (optional)}, {"pause": region} or {"resume": region} changes them."""
    replicas = app.db.features[Replicas]
    if method == b"POST":
        request = _json(body)
        if request is NOT_JSON:
            return NOT_JSON
        if not isinstance(request, dict) or len(request.keys() - {"table"}) != 1:
            return _error(400, 'give one of "delay", "pause" or "resume"')
        table = request.get("table")
        if "delay" in request:
            delay = request["delay"]
            if ((type(delay) is not int and type(delay) is not float)
                    or not math.isfinite(delay) or delay < 0):
                return _error(400, '"delay" must be a non-negative number of seconds')
            if table is None:
                replicas.default_delay = float(delay)
            elif isinstance(table, str):
                replicas.delays[table] = float(delay)
            else:
                return _error(400, '"table" must be a table name')
        for verb in ("pause", "resume"):
            if verb in request:
                if not isinstance(request[verb], str):
                    return _error(400, f'"{verb}" must be a region name')
                if verb == "pause":
                    replicas.paused.add(request[verb])
                else:
                    replicas.paused.discard(request[verb])
        app.db.background.signal("replication")
    elif method != b"GET":
        return _error(405, "use GET or POST")
    return 200, orjson.dumps({"delay": replicas.default_delay, "tables": replicas.delays,
                              "paused": sorted(replicas.paused)})


_TEST_DATA = {b"/okura/reset": _reset, b"/okura/seed": _seed, b"/okura/faults": _faults,
              b"/okura/settle": _settle, b"/okura/replication": _replication}


def _consistency_state(app: App) -> tuple[int, bytes]:
    consistency = app.db.features[Lag]
    pending = [{"TableName": table.name, "Region": table.region, "IndexName": index,
                "Writes": writes, "OldestAge": age}
               for table, index, writes, age in consistency.report(app.db.clock.now())]
    return 200, orjson.dumps({"mode": consistency.mode, "tables": consistency.overrides,
                              "maxDelay": consistency.delays.maximum,
                              "seed": consistency.delays.seed, "pending": pending})


def _consistency(app: App, method: bytes, body: bytes) -> tuple[int, bytes]:
    """The modes as throttling's (`_modes`); a POST may also give "seed" (draw again from
    it) and "maxDelay" (seconds), alone or with a mode."""
    request = _json(body) if method == b"POST" else None
    lag = app.db.features[Lag]
    if isinstance(request, dict) and request.keys() & {"seed", "maxDelay"}:
        delays = lag.delays
        seed, maximum = request.get("seed", delays.seed), request.get("maxDelay", delays.maximum)
        if type(seed) is not int or seed < 0:
            return _error(400, '"seed" must be a non-negative whole number')
        if (type(maximum) is not int and type(maximum) is not float) or not (
                math.isfinite(maximum) and maximum >= 0):
            return _error(400, '"maxDelay" must be a non-negative number of seconds')
        lag.delays = Delays(seed, float(maximum))
        if not request.keys() & {"mode", "table"}:
            return _consistency_state(app)
    return _modes(method, body, CONSISTENCY_MODES, lag.set_mode,
                  lambda: _consistency_state(app))


def _throttling_state(app: App) -> tuple[int, bytes]:
    throughput = app.db.features[Throughput]
    return 200, orjson.dumps({"mode": throughput.mode, "tables": throughput.overrides})


def _throttling(app: App, method: bytes, body: bytes) -> tuple[int, bytes]:
    return _modes(method, body, MODES, app.db.features[Throughput].throttle,
                  lambda: _throttling_state(app))


def _modes(method: bytes, body: bytes, modes: tuple[str, ...],
           apply: Callable[[str | None, str | None], None],
           state: Callable[[], tuple[int, bytes]]) -> tuple[int, bytes]:
    """GET or POST {"mode": one of `modes`, "table": name (optional)} of a setting
    every table has and single tables may override (throttling, consistency)."""
    if method == b"GET":
        return state()
    if method != b"POST":
        return _error(405, "use GET or POST")
    request = _json(body)
    if request is NOT_JSON or not isinstance(request, dict):
        return NOT_JSON
    mode, table = request.get("mode"), request.get("table")
    if table is not None and (type(table) is not str or not table):
        return _error(400, '"table" must be a table name')
    if mode not in modes and not (mode is None and table is not None):
        return _error(400, f'"mode" must be one of {", ".join(modes)}'
                      + (" or null" if table is not None else ""))
    apply(mode, table)
    return state()
