"""HTTP/1.1 front: an asyncio Protocol over httptools, no framework.

One request at a time per connection (pipelined requests queue behind it).
A handler coroutine is first run eagerly: on the embedded backend it completes
without suspending, so the reply is written in the same callback and no Task is
created; only a coroutine that really waits (a network backend) becomes a Task.
"""
from __future__ import annotations

import asyncio
import logging
import types
from collections import deque
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

import httptools

from okura import errors
from okura.core.capacity import Ledger
from okura.core.context import Context
from okura.core.database import Database
from okura.core.faults import DropConnection, service_unavailable
from okura.last_resort import log_unexpected
from okura.server import admin, console, lambda_api, prometheus
from okura.server.codings import (  # decode_body: app.py takes it from here
    COMPRESS_OVER, MAX_BODY, decode_body)
from okura.server.replies import JSON, compressed, reply_bytes

if TYPE_CHECKING:
    from okura.server.app import App

log = logging.getLogger("okura.server")

_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
MAX_HEAD = 16 * 1024  # request line and headers: DynamoDB answers 400 past 16 KB
# The request line alone: refused as a head too long is past this (unverified: the HTTP
# servers' common default; DynamoDB's URLs are `/`, a presigned one's a few KB at most)
MAX_LINE = 4096
# AWS's answer, without a Content-Type, to a request for a path or method it does not
# serve (recorded: 404, these 29 bytes)
_UNKNOWN = b"<UnknownOperationException/>\n"
# The bytes a request's body may take on the wire (chunk framing, trailers) before it is
# refused: its decoded size is checked exactly once it is complete.
MAX_WIRE = 2 * MAX_BODY
_BODY_DIGITS = len(str(MAX_BODY))  # a Content-Length of fewer digits is within MAX_BODY
_FOLD = 64  # body pieces (chunks) kept apart before they are joined into one buffer
# A preflight allows what the browser asked for (DynamoDB echoes the method and headers,
# recorded), for an origin that may read the replies (server/browsers.py); ordinary
# replies carry none of these lines.
_PREFLIGHT = b"\r\nAccess-Control-Max-Age: 172800\r\nAccess-Control-Allow-Methods: "


# The only request headers okura reads; the rest are skipped without decoding.
_WANTED = {name.encode(): name for name in (
    "x-amz-target", "authorization", "x-amz-date", "date", "content-encoding", "host",
    "origin", "access-control-request-method", "access-control-request-headers",
    "accept-encoding", "content-type")}
# Header names as SDKs spell them, looked up before lower-casing: what they stand for
# ("": not read; False: Content-Length, checked as it arrives and kept out of the
# headers, whose dict a sixth entry would grow: +2,900 instructions a GetItem).
# Accept-Encoding takes the unusual way: a list a client may send in several lines.
_SPELLED: dict[bytes, str | bool] = {
    **{spelled: wanted for name, wanted in _WANTED.items() if wanted != "accept-encoding"
       for spelled in (name, name.title())},
    b"Content-Length": False, b"content-length": False,
    **dict.fromkeys((b"User-Agent", b"user-agent", b"Connection", b"Accept",
                     b"amz-sdk-invocation-id", b"amz-sdk-request",
                     b"X-Amz-Security-Token", b"x-amz-security-token"), "")}


class Request(Context):
    """A DynamoDB request that came over HTTP: its context, and what only the HTTP side
    knows (the handler sees it as a Context)."""

    __slots__ = ("headers", "request_id", "local_address")

    def __init__(self, db: Database, headers: dict, request_id: bytes, local_address):
        # Context's fields, set here rather than through its __init__: one call less
        # on every request.
        self.db = db
        self.operation = self.region = self.access_key = ""
        self.ledger = Ledger()
        self.table = self.identity = self.throttled = self.authorization = self.exchange = None
        self.returned = 0
        self.now = 0.0  # App.dispatch sets it
        self.headers = headers
        self.request_id = request_id
        self.local_address = local_address

    def address(self) -> str:
        return _address(self.headers, self.local_address)


def _address(headers: dict, local_address) -> str:
    """host:port the client reached us at: its Host header as sent, else our socket's
    address."""
    host = headers.get("host")
    if host:
        return host
    ip, port = local_address[:2]
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


@types.coroutine
def _resume(coro, awaited):
    """Continue a coroutine, first run by hand, from the future it yielded."""
    while True:
        try:
            yield awaited
        except BaseException as exc:  # noqa: B902 - forwarded into the coroutine
            try:
                awaited = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
        else:
            try:
                awaited = coro.send(None)
            except StopIteration as stop:
                return stop.value


async def _finish(coro, awaited):
    return await _resume(coro, awaited)


class Outbox:
    """Replies of one event-loop iteration, written together at its end.

    A reply written at once wakes its client while the iteration still handles others
    (under load, one wake-up of wrk per reply: 18 % of the server's samples); held to the
    end, the iteration's replies leave as one burst. Under load, in memory: Query 15.8k ->
    21.0k req/s, PutItem 29.5k -> 39.0k, p99 lower nearly everywhere; GetItem alone gives
    up ~3-5 % of its rate. A reply that waits for a group commit is finished by the
    commit instead, itself at the end of the iteration."""

    __slots__ = ("held",)

    def __init__(self):
        # (connection, reply slot) to finish at the end of this iteration
        # (HttpProtocol._emit adds them, scheduling release() with the first)
        self.held: list[tuple[HttpProtocol, list]] = []

    def release(self) -> None:
        held, self.held = self.held, []
        for protocol, slot in held:
            protocol._finish(slot, None)


class HttpProtocol(asyncio.Protocol):
    """One connection."""

    app: App
    transport: Any  # None once a reply that ends the connection is due
    sink: Any  # the same transport, None once closed
    parser: httptools.HttpRequestParser
    headers: dict
    url: bytes
    body: list
    queue: deque[tuple]
    busy: bool
    local_address: Any
    closing: bool
    after_commit: Callable[[Callable], bool] | None
    outbox: Outbox
    replies: deque[list]
    head: int | None
    wire: int
    seen: bool
    drowsy: bool
    hosts: Any

    def __init__(self, app: App) -> None:
        self.app = app
        engine = app.db.engine
        self.after_commit = engine.after_commit if engine.group_commit else None
        self.hosts = app.browsers.hosts  # Host values okura answers (server/browsers.py)
        self.outbox = app.outbox
        # Requests are read and run while `transport` is set; replies are written to `sink`
        # (the same transport), in the order of `replies`: [bytes or None while not yet
        # finished, whether it ends the connection], one per reply queued.
        self.transport = self.sink = None
        self.replies = deque()
        self.parser = httptools.HttpRequestParser(self)
        self.queue = deque()
        self.busy = False
        self.closing = False
        # A whole request arrived since the last idle sweep; the last sweep found none
        # (server/connections.py)
        self.seen = self.drowsy = False
        # The request head arriving when a chunk of input ends: the bytes of it counted
        # so far, None while a body arrives instead, -1 (within a chunk) for a head that
        # began after other input in that chunk, whose bytes there are not counted
        # (a chunk starts with a head only when the previous message ended with the
        # previous chunk). `wire`: the bytes received while a body arrives.
        self.head = 0
        self.wire = 0
        self.headers = {}
        self.url = b""
        self.body = []
        self.local_address = None

    # asyncio callbacks
    def connection_made(self, transport):
        self.transport = self.sink = transport
        self.local_address = transport.get_extra_info("sockname")
        if not self.app.connections.admit(self):
            self._fail_connection(503)

    def connection_lost(self, exc):
        self.app.connections.drop(self)
        self.transport = self.sink = None

    def data_received(self, data):
        """Feed the parser, keeping each request's head and body within their limits
        however the input is cut: the work and memory a request costs stay linear in its
        size (a header is only handed over once complete, so its size is watched here)."""
        if self.transport is None:
            return  # a reply that ends the connection is due: nothing more is read
        head = self.head
        if head is not None and head + len(data) > MAX_HEAD:
            end = data.find(b"\r\n\r\n")  # the head arriving ends there
            if head + (len(data) if end < 0 else end + 4) > MAX_HEAD:
                self._fail_connection(400)
                return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError:  # a bug in a callback below
            self._broken()
            return
        except (httptools.HttpParserUpgrade, httptools.HttpParserError):
            self._fail_connection(400)
            return
        head = self.head
        if head is not None:
            self.head = head + len(data) if head >= 0 else 0
        else:
            self.wire += len(data)
            if self.wire > MAX_WIRE:
                self._fail_connection(413)
            elif len(self.body) > _FOLD:  # a body in many small chunks: one buffer, so
                self.body = [_folded(self.body)]  # that memory stays linear in its size

    # httptools callbacks
    def on_url(self, url):
        self.url += url

    def on_header(self, name, value):
        wanted = _SPELLED.get(name)
        if wanted:
            self.headers[wanted] = value.decode("latin-1")
        elif wanted is None:  # not spelled as SDKs spell it ("" for a name never read)
            self._unusual_header(name.lower(), value)
        elif wanted is False and len(value) >= _BODY_DIGITS:  # int() of fewer costs ~1,200
            self._announced(value)                            # instructions to say no

    def _announced(self, length: bytes) -> None:
        """A Content-Length (digits: httptools checks them) over the largest body is
        refused at once: none of the body is read."""
        if int(length) > MAX_BODY:
            self._fail_connection(413)

    def _unusual_header(self, name: bytes, value: bytes) -> None:
        wanted = _WANTED.get(name)
        if wanted is not None:
            text = value.decode("latin-1")
            if wanted == "accept-encoding" and wanted in self.headers:  # a list in several
                text = self.headers[wanted] + ", " + text                # lines is one list
            self.headers[wanted] = text
        elif name == b"content-length":
            self._announced(value)
        elif (name == b"expect" and value.lower() == b"100-continue" and self.transport
                and not self.busy and not self.queue and not self.closing):
            # the client waits for leave to send its body (curl; Guzzle on large
            # bodies), here rather than in a per-request header callback, which would
            # cost every request; behind a reply still due, none is sent (RFC 9110
            # allows that: the client sends its body after a wait)
            self._emit(lambda closing, commit_error: _CONTINUE)

    def on_headers_complete(self):
        self.head = None
        self.wire = 0

    def on_body(self, body):
        self.body.append(body)

    def on_message_complete(self):
        method = self.parser.get_method()
        keep_alive = self.parser.should_keep_alive()
        body = b"".join(self.body)
        item = (method, self.url, self.headers, body, keep_alive)
        self.headers, self.url, self.body, self.head = {}, b"", [], -1
        self.seen = True
        if self.transport is None:
            return  # after a reply that ends the connection nothing more runs
        if len(body) > MAX_BODY:
            self._fail_connection(413)
            return
        if self.busy:
            self.queue.append(item)
        else:
            self._start(item)

    # request handling
    def _start(self, item):
        try:
            method, url, headers, body, keep_alive = item
            host = headers.get("host")
            if host not in self.hosts and not self.app.browsers.host_allowed(host):
                self._refuse(host, keep_alive)
                return
            if url != b"/":  # DynamoDB's requests go to "/": one comparison on their path
                if len(method) + len(url) + 10 > MAX_LINE:  # "<method> <url> HTTP/1.1"
                    self._fail_connection(400)
                    return
                if method == b"OPTIONS" and "origin" in headers:
                    self._other_method(method, url, headers, keep_alive)
                    return
                if url.startswith(admin.PREFIX):
                    self._own(admin.handle(self.app, method, url, body, headers),
                              b"application/json", method, headers, keep_alive,
                              self._cors(headers, True))
                    return
                if url.startswith(lambda_api.PREFIX):
                    self._own(lambda_api.handle(self.app, method, url, headers, body),
                              b"application/json", method, headers, keep_alive)
                    return
                if method == b"POST" and url.partition(b"?")[0] != b"/":  # (a presigned
                    self._unknown(method, headers, keep_alive)  # request's query is fine)
                    return
            if method != b"POST":
                path = url.partition(b"?")[0]
                if path == prometheus.PATH and method in (b"GET", b"HEAD"):
                    self._own(prometheus.reply(self.app.db), prometheus.CONTENT_TYPE, method,
                              headers, keep_alive)
                elif (path.startswith(console.PREFIX) and method in (b"GET", b"HEAD")
                      and self.app.settings.console):
                    self._page(console.page(path), method, keep_alive)
                else:
                    self._other_method(method, path, headers, keep_alive)
                return
            request = Request(self.app.db, headers, next(self.app.request_ids),
                              self.local_address)
            coro = self.app.dispatch(request, body)
            try:
                awaited = coro.send(None)
            except StopIteration as stop:
                self._reply(request, stop.value, keep_alive)
                return
            self.busy = True
            task = asyncio.ensure_future(_finish(coro, awaited))
            task.add_done_callback(lambda done: self._finished(request, done, keep_alive))
        except Exception:  # a bug: answered, and the connection ends (its state is suspect)
            self._broken()

    def _finished(self, request, task, keep_alive):
        self.busy = False
        try:
            result = task.result()
        except DropConnection:  # an injected fault: the connection ends, no reply
            self._emit(lambda closing, error: b"", False)
            return
        except Exception:  # dispatch answers every failure: this is a bug past it
            self._broken()
            return
        self._reply(request, result, keep_alive)
        self._start_queued()

    def _other_method(self, method: bytes, path: bytes, headers: dict, keep_alive: bool) -> None:
        """A browser's CORS preflight, the health check DynamoDB answers a GET of `/`
        with, or DynamoDB's answer to anything else."""
        request_id = next(self.app.request_ids)
        if method == b"OPTIONS" and "origin" in headers:
            cors = self._cors(headers, path.startswith(admin.PREFIX))
            if not cors:  # an origin that may not: no leave, a refusal (okura's choice)
                self._emit(lambda closing, error: reply_bytes(
                    403, b"", closing, b"text/plain", request_id), keep_alive)
                return
            methods = headers.get("access-control-request-method", "GET, POST, OPTIONS")
            allowed = headers.get("access-control-request-headers", "*")
            self._emit(lambda closing, error: reply_bytes(
                200, b"", closing, b"text/plain", request_id,
                b"%s%s%s\r\nAccess-Control-Allow-Headers: %s" % (
                    cors, _PREFLIGHT, methods.encode("latin-1"), allowed.encode("latin-1"))),
                keep_alive)
            return
        if path != b"/" or method not in (b"GET", b"HEAD"):
            self._unknown(method, headers, keep_alive)
            return
        # DynamoDB's names the endpoint reached, then a space: okura's, the Host header as
        # sent (its port too)
        host = _address(headers, self.local_address)
        self._emit(lambda closing, error: reply_bytes(
            200, b"healthy: " + host.encode("latin-1") + b" ", closing, b"text/plain",
            request_id, self._cors(headers), method != b"HEAD"), keep_alive)

    def _unknown(self, method: bytes, headers: dict, keep_alive: bool) -> None:
        """A request that is no API call (another path, another method): answered as AWS's
        front answers a route it does not know (recorded), and the connection goes on."""
        request_id, cors = next(self.app.request_ids), self._cors(headers)
        self._emit(lambda closing, error: reply_bytes(
            404, _UNKNOWN, closing, None, request_id, cors, method != b"HEAD"), keep_alive)

    def _cors(self, headers: dict, admin: bool = False) -> bytes:
        """The CORS header lines of a reply: for a browser's request (it names its origin)
        from an origin that may read it."""
        return self.app.browsers.cors(headers, admin) if "origin" in headers else b""

    def _refuse(self, host: str, keep_alive: bool) -> None:
        """A request for a host okura is not (DNS rebinding: server/browsers.py)."""
        status, message = self.app.browsers.host_refusal(host)
        body = errors.access_denied(message).body()
        request_id = next(self.app.request_ids)
        self._emit(lambda closing, error: reply_bytes(
            status, body, closing, JSON, request_id), keep_alive)

    def _page(self, page: tuple[int, bytes, bytes], method: bytes, keep_alive: bool) -> None:
        """One of the console's files (server/console.py)."""
        status, body, content_type = page
        request_id = next(self.app.request_ids)
        self._emit(lambda closing, error: reply_bytes(
            status, body, closing, content_type, request_id, console.HEADERS,
            method != b"HEAD"), keep_alive)

    def _own(self, coro, content_type: bytes, method, headers, keep_alive,
             cors: bytes | None = None) -> None:
        """One of okura's own endpoints (admin, metrics): `coro` gives (status, body);
        `cors`: its CORS lines, if not those of the DynamoDB API."""
        self.busy = True
        task = asyncio.ensure_future(coro)
        task.add_done_callback(lambda done: self._own_finished(
            done, content_type, method, headers, keep_alive,
            self._cors(headers) if cors is None else cors))

    def _own_finished(self, task, content_type, method, headers, keep_alive, cors):
        self.busy = False
        more: tuple | list = ()
        try:
            result = task.result()
            status, reply, more = result[0], result[1], result[2:]
        except Exception:
            log_unexpected(log, "internal error in %s", method.decode("latin-1"))
            status, reply = 500, b'{"error": "internal error"}'
        # (status, body) or (status, body, more header lines)
        request_id, extra = next(self.app.request_ids), cors + b"".join(more)
        if len(reply) > COMPRESS_OVER:
            reply, extra = compressed(headers, reply, extra)
        self._emit(lambda closing, error: reply_bytes(
            status, reply, closing, content_type, request_id, extra,
            method != b"HEAD"), keep_alive)
        self._start_queued()

    def _start_queued(self):
        while self.queue and not self.busy and self.transport is not None:
            self._start(self.queue.popleft())

    def _emit(self, finish, keep_alive: bool = True) -> None:
        """Queue a reply: finish(closing, commit error or None) gives its bytes once the
        writes it may acknowledge are committed (group commit) or, with no commit pending,
        at the end of this event-loop iteration with the iteration's other replies
        (Outbox). A connection's replies leave in the order they were queued, whichever
        is finished first. A reply that ends the connection ends it at once: no request
        after it runs, and the transport closes once the reply is written."""
        if self.transport is None:
            return
        closing = not keep_alive or self.closing
        if closing:
            self.transport = None
        slot: list = [None, closing, finish]  # [its bytes once finished, ...]
        self.replies.append(slot)
        after_commit = self.after_commit
        if after_commit is None or not after_commit(partial(self._finish, slot)):
            held = self.outbox.held
            if not held:
                asyncio.get_running_loop().call_soon(self.outbox.release)
            held.append((self, slot))

    def _finish(self, slot: list, commit_error) -> None:
        """Build a queued reply's bytes, and write those now due. Never raises: other
        connections' replies are finished by the same loop (Outbox.release, a group
        commit's waiters)."""
        try:
            slot[0] = slot[2](slot[1], commit_error)
        except Exception:  # a bug: end the connection rather than stall its replies
            log_unexpected(log, "a reply could not be built")
            slot[:2] = b"", True
        replies = self.replies
        try:
            while replies and replies[0][0] is not None:
                data, closing, _ = replies.popleft()
                if self.sink is not None:
                    self.sink.write(data)
                    if closing:
                        self.sink.close()
                        self.sink = None
        except Exception:  # uvloop's write raises once the transport has closed itself
            log_unexpected(log, "a reply could not be written")
            self.close_now()

    def _reply(self, request, result, keep_alive):
        cors = self.app.browsers.cors(request.headers) if "origin" in request.headers else b""
        self._emit(partial(_api_reply, request, result, cors), keep_alive)

    def _broken(self) -> None:
        """A bug in the HTTP front or past dispatch's catch-all, the exception being
        handled: logged, answered InternalServerError, and the connection ends, its state
        not to be trusted. The server serves on."""
        log_unexpected(log, "internal error in the HTTP front")
        self._fail_connection(500)

    def _fail_connection(self, status):
        error = _CONNECTION_ERRORS.get(status, _malformed)()
        request_id, cors = next(self.app.request_ids), self._cors(self.headers)
        self._emit(lambda closing, commit_error: reply_bytes(
            error.status, error.body(), closing, JSON, request_id, cors), False)

    def quiet(self) -> bool:
        """No whole request since the last idle sweep, and no reply of ours due."""
        return not (self.seen or self.busy or self.replies or self.queue)

    def close_now(self) -> None:
        """Close a quiet connection (nothing of ours is due on it)."""
        if self.sink is not None:
            self.sink.close()
        self.transport = self.sink = None

    def close_when_idle(self):
        """Shut down: close now if idle (after the replies still due), else after the
        reply in progress."""
        self.closing = True
        if not self.busy:
            self._emit(lambda closing, error: b"", False)


# What a connection ended by okura is answered: 400 Malformed HTTP request (unverified)
# unless one of these.
_CONNECTION_ERRORS = {413: errors.request_too_large, 503: service_unavailable,
                      500: errors.internal_server_error}


def _malformed() -> errors.DynamoError:
    return errors.serialization("Malformed HTTP request")  # unverified


def _folded(pieces: list) -> bytearray:
    """A body's pieces as one buffer, the first piece's if it is one already (each byte
    is copied a bounded number of times however the body is cut)."""
    first = pieces[0]
    buffer = first if type(first) is bytearray else bytearray(first)
    buffer += b"".join(pieces[1:])
    return buffer


def _api_reply(request, result, extra: bytes, closing: bool, commit_error) -> bytes:
    status, body = result
    if commit_error is not None:
        error = errors.internal_server_error()
        status, body = error.status, error.body()
    if len(body) > COMPRESS_OVER:
        body, extra = compressed(request.headers, body, extra)
    return reply_bytes(status, body, closing, JSON, request.request_id, extra)


