"""The HTTP front with auth on (--auth warn|enforce): what a signature covers and policies
read, beyond the headers the plain front keeps (every header, the method and URL, the
client's address, TLS), in the request's headers under guard.RAW (App.dispatch puts it
into the request's context); and the gate
(router.perform) wrapped to authorize each request first. With auth off none of this runs."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from okura import errors
from okura.access import identities
from okura.access.audit import Audit
from okura.access.guard import RAW, Guard
from okura.config import Settings, StartupError
from okura.core.catalog import CatalogChanged
from okura.core.context import Context
from okura.server.http import _WANTED, HttpProtocol
from okura.server.router import Operation, Performer, Reply, perform

if TYPE_CHECKING:
    from okura.server.app import App


class GuardedProtocol(HttpProtocol):
    __slots__ = ("raw", "peer", "secure")

    def connection_made(self, transport):
        self.raw: dict[bytes, bytes] = {}
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self.peer = peer[0] if peer else ""
        self.secure = transport.get_extra_info("sslcontext") is not None

    def on_header(self, name, value):
        # every header by lower-case name, a repeated one's values joined (as SigV4
        # canonicalises them); what HttpProtocol.on_header does, from the lower-case name
        name = name.lower()
        raw = self.raw
        raw[name] = raw[name] + b"," + value if name in raw else value
        wanted = _WANTED.get(name)
        if wanted is not None and wanted != "accept-encoding":
            self.headers[wanted] = value.decode("latin-1")
        elif wanted is not None or name == b"expect" or name == b"content-length":
            self._unusual_header(name, value)  # (Accept-Encoding's lines joined there)

    def on_message_complete(self):
        self.headers[RAW] = (self.parser.get_method(), self.url, self.raw, self.peer, self.secure)
        self.raw = {}
        super().on_message_complete()


def guarded(guard: Guard) -> Performer:
    """The gate (router.perform), passed once the guard allows the request (and, for an
    operation the audit log records, recorded with its outcome)."""

    async def authorized(op: Operation, ctx: Context, body: dict):
        await guard.authorize(ctx, op.asks, body)
        return await perform(op, ctx, body)

    def run(op: Operation, ctx: Context, body: dict) -> Reply:
        # the gate's own awaitable when the guard's notes allow the request at once
        return perform(op, ctx, body) if guard.granted(ctx, body) else authorized(op, ctx, body)

    audit = guard.audit
    if audit is None:
        return run

    def maybe_audited(op: Operation, ctx: Context, body: dict) -> Reply:
        return audited(op, ctx, body) if audit.wanted(op.name) else run(op, ctx, body)

    async def audited(op: Operation, ctx: Context, body: dict):
        error: errors.DynamoError | None = None
        try:
            return await run(op, ctx, body)
        except CatalogChanged:  # run again by dispatch, recorded then
            raise
        except errors.DynamoError as refused:
            error = refused
            raise
        except Exception:
            error = errors.internal_server_error()
            raise
        finally:
            guard.record(ctx, body, error)

    return maybe_audited


def identities_of(settings: Settings) -> dict[str, identities.Identity] | None:
    """The callers of --auth warn|enforce (None with auth off); a bad auth config is a
    StartupError."""
    if settings.auth == "off":
        return None
    if not settings.auth_config:
        raise StartupError(f"--auth {settings.auth} needs --auth-config PATH (docs/access.md)")
    try:
        return identities.load(settings.auth_config, settings.account_id)
    except identities.AuthConfigError as error:
        raise StartupError(str(error)) from None


def guard_app(app: App, settings: Settings,
              known: dict[str, identities.Identity] | None = None) -> None:
    """Turn access control on (--auth warn|enforce) with its audit log."""
    if known is None:
        known = identities_of(settings) or {}
    path = settings.audit_log
    if not path and not settings.memory and not settings.postgres:
        path = os.path.join(settings.data_dir, "audit.jsonl")
    audit = None
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        audit = Audit(path, settings.audit_data_events, settings.audit_max_bytes,
                      settings.audit_backups)
    app.guard = guard = Guard(app.db, settings.auth, known, audit)
    app.perform = guarded(guard)
