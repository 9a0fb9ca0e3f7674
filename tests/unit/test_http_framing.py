"""Request framing however the input is cut (server/http.py): a request head is refused
past 16 KB whether it comes in one piece or many, and never for bytes of the requests
before it; bodies in many small chunks arrive whole."""
from __future__ import annotations

import asyncio

import orjson

from in_process import app_on
from okura.config import Settings
from test_outbox import Transport, connect, post, settle


def _head_of(request: bytes, padding: int) -> bytes:
    """`request` with an X-Pad header that makes its head `padding` bytes longer."""
    line = b"X-Pad: " + b"p" * (padding - 9) + b"\r\n"
    return request.replace(b"Host: localhost\r\n", b"Host: localhost\r\n" + line, 1)


def _statuses(transport: Transport) -> list[bytes]:
    return [reply[:3] for reply in b"".join(transport.out).split(b"HTTP/1.1 ")[1:]]


def _fed(chunks: list[bytes]) -> list[bytes]:
    async def run():
        async with app_on(Settings(memory=True)) as app:
            protocol, transport = connect(app)
            for chunk in chunks:
                protocol.data_received(chunk)
                await settle()
            return _statuses(transport)

    return asyncio.run(run())


LIST = post("ListTables", {})


def test_a_head_over_16_kb_is_refused_however_it_is_cut():
    small, large = _head_of(LIST, 15 * 1024), _head_of(LIST, 17 * 1024)
    assert _fed([small]) == [b"200"]
    assert _fed([large]) == [b"400"]
    for cut in (1, 100, 8000, 16000, len(large) - 10):
        assert _fed([large[:cut], large[cut:]]) == [b"400"], cut
        assert _fed([small[:cut], small[cut:]]) == [b"200"], cut
    assert _fed([large[i:i + 1000] for i in range(0, len(large), 1000)]) == [b"400"]
    assert _fed([small[i:i + 1000] for i in range(0, len(small), 1000)]) == [b"200"]
    long_url = LIST.replace(b"POST / ", b"POST /?" + b"u" * 17000 + b" ", 1)
    assert _fed([long_url[:9000], long_url[9000:]]) == [b"400"]


def test_a_header_without_end_is_refused_before_it_is_all_read():
    async def run():
        async with app_on(Settings(memory=True)) as app:
            protocol, transport = connect(app)
            protocol.data_received(b"GET / HTTP/1.1\r\nX-Big: ")
            for _ in range(20):  # 20 MB offered, refused after the first 16 KB
                protocol.data_received(b"b" * (1024 * 1024))
            await settle()
            assert _statuses(transport) == [b"400"] and transport.closed

    asyncio.run(run())


def test_requests_before_a_head_do_not_count_towards_it():
    """A chunk ending inside a head that began after other requests in that chunk: only
    the head's own bytes count, however large the chunk."""
    body_heavy = post("ListTables", {"ExclusiveStartTableName": "x" * 200, "Limit": 5})
    before = body_heavy * 60  # 20 KB of earlier requests in the same chunk
    padded = _head_of(LIST, 12 * 1024)
    assert _fed([before + padded[:100], padded[100:]]) == [b"200"] * 61
    assert _fed([before + padded[:5000], padded[5000:8000], padded[8000:]]) == [b"200"] * 61
    too_large = _head_of(LIST, 17 * 1024)
    assert _fed([before + too_large[:100], too_large[100:]]) == [b"200"] * 60 + [b"400"]


def test_a_body_in_many_small_chunks_arrives_whole():
    item = {"TableName": "framing", "Item": {"pk": {"S": "k"}, "v": {"S": "v" * 50_000}}}
    body = orjson.dumps(item)
    head = post("PutItem", item).partition(b"\r\n\r\n")[0].replace(
        b"Content-Length: %d" % len(body), b"Transfer-Encoding: chunked")
    chunked = b"".join(b"1\r\n%s\r\n" % body[i:i + 1] for i in range(len(body))) + b"0\r\n\r\n"

    async def run():
        async with app_on(Settings(memory=True)) as app:
            protocol, transport = connect(app)
            protocol.data_received(post("CreateTable", {
                "TableName": "framing", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}))
            protocol.data_received(head + b"\r\n\r\n")
            for at in range(0, len(chunked), 4096):  # many reads, each of many chunks
                protocol.data_received(chunked[at:at + 4096])
            protocol.data_received(post("GetItem", {"TableName": "framing",
                                                    "Key": {"pk": {"S": "k"}}}))
            await settle()
            assert _statuses(transport) == [b"200"] * 3
            got = b"".join(transport.out).rpartition(b"\r\n\r\n")[2]
            assert orjson.loads(got) == {"Item": item["Item"]}

    asyncio.run(run())
