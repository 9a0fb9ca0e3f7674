"""Sealed tokens (core/sealed.py): what a seal makes opens, anything else does not."""
from __future__ import annotations

import hashlib
import hmac

from okura.core.sealed import Seal

SECRET = bytes(range(32))


def test_the_seal_is_hmac_sha256_truncated_to_16_bytes():
    token = Seal(SECRET).hex_token(b"purpose", [1, "x"])
    raw = bytes.fromhex(token).rstrip(b"\0")
    assert raw[:16] == hmac.new(SECRET, b"purpose\0" + raw[16:], hashlib.sha256).digest()[:16]


def test_a_token_opens_for_its_purpose_and_seal_only():
    seal = Seal(SECRET)
    for value in ([0, "a", 1.5], {"k": None}, 7, "text"):
        token = seal.token(b"one", value)
        assert seal.opened(b"one", token) == value
        assert seal.opened(b"two", token) is None
        assert Seal(bytes(32)).opened(b"one", token) is None
        hexed = seal.hex_token(b"one", value, 56)
        assert len(hexed) >= 112 and len(hexed) % 16 == 0
        assert seal.hex_opened(b"one", hexed) == value


def test_every_edited_byte_and_any_garbage_is_refused():
    seal = Seal(SECRET)
    raw = bytes.fromhex(seal.hex_token(b"p", [3, "shard", 12.5]))
    for i in range(len(raw.rstrip(b"\0"))):
        edited = raw[:i] + bytes([raw[i] ^ 1]) + raw[i + 1:]
        assert seal.hex_opened(b"p", edited.hex()) is None
    for garbage in ("", "!!", "AAAA", "x" * 1000, "=" * 4):
        assert seal.opened(b"p", garbage) is None
    for garbage in ("", "zz", "0" * 112):
        assert seal.hex_opened(b"p", garbage) is None
