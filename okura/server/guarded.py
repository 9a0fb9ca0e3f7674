"""The HTTP front with auth on (--auth warn|enforce): what a signature covers and policies
read, beyond the headers the plain front keeps (every header, the method and URL, the
client's address, TLS), in the request's headers under guard.RAW; and the operations'
handlers wrapped to authorize each request first. With auth off none of this runs."""
from __future__ import annotations

from okura.access.guard import RAW, Guard
from okura.core.context import Context
from okura.server.http import _SPELLED, _UNKNOWN, HttpProtocol
from okura.server.router import Handler


class GuardedProtocol(HttpProtocol):
    __slots__ = ("raw", "peer", "secure")

    def connection_made(self, transport):
        self.raw: list[tuple[bytes, bytes]] = []
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self.peer = peer[0] if peer else ""
        self.secure = transport.get_extra_info("sslcontext") is not None

    def on_header(self, name, value):
        self.raw.append((name, value))
        # HttpProtocol.on_header's commonest case inline (one call less per header)
        wanted = _SPELLED.get(name, _UNKNOWN)
        if wanted is _UNKNOWN:
            HttpProtocol.on_header(self, name, value)
        elif wanted is not None:
            self.headers[wanted] = value.decode("latin-1")

    def on_message_complete(self, plain=HttpProtocol.on_message_complete):
        self.headers[RAW] = (self.parser.get_method(), self.url, self.raw, self.peer, self.secure)
        self.raw = []
        plain(self)


def guarded(guard: Guard, handler: Handler) -> Handler:
    """The handler, run once the guard allows the request."""

    async def authorized(ctx: Context, body: dict):
        await guard.authorize(ctx, body)
        return await handler(ctx, body)

    def run(ctx: Context, body: dict):
        # the handler's own coroutine when the guard's notes allow the request at once
        return handler(ctx, body) if guard.granted(ctx, body) else authorized(ctx, body)

    return run

