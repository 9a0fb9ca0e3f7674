"""Start, serve and stop: the listening socket, request dispatch, signals."""
from __future__ import annotations

import asyncio
import gc
import logging
import os
import random
import signal
from time import time
from typing import TYPE_CHECKING, Callable
from urllib.parse import urlsplit, urlunsplit

import orjson

from okura import errors
from okura.config import Settings, StartupError
from okura.core.catalog import CatalogChanged
from okura.core.clock import Clock
from okura.core.consistency.delays import Delays
from okura.core.consistency.lag import EVENTUAL, Lag
from okura.core.database import Database
from okura.core.faults import FaultError, Faults
from okura.core.insights import Insights
from okura.core.metrics import Metrics
from okura.core.throughput import Throughput
from okura.core.transfer.job_records import Transfers
from okura.core.transfer.objects import store_for
from okura.last_resort import StderrHandler, log_unexpected, loop_exception_handler
from okura.access import sigv4
from okura.access.guard import RAW, Guard
from okura.server import startup, tls
from okura.server.background import duties
from okura.server.browsers import Browsers
from okura.server.connections import Connections, connection_limit, file_limit
from okura.server.guarded import GuardedProtocol, guard_app, identities_of
from okura.server.http import HttpProtocol, Outbox, Request, decode_body
from okura.server.replies import request_ids
from okura.server.router import ROUTES, Operation, Performer, perform
from okura.shapes.nodes import mismatch
from okura.triggers.duty import Triggers, check_triggers
from okura.triggers.functions import TriggerConfigError

if TYPE_CHECKING:
    from okura.server.request_log import RequestLog

log = logging.getLogger("okura")
# Runs of a request whose table's catalog keeps changing underneath it (an index
# backfill on another node saves its progress every chunk).
CATALOG_RERUNS = 3


class App:
    def __init__(self, db: Database, settings: Settings):
        self.db = db
        self.clock = db.clock
        self.settings = settings
        self.request_ids = request_ids()
        self.connections = Connections(settings.max_connections, settings.idle_timeout)
        self.browsers = Browsers(settings)  # hosts and origins okura answers
        self.outbox = Outbox()
        # the metrics sink, or a RequestLog around it (server/request_log.py)
        self.metrics: Metrics | RequestLog = db.features[Metrics]
        # With --auth warn or enforce: the guard, and the gate wrapped by it
        self.guard: Guard | None = None
        self.routes = ROUTES
        self.perform: Performer = perform  # the gate (server/router.py)
        self.triggers = Triggers(db, settings)  # stream triggers (docs/triggers.md)
        # The injected faults' rules (core/faults.py): empty, the one test a request pays
        self.fault_rules = db.features[Faults].rules
        # Tables with Contributor Insights on (core/insights.py): empty, one test more
        self.insights = db.features[Insights]
        self.insight_tables = self.insights.watched

    async def dispatch(self, request: Request, raw: bytes) -> tuple[int, bytes]:
        """Run one DynamoDB request; every failure becomes DynamoDB's error reply. Its
        outcome and what it spent go to the metrics."""
        # one clock reading: the request's latency, and okura's time it arrived at
        started = time()
        request.now = self.clock.at(started)
        headers = request.headers
        target: str = headers.get("x-amz-target", "")
        error: errors.DynamoError | None = None
        body = None
        try:
            op = self.routes.get(target)
            if op is None:
                self._note_region(request)  # for UserErrors, whose one dimension it is
                raise errors.unknown_operation()
            request.operation = op.name
            if self.guard is None:
                self._read_authorization(request)
            else:
                request.exchange = headers[RAW]
                self.guard.authenticate(request, raw)
            if "content-encoding" in headers:
                raw = decode_body(headers, raw)
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError:
                # DynamoDB says nothing more of a body it cannot parse (users' reports)
                raise errors.serialization() from None
            if type(body) is not dict:
                raise mismatch(body, None)
            if self.fault_rules:
                await self.db.features[Faults].before(request, body)
            try:
                result = await self.perform(op, request, body)
            except CatalogChanged as changed:
                result = await self._rerun(op, request, body, changed)
            return 200, result if type(result) is bytes else orjson.dumps(result)
        except errors.DynamoError as refused:
            error = refused
            return error.status, error.body()
        except Exception:
            log_unexpected(log, "internal error in %s (request %s)", target,
                           request.request_id.decode())
            error = errors.internal_server_error()
            return error.status, error.body()
        finally:
            try:  # the request's reply stands whatever its bookkeeping meets
                seconds = time() - started
                if seconds < 0.0:  # the wall clock stepped back meanwhile (not max(): a
                    seconds = 0.0  # builtin's call costs ~1,400 instructions)
                self.metrics.request(request, seconds, error)
                if self.insight_tables:
                    self.insights.observe(request, body)
            except Exception:
                log_unexpected(log, "recording %s (request %s) failed", target,
                               request.request_id.decode())

    @staticmethod
    def _read_authorization(request: Request) -> None:
        """The request's Authorization header, parsed once (--auth off: unverified), and
        the region and access key it names."""
        headers = request.headers
        parts, _signature = sigv4.parse(headers.get("authorization"),
                                        "x-amz-date" in headers or "date" in headers)
        request.authorization = parts
        request.region, request.access_key = parts.region, parts.access_key

    @classmethod
    def _note_region(cls, request: Request) -> None:
        try:
            cls._read_authorization(request)
        except errors.DynamoError:
            pass  # the unknown operation is the error DynamoDB reports first

    async def _rerun(self, op: Operation, request: Request, body: dict,
                     changed: CatalogChanged):
        """Another node changed the table while this request planned its write; nothing
        was written: forget the stale document (this node may not have heard of the
        change yet, and would plan with it again) and run the request on a fresh one, a
        few times at most."""
        for attempt in range(1, CATALOG_RERUNS):
            self.db.catalog.invalidate(changed.table.id)
            request.restart()
            try:
                return await self.perform(op, request, body)
            except CatalogChanged as again:
                if attempt == CATALOG_RERUNS - 1:
                    raise
                changed = again


def consistency(db: Database, settings: Settings) -> None:
    """--consistency and its delays (core/consistency/); an eventual server logs its seed,
    so a failing run can be replayed with --consistency-seed."""
    seed = settings.consistency_seed
    if seed < 0:
        seed = random.randrange(1 << 31)
    lag = db.features[Lag]
    lag.delays = Delays(seed, settings.consistency_max_delay)
    lag.set_mode(settings.consistency)
    if settings.consistency == EVENTUAL:
        log.info("okura consistency eventual: delays up to %g s, --consistency-seed %d",
                 settings.consistency_max_delay, seed)


def make_engine(settings: Settings):
    if settings.postgres:
        from okura.storage.postgres import PostgresEngine

        return PostgresEngine(settings.postgres)
    if settings.memory:
        from okura.storage.memory import MemoryEngine

        return MemoryEngine()
    from okura.storage.sqlite import SqliteEngine

    return SqliteEngine(settings.data_dir, settings.durability)


def storage_of(settings: Settings) -> str:
    """Where the data lives, for the log: the PostgreSQL URL without credentials."""
    if settings.postgres:
        url = urlsplit(settings.postgres)
        return "postgres " + urlunsplit(url._replace(netloc=url.netloc.rpartition("@")[2]))
    return "memory" if settings.memory else settings.data_dir


async def serve(settings: Settings, ready: Callable[[int], None] | None = None,
                stop: asyncio.Event | None = None) -> None:
    """Serve until SIGINT or SIGTERM, or until `stop` is set (a server embedded in a
    thread of another program: okura/embedded.py); `ready` is told the port once okura
    listens. A start-up mistake raises StartupError, before any data is touched."""
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(loop_exception_handler)  # what escapes is logged, never fatal
    known = identities_of(settings)  # the auth config and TLS, checked before anything is
    secure = tls.context(settings)   # claimed
    claimed = startup.Claimed(settings)
    db = Database(make_engine(settings), settings.account_id, settings.status_delay,
                  Clock(settings.clock_offset), settings.stream_retention)
    transfers = db.features[Transfers]
    transfers.store = store_for(settings.s3_dir or os.path.join(settings.data_dir, "s3"),
                                settings.s3_endpoint)
    transfers.error_logs = (settings.import_error_dir
                            or os.path.join(settings.data_dir, "import-errors"))
    db.features[Throughput].throttle(settings.throttling)
    faults = db.features[Faults]
    faults.operations = frozenset(op.name for op in ROUTES.values())
    consistency(db, settings)
    try:  # okura.toml's [[faults]] (docs/admin.md)
        faults.add(settings.faults)
    except FaultError as error:
        claimed.release()
        raise StartupError(f"okura.toml: faults: {error}") from None
    await claimed.open(db, storage_of(settings))
    if db.engine.shared:
        await db.clock.share(db.engine)
    app = App(db, settings)
    if known is not None:
        guard_app(app, settings, known)
    claimed.log_requests(app)
    if settings.seed:
        await claimed.seed(db)
    owned = stop is None  # okura owns the process
    if stop is None:
        # Everything made so far (modules, the request model, ...) lives as long as the
        # process: keep it out of the collector's full passes, which otherwise walk all
        # of it (6-10 ms, a latency spike whenever one runs under load).
        gc.freeze()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
    app.connections.maximum = connection_limit(settings.max_connections, file_limit(owned))
    protocol = HttpProtocol if app.guard is None else GuardedProtocol

    def new_connection() -> asyncio.Protocol:
        return protocol(app)

    servers = []
    if secure is not None:  # HTTPS on its own port, beside HTTP (server/tls.py), first: a
        # client that finds HTTP listening finds HTTPS too
        servers.append(await loop.create_server(
            new_connection, sock=startup.listen(settings.host, settings.tls_port),
            ssl=secure, backlog=1024))
        log.info("okura listening for HTTPS on %s:%d", settings.host, settings.tls_port)
    servers.append(await loop.create_server(new_connection, sock=claimed.socket,
                                            backlog=1024))
    log.info("okura listening on %s:%d (%s)", settings.host, claimed.port, storage_of(settings))
    if ready is not None:
        ready(claimed.port)
    for duty in duties(app, settings):
        db.background.add(duty)
    await stop.wait()
    db.background.close()
    await app.triggers.close()
    for listening in servers:
        listening.close()
    await asyncio.sleep(0)  # let the last group commit send its replies
    for connection in list(app.connections):
        connection.close_when_idle()
    for _ in range(100):  # let in-flight requests finish, for at most a second
        if not any(c.busy for c in app.connections):
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0)  # the replies held to the end of the iteration leave
    await db.close()
    await asyncio.sleep(0)  # and those that waited for the last commit behind them
    claimed.release()
    log.info("okura stopped")


def run(settings: Settings) -> None:
    logging.basicConfig(level=settings.log_level.upper(), handlers=[StderrHandler()],
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        check_triggers(settings)
    except TriggerConfigError as error:  # okura.toml declares triggers okura cannot run
        log.error("%s", error)
        raise SystemExit(2) from None
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(settings))
    else:
        uvloop.run(serve(settings))
