"""The fast path's checks of values: the commonest items and keys, recognised, checked
and sized in one cheap walk.

The hot operations' fast paths (GetItem, PutItem, UpdateItem, BatchWriteItem), which the
server's gate tries before the request's shape check (server/router.py), take a request
only if these accept its values: they accept only what the full checks (the request
shape, validation.py, key_rules.py) certainly accept, and answer None (or False) on
anything else. The request then goes the general way, which words DynamoDB's errors; no
rule is decided here that validation.py does not also decide. Numbers are normalised as validation.py does, but only once the whole
request is accepted: each check adds (value, normal form) to a `pending` list that
the caller applies (`normalize`), so a request sent the general way arrives untouched.
"""
from __future__ import annotations

from okura import errors
from okura.values import numbers
from okura.values.key_rules import MAX_SORT_KEY_SIZE
from okura.values.sizes import number_size

# The request model limits an AttributeName to 65,535 UTF-16 units; a name of at most
# half as many characters is within it whatever its characters.
MAX_NAME = 65535 // 2
# A key string of at most this many characters is within every key size limit
# (UTF-8 takes at most 4 bytes a character).
_SHORT_KEY = MAX_SORT_KEY_SIZE // 4


def sized_item(item, pending: list) -> int | None:
    """The DynamoDB size of an item of plain scalars (S, N, BOOL, NULL), with its
    numbers' normal forms added to `pending`; None when it is not one (or not valid)."""
    if type(item) is not dict:
        return None
    # Names and strings are measured joined, each kind in one C call, and their types
    # checked by the join itself (a TypeError): a few bytecodes an attribute.
    names = "".join(item)
    if not 0 < len(names) <= MAX_NAME or "" in item:  # longer: checked name by name
        return None
    strings: list = []
    total = 0
    try:
        for av in item.values():
            if type(av) is not dict or len(av) != 1:
                return None
            value = av.get("S")
            if value is not None:
                strings.append(value)
                continue
            value = av.get("N")
            if value is not None:
                normal = _number(value) if type(value) is str else None
                if normal is None:
                    return None
                if normal is not value:
                    pending.append((av, normal))
                total += number_size(normal)
            elif type(av.get("BOOL")) is bool or av.get("NULL") is True:
                total += 1
            else:
                return None
        joined = "".join(strings)
    except TypeError:  # an S that is not a string (the join)
        return None
    return (total + (len(names) if names.isascii() else len(names.encode()))
            + (len(joined) if joined.isascii() else len(joined.encode())))


def is_plain_key(key, schema, pending: list) -> bool:
    """Whether a Key parameter is exactly the schema's attributes with valid plain
    values (short strings, numbers); their numbers' normal forms go to `pending`."""
    if type(key) is not dict or len(key) != len(schema):
        return False
    for name, type_ in schema:
        av = key.get(name)
        if type(av) is not dict or len(av) != 1:
            return False
        if type_ == "S":  # _key_value()'s commonest case, inlined
            value = av.get("S")
            if type(value) is not str or not 0 < len(value) <= _SHORT_KEY:
                return False
        elif not _key_value(av, type_, pending):
            return False
    return True


def has_plain_keys(item: dict, schema, pending: list) -> bool:
    """Whether an item accepted by sized_item() carries valid plain key attributes."""
    for name, type_ in schema:
        av = item.get(name)
        if av is None or not _key_value(av, type_, pending):
            return False
    return True


def normalize(pending: list) -> None:
    """Normalise, in place, the numbers of a request the plain checks accepted."""
    for av, normal in pending:
        av["N"] = normal


def _key_value(av: dict, type_: str, pending: list) -> bool:
    value = av.get(type_)
    if type_ == "S":
        return type(value) is str and 0 < len(value) <= _SHORT_KEY
    if type_ == "N" and type(value) is str:
        normal = _number(value)
        if normal is not None:
            if normal is not value:
                pending.append((av, normal))
            return True
    return False


def _number(text: str) -> str | None:
    try:
        return numbers.normalize(text)
    except errors.DynamoError:
        return None
