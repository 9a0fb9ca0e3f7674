"""Ordering and equality of checked AttributeValues as DynamoDB defines them:
S by UTF-8 bytes (which is code point order, Python's str order), N numerically,
B by decoded bytes; sets equal as sets, M and L deeply.
"""
from __future__ import annotations

import binascii
from decimal import Decimal


def _sign(a, b) -> int:
    return (a > b) - (a < b)


def compare(a: dict, b: dict) -> int:
    """-1, 0 or 1 for two S, N or B values of the same type; TypeError otherwise
    (expressions treat a comparison across types as false before asking)."""
    (tag, x), = a.items()
    (other, y), = b.items()
    if tag != other:
        raise TypeError(f"cannot order {tag} against {other}")
    if tag == "S":
        return _sign(x, y)
    if tag == "N":
        return _sign(Decimal(x), Decimal(y))
    if tag == "B":
        return _sign(binascii.a2b_base64(x), binascii.a2b_base64(y))
    raise TypeError(f"{tag} values have no order")


def equal(a: dict, b: dict) -> bool:
    """Whether two AttributeValues of any types are equal."""
    (tag, x), = a.items()
    (other, y), = b.items()
    if tag != other:
        return False
    if tag == "N":
        return Decimal(x) == Decimal(y)
    if tag == "NS":
        return len(x) == len(y) and set(map(Decimal, x)) == set(map(Decimal, y))
    if tag in ("SS", "BS"):
        return len(x) == len(y) and set(x) == set(y)
    if tag == "M":
        return x.keys() == y.keys() and all(equal(member, y[name]) for name, member in x.items())
    if tag == "L":
        return len(x) == len(y) and all(map(equal, x, y))
    return x == y
