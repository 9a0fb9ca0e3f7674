"""The ceiling: the fastest a Python front end can answer on this machine.

A bare asyncio Protocol + httptools parser on uvloop that answers every request
with one fixed DynamoDB-like reply (a GetItem of a ~200 B item). okura can only
approach it, so okura's ratio to it shows what the server spends beyond HTTP.
With --decode it also orjson-decodes each request body, the one step every real
server must add.

    python bench/ceiling.py --port 8100 [--decode]
"""

from __future__ import annotations

import argparse
import asyncio

import httptools
import orjson
import uvloop

_BODY = orjson.dumps(
    {
        "Item": {
            "pk": {"S": "k-ceiling-0000001"},
            "name": {"S": "Ada Lovelace Byron King"},
            "email": {"S": "ada.lovelace@analytical.example"},
            "age": {"N": "36"},
            "active": {"BOOL": True},
            "payload": {"S": "x" * 100},
        }
    }
)
_REPLY = (
    b"HTTP/1.1 200 OK\r\n"
    b"Content-Type: application/x-amz-json-1.0\r\n"
    b"x-amzn-RequestId: CEILING0000000000000000000000000000000000000000000000\r\n"
    b"Content-Length: " + str(len(_BODY)).encode() + b"\r\n\r\n" + _BODY
)


class FixedReply(asyncio.Protocol):
    """One connection: parse requests as they stream in, answer each with _REPLY."""

    __slots__ = ("transport", "parser", "decode", "body")

    def __init__(self, decode: bool) -> None:
        self.decode = decode
        self.parser = httptools.HttpRequestParser(self)
        self.body: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            self.transport.close()

    # httptools callbacks
    def on_body(self, chunk: bytes) -> None:
        self.body.append(chunk)

    def on_message_complete(self) -> None:
        if self.decode:
            orjson.loads(b"".join(self.body))
        self.body.clear()
        self.transport.write(_REPLY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--decode", action="store_true", help="orjson-decode each request body")
    args = parser.parse_args()

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: FixedReply(args.decode), args.host, args.port)
        async with server:
            await server.serve_forever()

    uvloop.run(serve())


if __name__ == "__main__":
    main()
