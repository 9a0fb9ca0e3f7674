"""DynamoDB numbers: parsing, validation, normalisation and exact arithmetic.

A Number holds up to 38 significant digits with a magnitude from 1E-130 up to
(but excluding) 1E+126, or zero. okura stores and returns numbers in their
normalised text form: no exponent, no leading or trailing zeros ("1.50" -> "1.5",
"1e3" -> "1000", "-0" -> "0"). Arithmetic is exact: operands are at most 38
digits within that range, so a 300-digit context never rounds.
"""
from __future__ import annotations

import re
from decimal import Context, Decimal, InvalidOperation

from okura import errors

_SYNTAX = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_EXACT = Context(prec=300, Emax=999999, Emin=-999999)
MAX_DIGITS = 38
_OVERFLOW = ("Number overflow. Attempting to store a number with magnitude larger than supported "
             "range")
_UNDERFLOW = ("Number underflow. Attempting to store a number with magnitude smaller than "
              "supported range")


def parse(text: str) -> Decimal:
    """Parse and validate a wire number; raises DynamoDB's ValidationException."""
    if not isinstance(text, str) or _SYNTAX.fullmatch(text) is None:
        raise errors.validation(f"The parameter cannot be converted to a numeric value: {text}")
    try:
        return check(Decimal(text))
    except InvalidOperation:
        # An exponent past what Decimal holds at all (over 10**18 digits long).
        mantissa, _, exponent = text.lower().partition("e")
        if not mantissa.strip("+-.0"):
            return Decimal(0)
        raise errors.validation(_UNDERFLOW if exponent.startswith("-") else _OVERFLOW) from None


def check(value: Decimal) -> Decimal:
    """Reject values outside DynamoDB's precision and range; returns the value normalised."""
    if not value:
        return Decimal(0)
    if _significant(value) > MAX_DIGITS:
        raise errors.validation("Attempting to store more than 38 significant digits in a Number")
    # Range first: normalising a value far outside it would overflow the context itself.
    exponent = value.adjusted()
    if exponent >= 126:
        raise errors.validation(_OVERFLOW)
    if exponent < -130:
        raise errors.validation(_UNDERFLOW)
    return value.normalize(_EXACT)


def _significant(value: Decimal) -> int:
    return len("".join(map(str, value.as_tuple().digits)).strip("0"))


def to_text(value: Decimal) -> str:
    """The normalised wire form of a checked value."""
    if not value:
        return "0"
    return format(value, "f")


# Already normalised, and too short to leave the digit or magnitude limits: most numbers on the wire.
_NORMAL = re.compile(r"0|-?(?:0\.[0-9]*[1-9]|[1-9][0-9]*(?:\.[0-9]*[1-9])?)")


def normalize(text: str) -> str:
    """Validate a wire number and return its normalised wire form."""
    if isinstance(text, str) and len(text) <= MAX_DIGITS and _NORMAL.fullmatch(text):
        return text
    return to_text(parse(text))


# A normalised integer of at most 37 digits: a sum or difference of two stays within
# 38 digits, and Python's int gives it exactly, in normalised form (the atomic counter).
_SMALL_INTEGER = re.compile(r"-?[1-9][0-9]{0,36}|0")


def add(a: str, b: str) -> str:
    if _SMALL_INTEGER.fullmatch(a) and _SMALL_INTEGER.fullmatch(b):
        return str(int(a) + int(b))
    return _result(_EXACT.add(Decimal(a), Decimal(b)))


def subtract(a: str, b: str) -> str:
    if _SMALL_INTEGER.fullmatch(a) and _SMALL_INTEGER.fullmatch(b):
        return str(int(a) - int(b))
    return _result(_EXACT.subtract(Decimal(a), Decimal(b)))


def _result(value: Decimal) -> str:
    """The normalised form of an arithmetic result. One whose integer part alone needs
    more than 38 digits is an overflow, as DynamoDB reports `1E50 - 1` (50 nines)."""
    if value and value.adjusted() >= MAX_DIGITS and _significant(value) > MAX_DIGITS:
        raise errors.validation(_OVERFLOW)
    return to_text(check(value))
