"""Work per request stays linear in its size and bounded: compressed bodies of any
member count, chunked bodies of any chunk count, request heads, a body's announced
length (server/http.py, server/codings.py). Each case is timed against a body of the same kind, as a ratio, so
that a loaded machine slows both alike."""
from __future__ import annotations

import gzip
import json
import os
import socket
import time

import pytest

from conftest import Server
from test_access import start
from test_protocol import SIGNED

from okura.server.codings import MAX_BODY

INTERNAL_ERROR = b'{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"'


@pytest.fixture(scope="module")
def front():
    """One server: these are the HTTP front's, the same on every backend."""
    server = Server()
    yield server
    server.stop()


def exchange(server, data: bytes) -> tuple[float, bytes]:
    """Seconds from sending `data` on a fresh connection to the whole reply, and the
    reply."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        started = time.perf_counter()
        sock.sendall(data)
        received = b""
        while True:
            head, _, body = received.partition(b"\r\n\r\n")
            if _ and len(body) >= int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0]):
                return time.perf_counter() - started, received
            chunk = sock.recv(65536)
            assert chunk, received
            received += chunk


def fastest(server, data: bytes, times: int = 3) -> tuple[float, bytes]:
    """The fastest of a few exchanges (the least disturbed by other work)."""
    return min(exchange(server, data) for _ in range(times))


def signed_head(length: int, *headers: bytes) -> bytes:
    return (b"POST / HTTP/1.1\r\nHost: localhost\r\n" + SIGNED + b"".join(headers)
            + b"Content-Length: %d\r\n\r\n" % length)


def signed(body: bytes, *headers: bytes) -> bytes:
    return signed_head(len(body), *headers) + body


def test_gzip_bodies_of_many_members_cost_no_more_than_one_member(front):
    """A body of 209,717 gzip members (4 MB, the first `{}`, the rest empty) took seconds
    of the one event loop; more than 1,000 members are refused like a body that does not
    decode, in about the time one member of the same size takes to inflate."""
    gzipped = b"Content-Encoding: gzip\r\n"
    bomb = gzip.compress(b"{}") + gzip.compress(b"") * 209_716
    padding = os.urandom(4 * 1024 * 1024).hex().encode()  # one member larger than the bomb
    one = gzip.compress(b'{"Limit": 5, "Padding": "%s"}' % padding)
    assert len(one) > len(bomb)
    bomb_time, reply = fastest(front, signed(bomb, gzipped))
    assert reply.startswith(b"HTTP/1.1 500 ") and INTERNAL_ERROR in reply
    one_time, reply = fastest(front, signed(one, gzipped))
    assert reply.startswith(b"HTTP/1.1 200 ")
    assert bomb_time < 2 * one_time, (bomb_time, one_time)
    most = gzip.compress(b'{"Limit": 5}') + gzip.compress(b"") * 999
    assert exchange(front, signed(most, gzipped))[1].startswith(b"HTTP/1.1 200 ")
    assert exchange(front, signed(most + gzip.compress(b""), gzipped))[1].startswith(
        b"HTTP/1.1 500 ")


def _chunked(body: bytes, size: int) -> bytes:
    pieces = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
                      for i in range(0, len(body), size))
    return (b"POST / HTTP/1.1\r\nHost: localhost\r\n" + SIGNED
            + b"Transfer-Encoding: chunked\r\n\r\n" + pieces + b"0\r\n\r\n")


def test_chunked_bodies_cost_linear_time_in_their_chunks(front):
    """20,000 one-byte chunks took 3 s (each re-summed the chunks before it); now ten times
    as many chunks cost about ten times as much."""
    def body(size: int) -> bytes:
        return b'{"Limit": 5' + b" " * (size - 12) + b"}"

    few, reply = fastest(front, _chunked(body(2_000), 1), 5)
    assert reply.startswith(b"HTTP/1.1 200 ") and b"TableNames" in reply
    many, reply = fastest(front, _chunked(body(20_000), 1), 5)
    assert reply.startswith(b"HTTP/1.1 200 ") and b"TableNames" in reply
    assert many < 30 * few, (many, few)


def test_request_heads_over_16_kb_are_refused(front):
    """DynamoDB answers HTTP 400 to request headers over 16 KB; a 100 MB header took
    140 MiB and held every other client for seconds: now it is refused once 16 KB of it
    have arrived, about as fast as a small head is answered."""
    def padded(size: int) -> bytes:
        return signed(b"{}", b"X-Pad: " + b"p" * size + b"\r\n")

    assert exchange(front, padded(15 * 1024))[1].startswith(b"HTTP/1.1 200 ")
    assert exchange(front, padded(17 * 1024))[1].startswith(b"HTTP/1.1 400 ")
    small, _ = fastest(front, padded(100))
    with socket.create_connection(("127.0.0.1", front.port), timeout=30) as sock:
        started = time.perf_counter()
        sock.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
        received = b""
        try:
            for _ in range(100):  # up to 100 MB, never all sent
                sock.sendall(b"b" * (1024 * 1024))
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass
        refused = time.perf_counter() - started
    assert received.startswith(b"HTTP/1.1 400 ") or received == b""
    assert refused < 50 * small + 0.5, (refused, small)


@pytest.fixture(scope="module")
def guarded_front(tmp_path_factory):
    """A server with auth on: its front reads every header itself (server/guarded.py)."""
    server = start(tmp_path_factory, "enforce")
    yield server
    server.stop()


@pytest.mark.parametrize("which", ["front", "guarded_front"])
def test_a_body_longer_than_any_request_is_refused_on_its_headers(request, which):
    """A Content-Length over the largest request okura takes (BatchWriteItem's 16 MB and
    its envelope) is answered 413 as soon as the headers arrive, and the connection
    closed: none of the body is waited for (a gigabyte's length got no answer while its
    first 8 MB arrived, and kept its connection open)."""
    front = request.getfixturevalue(which)
    for length, spelled in ((MAX_BODY + 1, b"Content-Length"),
                            (1_000_000_000, b"CONTENT-LENGTH")):  # as SDKs spell it, or not
        head = signed_head(length).replace(b"Content-Length", spelled)
        with socket.create_connection(("127.0.0.1", front.port), timeout=5) as sock:
            sock.sendall(head)  # the headers alone: the reply may not wait
            received = b""
            while chunk := sock.recv(65536):  # to the end: okura closes the connection
                received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413 ") and b"\r\nConnection: close" in head
        assert json.loads(body) == {
            "__type": "com.amazon.coral.service#RequestEntityTooLargeException",
            "message": "Request entity too large"}
    # and it serves on (with auth on, the test's made-up signature is refused)
    served = exchange(front, signed(b"{}"))[1]
    assert served.startswith(b"HTTP/1.1 200 ") if which == "front" else (
        b"InvalidSignatureException" in served), served[:400]
