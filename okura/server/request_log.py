"""Per-request logging (--log-level debug, --access-log FILE). It wraps the metrics sink
that App.dispatch reports every finished request to, and the gate (to note the TableName
a request names, which a failed request may never have resolved), so that with both off
nothing is added to a request's path: sink and gate are the plain ones."""
from __future__ import annotations

import logging
import time
from typing import IO

import orjson

from okura.config import StartupError
from okura.core.context import Context
from okura.errors import DynamoError
from okura.server.router import Operation, Performer

log = logging.getLogger("okura.requests")
# Where a logged request's TableName waits for its log line: its headers dict (a Request
# has slots and no room of its own); a key no HTTP header can have.
_NAMED = ("okura", "TableName")


class RequestLog:
    """Counts a request as the metrics it wraps do, then logs one line of it."""

    def __init__(self, metrics, debug: bool, access_log: IO[bytes] | None):
        self.metrics = metrics
        self.debug = debug
        self.access_log = access_log

    def __getattr__(self, name: str):  # the rest of the metrics' interface, unchanged
        return getattr(self.metrics, name)

    def request(self, ctx: Context, seconds: float, error: DynamoError | None) -> None:
        self.metrics.request(ctx, seconds, error)
        table = getattr(ctx, "headers", {}).get(_NAMED) or (
            ctx.table.name if ctx.table is not None else None)
        status = 200 if error is None else error.status
        millis = round(seconds * 1000.0, 3)
        if self.debug:
            log.debug("%s %s %d %s %.1f ms%s", ctx.operation or "-", table or "-", status,
                      error.name if error else "-", millis,
                      f": {error.message}" if error is not None and error.message else "")
        if self.access_log is not None:
            line = {"time": round(time.time(), 3), "operation": ctx.operation or None,
                    "table": table, "region": ctx.region or None, "status": status,
                    "error": error.name if error else None,
                    "message": error.message if error else None, "ms": millis,
                    "request_id": getattr(ctx, "request_id", b"").decode() or None}
            self.access_log.write(orjson.dumps(line) + b"\n")

    def close(self) -> None:
        if self.access_log is not None:
            self.access_log.close()


def wrap(app, level: str, access_log: str) -> RequestLog | None:
    """Log the app's requests, if debug logging or an access log is asked for: its
    metrics sink and routes wrapped, and the RequestLog returned (to close at the end)."""
    debug = level == "debug"
    if not debug and not access_log:
        return None
    try:
        sink = open(access_log, "ab", buffering=0) if access_log else None
    except OSError as error:
        raise StartupError(f"cannot open the access log {access_log}: "
                           f"{error.strerror}") from None
    app.metrics = logged = RequestLog(app.metrics, debug, sink)
    app.perform = _naming(app.perform)
    return logged


def _naming(perform: Performer) -> Performer:
    def run(op: Operation, ctx, body: dict):
        name = body.get("TableName")
        if type(name) is str:
            ctx.headers[_NAMED] = name
        return perform(op, ctx, body)

    return run
