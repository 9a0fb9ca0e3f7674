"""The HTTP front with auth on (--auth warn|enforce): what a signature covers and policies
read, beyond the headers the plain front keeps (every header, the method and URL, the
client's address, TLS), in the request's headers under guard.RAW; and the operations'
handlers wrapped to authorize each request first. With auth off none of this runs."""
from __future__ import annotations

from okura.access.guard import RAW, Exchange, Guard
from okura.core.context import Context
from okura.server.http import HttpProtocol
from okura.server.router import Handler


class GuardedProtocol(HttpProtocol):
    __slots__ = ("raw", "peer", "secure")

    def _reset(self):
        super()._reset()
        self.raw: dict[bytes, bytes] = {}

    def connection_made(self, transport):
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self.peer = peer[0] if peer else ""
        self.secure = transport.get_extra_info("sslcontext") is not None

    def on_header(self, name, value):
        super().on_header(name, value)
        name = name.lower()
        raw = self.raw
        raw[name] = raw[name] + b"," + value if name in raw else value

    def on_message_complete(self):
        self.headers[RAW] = Exchange(self.parser.get_method(), self.url, self.raw, self.peer,
                                     self.secure)
        super().on_message_complete()


def guarded(guard: Guard, handler: Handler) -> Handler:
    """The handler, run once the guard allows the request."""

    async def run(ctx: Context, body: dict):
        await guard.authorize(ctx, body)
        return await handler(ctx, body)

    return run

