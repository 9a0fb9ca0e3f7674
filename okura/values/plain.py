"""The commonest items and keys, recognised, checked and sized in one cheap walk.

The hot operations try this first: it accepts only values that the full checks
(the request model, validation.py, key_rules.py) certainly accept, normalising
numbers as they do, and answers None on anything else. That value then goes
the general way, which words DynamoDB's errors; no rule is decided here that
validation.py does not also decide.
"""
from __future__ import annotations

from okura import errors
from okura.values import numbers
from okura.values.key_rules import MAX_SORT_KEY_SIZE
from okura.values.sizes import number_size

_MAX_NAME = 65535  # the request model's AttributeName limit
# A key string of at most this many characters is within every key size limit
# (UTF-8 takes at most 4 bytes a character).
_SHORT_KEY = MAX_SORT_KEY_SIZE // 4


def item_size(item) -> int | None:
    """The DynamoDB size of an item of plain scalars (S, N, BOOL, NULL), its numbers
    normalised in place; None when it is not one (or not valid)."""
    if type(item) is not dict:
        return None
    total = 0
    for name, av in item.items():
        if type(av) is not dict or len(av) != 1 or len(name) > _MAX_NAME:
            return None
        total += len(name) if name.isascii() else len(name.encode())
        (tag, value), = av.items()
        kind = type(value)
        if tag == "S" and kind is str:
            total += len(value) if value.isascii() else len(value.encode())
        elif tag == "N" and kind is str:
            normal = _number(value)
            if normal is None:
                return None
            if normal is not value:
                av["N"] = normal
            total += number_size(normal)
        elif (tag == "BOOL" and kind is bool) or (tag == "NULL" and value is True):
            total += 1
        else:
            return None
    return total


def key(key, schema) -> bool:
    """Whether a Key parameter is exactly the schema's attributes with valid plain
    values (short strings, numbers), its numbers normalised in place."""
    if type(key) is not dict or len(key) != len(schema):
        return False
    for name, type_ in schema:
        av = key.get(name)
        if type(av) is not dict or len(av) != 1 or not _key_value(av, type_):
            return False
    return True


def item_keys(item: dict, schema) -> bool:
    """Whether an item accepted by item_size() carries valid plain key attributes."""
    for name, type_ in schema:
        av = item.get(name)
        if av is None or not _key_value(av, type_):
            return False
    return True


def _key_value(av: dict, type_: str) -> bool:
    value = av.get(type_)
    if type_ == "S":
        return type(value) is str and 0 < len(value) <= _SHORT_KEY
    if type_ == "N" and type(value) is str:
        normal = _number(value)
        if normal is not None:
            av["N"] = normal
            return True
    return False


def _number(text: str) -> str | None:
    try:
        return numbers.normalize(text)
    except errors.DynamoError:
        return None
