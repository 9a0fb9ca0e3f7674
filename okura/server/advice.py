"""GET /okura/usage and GET /okura/advice (docs/advisor.md): the traffic the advisor
reads, and the advisor's report on this server's tables, for the console and for
`okura advise --endpoint`."""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import parse_qs

import orjson

from okura.advisor import advise
from okura.advisor.cost import Rates
from okura.advisor.sources import DEFAULT_SAMPLE, Refused, gather
from okura.core.context import Context
from okura.core.metrics import Metrics
from okura.errors import DynamoError
from okura.server.router import ROUTES, perform

if TYPE_CHECKING:
    from okura.server.app import App

USAGE, ADVICE = b"/okura/usage", b"/okura/advice"
_TARGET = "DynamoDB_20120810."


def _query(path: bytes) -> dict[str, str]:
    query = path.partition(b"?")[2].decode("latin-1")
    return {name: values[0] for name, values in parse_qs(query).items()}


async def usage(app: App, region: str) -> dict:
    """The traffic of every table of `region` since this node started (core/metrics.py);
    that of tables since deleted, or deleted and made again, is left out."""
    metrics = app.db.features[Metrics]
    metrics.roll()  # fold the requests not yet counted
    tables = {}
    for (where, name, tid), tally in list(metrics.usage.items()):
        if where == region:
            table = await app.db.catalog.get(region, name)
            if table is not None and table.id == tid:
                tables[name] = tally.as_json()
    return {"since": metrics.since, "seconds": max(0.0, app.db.clock.now() - metrics.since),
            "auth": app.settings.auth, "policies": _identity_policies(app), "tables": tables}


def _identity_policies(app: App) -> list[str]:
    """The identity-based policies of the auth config (docs/access.md) while auth is on,
    as JSON texts: what the multi-tenant rule looks for dynamodb:LeadingKeys in. Only the
    policy documents: never keys or secrets."""
    settings = app.settings
    if settings.auth == "off" or not settings.auth_config:
        return []
    try:
        with open(settings.auth_config, "rb") as handle:
            config = orjson.loads(handle.read())
    except (OSError, orjson.JSONDecodeError):
        return []  # it was read at start; a file changed since is not this endpoint's to judge
    return [orjson.dumps(policy).decode() for entry in
            config.get("users", []) + config.get("roles", []) for policy in entry.get("policies", [])]


async def _observe(app: App, path: str) -> dict | None:
    from okura.server import admin  # admin routes here: imported when first used

    route = path.encode()
    if route.startswith(USAGE):
        return await usage(app, _query(route).get("region", "us-east-1"))
    status, body = await admin.insights(app, b"GET", route)
    return orjson.loads(body) if status == 200 else None


async def _advice(app: App, region: str, sample: int) -> dict:
    """The report, gathered in a worker thread whose every request runs on this loop
    through the operations themselves, as a client's would (no signature, no metrics)."""
    loop = asyncio.get_running_loop()

    def call(operation: str, body: dict) -> dict:
        op = ROUTES[_TARGET + operation]

        async def run() -> dict | bytes:
            return await perform(op, Context(app.db, operation, region), body)

        try:
            reply = asyncio.run_coroutine_threadsafe(run(), loop).result()
        except DynamoError as error:
            raise Refused(error.message or error.name) from None
        return orjson.loads(reply) if isinstance(reply, bytes) else reply

    def observe(path: str) -> dict | None:
        return asyncio.run_coroutine_threadsafe(_observe(app, path), loop).result()

    tables, access_control = await asyncio.to_thread(gather, call, observe, region, sample)
    return advise(tables, Rates(), region, access_control)


async def handle(app: App, method: bytes, path: bytes) -> tuple[int, bytes]:
    if method != b"GET":
        return 405, orjson.dumps({"error": "use GET"})
    query = _query(path)
    region = query.get("region", "us-east-1")
    if path.partition(b"?")[0] == USAGE:
        return 200, orjson.dumps(await usage(app, region))
    sample = query.get("sample", str(DEFAULT_SAMPLE))
    if not sample.isdigit():
        return 400, orjson.dumps({"error": '"sample" must be a whole number of items'})
    return 200, orjson.dumps(await _advice(app, region, int(sample)))
