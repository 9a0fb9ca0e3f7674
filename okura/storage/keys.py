"""Order-preserving key bytes: comparing the bytes (memcmp, as SQLite BLOB and
PostgreSQL bytea compare) compares the key values the way DynamoDB does.

A key attribute's type is fixed by the table's schema, so an encoding carries no
type tag, and each encoded value fills its own column, so it needs no length.

- S: the UTF-8 bytes. B: the decoded bytes. Both keep prefixes as prefixes, so
  begins_with is a byte range.
- N: a sign byte, the decimal exponent biased into one byte (DynamoDB's range,
  1E-130 to below 1E+126, is exactly 256 exponents), then the significant digits
  packed two to a byte as nibbles 1-10 (0 is left free to end a positive number
  below any digit). Negative numbers invert exponent and digits and end with
  nibble F, above any digit, so that -1 sorts after -1.05.

A sort key is stored as `sort_key()`: its encoding `terminated()`, so that an index
row can append its table key after the index's sort key, and multi-attribute keys
can concatenate their parts, without disturbing the order. Range conditions become
byte ranges: a value's rows start at its terminated bytes; `prefix_end` closes a
prefix (begins_with, or "all rows of exactly this value").

A partition key is stored as `partition()`: an 8-byte hash before the encoding,
so rows cluster by hash and a Scan walks partitions in hash order, and parallel
scan segments are ranges of the hash space (`segment_bounds`). The hash is
written to disk: it must never change.
"""
from __future__ import annotations

import base64
import binascii
from functools import partial
from decimal import Decimal
from hashlib import blake2b

from okura.values import numbers

_NEGATIVE, _ZERO, _POSITIVE = b"\x01", b"\x02", b"\x03"
_EXPONENT_BIAS = 130  # numbers.check keeps adjusted exponents within [-130, 125]
_POSITIVE_NIBBLES = str.maketrans("0123456789", "123456789a")
_NEGATIVE_NIBBLES = str.maketrans("0123456789", "a987654321")
_POSITIVE_DIGITS = str.maketrans("123456789a", "0123456789")
_NEGATIVE_DIGITS = str.maketrans("a987654321", "0123456789")
HASH_BYTES = 8
_HASH_SPACE = 1 << (8 * HASH_BYTES)


def encode(type_: str, wire_value: str) -> bytes:
    """Key bytes of a key attribute's wire value ("S", "N" or "B" as on the wire)."""
    if type_ == "S":
        return wire_value.encode()
    if type_ == "B":
        try:
            return base64.b64decode(wire_value, validate=True)
        except binascii.Error:
            raise ValueError(f"invalid base64 key value: {wire_value!r}") from None
    if type_ == "N":
        return _encode_number(wire_value)
    raise ValueError(f"not a key attribute type: {type_!r}")


def _encode_number(text: str) -> bytes:
    sign, digits, exponent = numbers.parse(text).as_tuple()
    assert isinstance(exponent, int)  # parse() takes finite numbers only
    if not digits or digits == (0,):
        return _ZERO
    adjusted = exponent + len(digits) - 1 + _EXPONENT_BIAS
    text = "".join(map(str, digits))
    if sign:
        nibbles = text.translate(_NEGATIVE_NIBBLES) + ("f" if len(text) % 2 else "ff")
        return _NEGATIVE + bytes((255 - adjusted,)) + bytes.fromhex(nibbles)
    nibbles = text.translate(_POSITIVE_NIBBLES) + ("0" if len(text) % 2 else "")
    return _POSITIVE + bytes((adjusted,)) + bytes.fromhex(nibbles)


def decode(type_: str, encoded: bytes) -> str:
    """The wire value of key bytes `encode` made (for display: Contributor Insights)."""
    if type_ == "S":
        return encoded.decode()
    if type_ == "B":
        return base64.b64encode(encoded).decode()
    return _decode_number(encoded)


def _decode_number(encoded: bytes) -> str:
    if encoded[:1] == _ZERO:
        return "0"
    negative = encoded[:1] == _NEGATIVE
    adjusted = (255 - encoded[1] if negative else encoded[1]) - _EXPONENT_BIAS
    nibbles = encoded[2:].hex()
    if negative:
        digits = nibbles.rstrip("f").translate(_NEGATIVE_DIGITS)
    else:
        digits = nibbles.rstrip("0").translate(_POSITIVE_DIGITS)
    value = Decimal((int(negative), tuple(map(int, digits)), adjusted - len(digits) + 1))
    return numbers.to_text(value)


def terminated(encoded: bytes) -> bytes:
    """An encoding made safe to concatenate with what follows while keeping order:
    0x00 becomes 0x00 0xFF and 0x00 0x00 ends it, so a value sorts before every
    longer value it prefixes, whatever bytes come after it."""
    return encoded.replace(b"\x00", b"\x00\xff") + b"\x00\x00"


def split_terminated(data: bytes) -> tuple[bytes, bytes]:
    """(the encoding, what follows) of bytes that start with a terminated() encoding: an
    escaped 0x00 is followed by 0xFF, so the first 0x00 0x00 is the terminator."""
    end = data.find(b"\x00\x00")
    return data[:end].replace(b"\x00\xff", b"\x00"), data[end + 2:]


def sort_key(type_: str, wire_value: str) -> bytes:
    """Stored range-key bytes of one sort key value: terminated, so that index rows
    can append the table's key after it (and multi-attribute keys concatenate)."""
    return terminated(encode(type_, wire_value))


def prefix_end(prefix: bytes) -> bytes | None:
    """The smallest byte string above every string that starts with `prefix`
    (None when there is none: the prefix is empty or all 0xFF)."""
    stripped = prefix.rstrip(b"\xff")
    if not stripped:
        return None
    return stripped[:-1] + bytes((stripped[-1] + 1,))


# The fixed-width hash that orders partitions; stable forever (it is on disk).
_HASHER = partial(blake2b, digest_size=HASH_BYTES)


def partition_hash(encoded: bytes) -> bytes:
    """The fixed-width hash that orders partitions."""
    return _HASHER(encoded).digest()


def partition(type_: str, wire_value: str) -> bytes:
    """Stored bytes of a partition key value: its hash, then its encoding (every
    request with a key passes here: a string's encoding and the hash are inlined)."""
    encoded = wire_value.encode() if type_ == "S" else encode(type_, wire_value)
    return _HASHER(encoded).digest() + encoded


def segment_bounds(segment: int, total: int) -> tuple[bytes, bytes | None]:
    """The partition-bytes range [lo, hi) of parallel-scan segment `segment` of
    `total`; hi is None for the last segment, which runs to the end of the space
    (no finite byte string is above every B partition key)."""
    if not 0 <= segment < total:
        raise ValueError(f"segment {segment} outside 0..{total - 1}")
    lo = (segment * _HASH_SPACE // total).to_bytes(HASH_BYTES, "big")
    if segment == total - 1:
        return lo, None
    return lo, ((segment + 1) * _HASH_SPACE // total).to_bytes(HASH_BYTES, "big")
