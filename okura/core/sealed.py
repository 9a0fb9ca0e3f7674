"""Sealed tokens: what okura hands a client to come back with (shard iterators, the
NextToken of PartiQL and of the List operations) carries an HMAC-SHA256, truncated to
128 bits, of its purpose and contents under a secret made once and kept in storage, so
every node shares it and it outlives restarts. An edited or forged token is refused
before anything in it is used, and what it says (a position, an issue time) is the
server's own: expiry is decided from an issue time no client can change."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from typing import Any

import orjson

from okura.core.spaces import SECRETS
from okura.storage.engine import Engine, doc_of

_HK, _RK = b"token-secret", b""
_MAC = 16  # bytes of the HMAC kept: forging one takes 2^128 tries


class Seal:
    __slots__ = ("_inner", "_outer")

    def __init__(self, secret: bytes):
        # HMAC's keyed inner and outer SHA-256 states (RFC 2104), copied per token: a
        # third of the cost of hmac's own copy() on GetRecords' path
        key = secret.ljust(64, b"\0")  # the secret is 32 bytes: shorter than a block
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    def _sum(self, purpose: bytes, payload: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(purpose + b"\0" + payload)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()[:_MAC]

    def token(self, purpose: bytes, value: Any) -> str:
        """`value` (JSON-serialisable) sealed for `purpose`, as URL-safe base64."""
        payload = orjson.dumps(value)
        return base64.urlsafe_b64encode(self._sum(purpose, payload) + payload).decode()

    def opened(self, purpose: bytes, token: str) -> Any:
        """The value of a token sealed for `purpose`; None if it is anything else."""
        try:
            raw = base64.urlsafe_b64decode(token)
        except (ValueError, binascii.Error):
            return None
        return self._checked(purpose, raw)

    def hex_token(self, purpose: bytes, value: Any, least: int = 0) -> str:
        """`token` in hex, padded with zero bytes to a multiple of 8 and at least
        `least` bytes (ListImports' model asks for hex in groups of 16 digits)."""
        payload = orjson.dumps(value)
        raw = self._sum(purpose, payload) + payload
        return (raw + b"\0" * (max(least, -(-len(raw) // 8) * 8) - len(raw))).hex()

    def hex_opened(self, purpose: bytes, token: str) -> Any:
        try:
            raw = bytes.fromhex(token)
        except ValueError:
            return None
        return self._checked(purpose, raw.rstrip(b"\0"))  # JSON never ends in a zero byte

    def _checked(self, purpose: bytes, raw: bytes) -> Any:
        mac, payload = raw[:_MAC], raw[_MAC:]
        if not hmac.compare_digest(mac, self._sum(purpose, payload)):
            return None
        return orjson.loads(payload)


async def load(engine: Engine) -> Seal:
    """The storage's seal, its secret made by the first server to start on it (a
    concurrent first start of another node waits on the locked read, then reads it)."""
    async with engine.transaction() as unit:
        secret = doc_of(await unit.get(SECRETS, _HK, _RK, lock=True))
        if secret is None:
            secret = os.urandom(32)
            await unit.put(SECRETS, _HK, _RK, 0, secret)
    return Seal(secret)
