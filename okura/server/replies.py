"""The bytes of a reply: one format for every reply okura sends (API, health check, admin),
with a request id and the body's CRC32 as DynamoDB's carry them, and the body compressed
for a client that accepts it."""
from __future__ import annotations

import time
import zlib
from email.utils import formatdate
from itertools import count
from random import SystemRandom

from okura.server.codings import accepted, compress

_REQUEST_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_STATUS = {200: b"200 OK", 202: b"202 Accepted", 400: b"400 Bad Request", 403: b"403 Forbidden",
           404: b"404 Not Found", 405: b"405 Method Not Allowed", 409: b"409 Conflict",
           413: b"413 Request Entity Too Large", 500: b"500 Internal Server Error",
           503: b"503 Service Unavailable"}
JSON = b"application/x-amz-json-1.0"
_KEEP, _CLOSE = b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"


def _head(status: int, content_type: bytes | None) -> bytes:
    """A reply's status line and headers up to the length's value (every DynamoDB reply
    says `Server: Server`, recorded; `content_type` None: no Content-Type)."""
    kind = b"" if content_type is None else b"Content-Type: %s\r\n" % content_type
    return b"HTTP/1.1 %s\r\nServer: Server\r\n%sContent-Length: " % (
        _STATUS.get(status) or str(status).encode(), kind)


_JSON_HEADS = {status: _head(status, JSON) for status in _STATUS}  # formatted once


def request_ids():
    """DynamoDB-style 52-character request ids (ASCII bytes): a random per-process
    prefix and a counter, unique across processes without a random draw per request."""
    prefix = "".join(SystemRandom().choice(_REQUEST_ID_ALPHABET) for _ in range(40)).encode()
    for n in count():
        yield b"%s%012X" % (prefix, n)  # hexadecimal: cheaper to format than decimal


# The HTTP Date header's value and the second it was formatted for: formatted once per
# second by reply_bytes (inlined there: every reply passes).
_http_date: list = [-1, b""]


def compressed(headers: dict, body: bytes, extra: bytes) -> tuple[bytes, bytes]:
    """A long reply, compressed when the client accepts gzip or deflate: its body and header
    lines. x-amz-crc32 is then of the compressed bytes, as DynamoDB computes it (the SDKs
    check the bytes received before they inflate them)."""
    accept = headers.get("accept-encoding")
    coding = accepted(accept) if accept else None
    if coding is None:
        return body, extra
    return compress(coding, body), extra + b"\r\nContent-Encoding: " + coding


def reply_bytes(status, body, closing, content_type, request_id, extra=b"", with_body=True):
    """Every reply carries a request id and the body's CRC32, as DynamoDB's API replies
    do; the health check and admin replies share the one format. `extra`: more header
    lines; a reply to HEAD (not `with_body`) says the length of a body it leaves out."""
    head = (_JSON_HEADS.get(status) if content_type is JSON else None) or _head(
        status, content_type)
    now = int(time.time())
    if now != _http_date[0]:
        _http_date[:] = now, formatdate(now, usegmt=True).encode()
    return b"%s%d\r\nDate: %s\r\nx-amzn-RequestId: %s\r\nx-amz-crc32: %d%s%s%s" % (
        head, len(body), _http_date[1], request_id, zlib.crc32(body), extra,
        _CLOSE if closing else _KEEP, body if with_body else b"")
