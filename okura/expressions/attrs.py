"""What the expressions need to know about wire-form attribute values.

Equality, ordering, size and set element identity over {"S": ...}-style
values. Numbers arrive normalised (okura.values.numbers), so equal numbers have
equal text; binaries are base64 text and are decoded before comparing.
Meant to merge into okura/values/ once that package offers the same.
"""
from __future__ import annotations

from base64 import b64decode
from decimal import Decimal

SETS = frozenset({"SS", "NS", "BS"})
# The full type names DynamoDB uses in ADD/DELETE operand errors.
LONG_NAMES = {"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL",
              "L": "LIST", "M": "MAP", "SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET"}


def type_of(av: dict) -> str:
    for key in av:
        return key
    raise ValueError("empty attribute value")


def member_key(set_type: str):
    """How members of a set are told apart: binaries by their bytes, the others by their text."""
    return b64decode if set_type == "BS" else _same


def _same(member: str) -> str:
    return member


def set_keys(set_type: str, members) -> set:
    return set(map(member_key(set_type), members))


def equal(a: dict, b: dict) -> bool:
    ta = type_of(a)
    if ta not in b:
        return False
    va, vb = a[ta], b[ta]
    if ta == "B":
        return b64decode(va) == b64decode(vb)
    if ta in SETS:
        return len(va) == len(vb) and set_keys(ta, va) == set_keys(ta, vb)
    if ta == "L":
        return len(va) == len(vb) and all(map(equal, va, vb))
    if ta == "M":
        return va.keys() == vb.keys() and all(equal(v, vb[k]) for k, v in va.items())
    return va == vb


def compare(a: dict, b: dict) -> int | None:
    """-1, 0 or 1 for two numbers, strings or binaries of one type; None when they do not order."""
    ta = type_of(a)
    if ta not in b:
        return None
    va, vb = a[ta], b[ta]
    if ta == "N":
        x, y = Decimal(va), Decimal(vb)
    elif ta == "S":
        # code point order is UTF-8 byte order, DynamoDB's string order
        x, y = va, vb
    elif ta == "B":
        x, y = b64decode(va), b64decode(vb)
    else:
        return None
    return (x > y) - (x < y)


def size(av: dict) -> int | None:
    """DynamoDB's size(): UTF-8 bytes of a string, bytes of a binary, members of a set, list or map."""
    t = type_of(av)
    v = av[t]
    if t == "S":
        return len(v) if v.isascii() else len(v.encode())
    if t == "B":
        return len(b64decode(v))
    if t in SETS or t == "L" or t == "M":
        return len(v)
    return None


def text(av: dict) -> str:
    """An attribute value as DynamoDB prints it in messages: {N:10}, {S:abc}."""
    t = type_of(av)
    return f"{{{t}:{av[t]}}}"
