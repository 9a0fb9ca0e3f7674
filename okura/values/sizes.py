"""Item sizes as DynamoDB counts them (developer guide, "DynamoDB item sizes and
formats"), the 400 KB item limit, and the capacity units a size costs.

Every size here is of checked wire values: numbers already normalised, binaries
canonical base64 (their raw length is computed without decoding).
"""
from __future__ import annotations

from okura import errors
from okura.values.validation import binary_length

MAX_ITEM_SIZE = 400 * 1024
ITEM_TOO_LARGE = "Item size has exceeded the maximum allowed size"
UPDATE_TOO_LARGE = "Item size to update has exceeded the maximum allowed size"
_CONTAINER_OVERHEAD = 3  # a List or Map, whatever it holds
_ELEMENT_OVERHEAD = 1  # each element of a List or Map


def utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode())


def number_size(text: str) -> int:
    """1 byte per two significant digits, plus 1 (the guide calls it approximate)."""
    digits = text.lstrip("-").replace(".", "").strip("0")
    return (len(digits) + 1) // 2 + 1


def _map_size(members: dict) -> int:
    return _CONTAINER_OVERHEAD + sum(utf8_size(name) + value_size(member) + _ELEMENT_OVERHEAD
                                     for name, member in members.items())


def _list_size(members: list) -> int:
    return _CONTAINER_OVERHEAD + sum(value_size(member) + _ELEMENT_OVERHEAD for member in members)


_SIZES = {
    "N": number_size, "B": lambda value: binary_length(value), "M": _map_size, "L": _list_size,
    "SS": lambda members: sum(map(utf8_size, members)),
    "NS": lambda members: sum(map(number_size, members)),
    "BS": lambda members: sum(map(binary_length, members)),
    "BOOL": lambda value: 1, "NULL": lambda value: 1,
}


def value_size(av: dict) -> int:
    """Size of one checked AttributeValue (exactly one member), without its name."""
    (tag, value), = av.items()
    if tag == "S":  # the commonest, first
        return len(value) if value.isascii() else len(value.encode())
    return _SIZES[tag](value)


def item_size(item: dict) -> int:
    """Sum of attribute name lengths and value sizes."""
    total = 0
    for name, av in item.items():
        total += (len(name) if name.isascii() else len(name.encode())) + value_size(av)
    return total


def check_item_size(item: dict, message: str = ITEM_TOO_LARGE, size: int | None = None) -> int:
    """The item's size (`size` when the caller already knows it), or DynamoDB's error
    past 400 KB (UpdateItem passes UPDATE_TOO_LARGE)."""
    if size is None:
        size = item_size(item)
    if size > MAX_ITEM_SIZE:
        raise errors.validation(message)
    return size
