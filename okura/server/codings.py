"""Content codings: request bodies a client compressed (Content-Encoding), replies
compressed for a client that accepts it (Accept-Encoding)."""
from __future__ import annotations

import zlib
from functools import lru_cache

from okura import errors

MAX_BODY = 16 * 1024 * 1024 + 64 * 1024  # BatchWriteItem's 16 MB plus envelope
COMPRESS_OVER = 4096  # DynamoDB compresses replies longer than this, no shorter (recorded)
# wbits of each coding a request body may come in: gzip (members, as gzip allows) and
# deflate, which HTTP defines as the zlib format (RFC 9110 8.4.1.2); identity (unverified)
# is the body as it came.
_WBITS = {"gzip": 31, "deflate": 15}
_FIRST_STEP = 256  # input fed to a member's inflater at first, doubled while it lasts
# gzip members a body may hold (gzip allows several; SDKs send one). Each costs a few
# microseconds of Python however small: 4 MB of empty members would hold the server
# for a second, and 16 MB for four.
MAX_MEMBERS = 1000


def decode_body(headers: dict, body: bytes) -> bytes:
    """The request body, decoded by its Content-Encoding. A coding okura does not know,
    or a body it does not decode (or of more than MAX_MEMBERS gzip members), is
    DynamoDB's InternalServerError (recorded): the request is not run."""
    coding = headers.get("content-encoding", "").strip().lower()
    wbits = _WBITS.get(coding)
    if wbits is None:
        if coding in ("identity", ""):
            return body
        raise errors.internal_server_error()
    return _inflate(memoryview(body), wbits)


def _inflate(body: memoryview, wbits: int) -> bytes:
    """Inflated no further than the largest body okura takes (a small body may stand for
    gigabytes). A member's input is fed in pieces that double in size, so that what zlib
    copies into `unused_data` at a member's end is at most twice what the member took:
    work linear in the body however many members it holds (handed the whole rest at
    once, 16 MB of empty gzip members took minutes)."""
    if not body:  # not one member: truncated before its header, undecodable as any other
        raise errors.internal_server_error()
    inflated: list[bytes] = []
    size, at, end = 0, 0, len(body)
    for _ in range(MAX_MEMBERS):
        if at >= end:
            return b"".join(inflated)
        inflate = zlib.decompressobj(wbits=wbits)
        step = _FIRST_STEP
        while not inflate.eof:
            if at >= end:
                raise errors.internal_server_error()  # truncated
            piece = body[at:at + step]
            at += len(piece)
            step *= 2
            try:
                part = inflate.decompress(piece, MAX_BODY + 1 - size)
            except zlib.error:
                raise errors.internal_server_error() from None
            size += len(part)
            if size > MAX_BODY:
                raise errors.request_too_large()
            inflated.append(part)
        at -= len(inflate.unused_data)
        if wbits != 31 and at < end:
            raise errors.internal_server_error()  # one zlib stream, then nothing
    if at < end:
        raise errors.internal_server_error()  # more members than MAX_MEMBERS
    return b"".join(inflated)


@lru_cache(maxsize=64)
def accepted(accept_encoding: str) -> bytes | None:
    """The coding to compress a reply with for this Accept-Encoding (b"gzip" or
    b"deflate"), or None: the highest q-value wins, the first listed a tie, q=0 refuses,
    `*` stands for gzip unless gzip is named itself; identity may win too (no
    compression)."""
    offered: list[tuple[str, float]] = []
    for entry in accept_encoding.split(","):
        name, _, params = entry.partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        offered.append((name.strip().lower(), q))
    named = {name for name, _ in offered}
    best, best_q = None, 0.0
    for name, q in offered:
        if name == "*" and "gzip" not in named:
            name = "gzip"
        if name in ("gzip", "deflate", "identity") and q > best_q:
            best, best_q = name, q
    return None if best is None or best == "identity" else best.encode()

def compress(coding: bytes, body: bytes) -> bytes:
    """`body` in `coding`; level 1: a reply waits for it, and JSON shrinks well anyway."""
    packer = zlib.compressobj(1, wbits=31 if coding == b"gzip" else 15)
    return packer.compress(body) + packer.flush()
