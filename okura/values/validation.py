"""AttributeValue rules: one datatype set, NULL true, sets non-empty and without
duplicates, numbers valid (normalised in place), binaries canonical base64,
nesting at most 32 levels. Empty strings and binaries are allowed here; key
attributes forbid them (key_rules.py).

DynamoDB deserialises the whole request before validating any of it, so a JSON
type fault (`{"S": 5}`) is a SerializationException even when a validation
fault comes earlier in the same item. The walk raises type faults at once and,
on a validation fault, rescans what is left for a type fault first; the happy
path walks once.

Messages are context-free; callers add context: an Item or Key reports them as
they are, ExpressionAttributeValues wraps them (`check_expression_values`).
"""
from __future__ import annotations

import binascii
import re
from typing import Any

from okura import errors
from okura.errors import DynamoError
from okura.values import numbers

MAX_DEPTH = 32
_INVALID = "One or more parameter values were invalid: "
EMPTY = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
MANY = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
NULL_NOT_TRUE = _INVALID + "Null attribute value types must have the value of true"
EMPTY_NAME = _INVALID + "Empty attribute name"  # unverified past "Empty attribute name"
TOO_DEEP = ("Nesting Levels have exceeded supported limits: "
            "Attributes in the item have nested levels beyond supported limit")
_EMPTY_SET = {
    "SS": _INVALID + "An string set  may not be empty",  # sic: DynamoDB's grammar and double space
    "NS": _INVALID + "An number set  may not be empty",
    "BS": _INVALID + "Binary sets should not be empty",  # unverified
}

# What JSON type each member of an AttributeValue must have on the wire.
_WIRE: dict[str, type[Any]] = {"S": str, "N": str, "B": str, "BOOL": bool, "NULL": bool,
                               "SS": list, "NS": list, "BS": list, "L": list, "M": dict}
_BASE64_CHAR = re.compile(r"[^A-Za-z0-9+/=]")


def _wire_fault(expected: type, value) -> DynamoError:
    """Coral's deserialiser messages for a JSON value of the wrong type."""
    if value is None:  # a null list member; a null datatype member counts as unset
        return errors.serialization()  # unverified
    if isinstance(value, list):
        return errors.serialization("Start of list found where not expected")
    if isinstance(value, dict):
        return errors.serialization("Start of structure or map found where not expected")
    if expected is str:
        if isinstance(value, bool):
            return errors.serialization(f"{str(value).upper()}_VALUE cannot be converted to String")  # unverified
        return errors.serialization("NUMBER_VALUE cannot be converted to String")
    if expected is bool:
        kind = "STRING" if isinstance(value, str) else "NUMBER"
        return errors.serialization(f"{kind}_VALUE cannot be converted to Boolean")  # unverified
    return errors.serialization("Unexpected field type")


def _members(av) -> list:
    """The datatype members set in an AttributeValue; null and unknown members count as unset."""  # unverified
    if type(av) is not dict:
        raise _wire_fault(dict, av)
    return [tag for tag, value in av.items() if value is not None and tag in _WIRE]


def _datatype(av) -> str:
    """The one datatype of an AttributeValue that is not simply `{tag: value}` of the right JSON type."""
    tags = _members(av)
    for tag in tags:
        if type(av[tag]) is not _WIRE[tag]:
            raise _wire_fault(_WIRE[tag], av[tag])
    if len(tags) != 1:
        raise errors.validation(MANY if tags else EMPTY)
    for junk in [key for key in av if key != tags[0]]:  # keep the stored wire form clean
        del av[junk]
    return tags[0]


def check_value(av, depth: int = 1) -> None:
    """Validate one AttributeValue, normalising its numbers in place."""
    if type(av) is dict and len(av) == 1:
        (tag, value), = av.items()
    else:
        tag = value = None
    if type(value) is not _WIRE.get(tag):
        tag = _datatype(av)
        value = av[tag]
    if depth > MAX_DEPTH:
        raise errors.validation(TOO_DEEP)
    if tag == "S":
        return
    if tag == "N":
        av["N"] = numbers.normalize(value)
    elif tag == "M":
        for name, member in value.items():
            if not name:
                raise errors.validation(EMPTY_NAME)
            check_value(member, depth + 1)
    elif tag == "L":
        for member in value:
            check_value(member, depth + 1)
    elif tag == "B":
        check_base64(value)
    elif tag == "NULL":
        if not value:
            raise errors.validation(NULL_NOT_TRUE)
    elif tag in _EMPTY_SET:
        av[tag] = _check_set(tag, value)


def _check_set(tag: str, members: list) -> list:
    if not members:
        raise errors.validation(_EMPTY_SET[tag])
    for member in members:
        if type(member) is not str:
            raise _wire_fault(str, member)
    if tag == "NS":
        normalised = [numbers.normalize(member) for member in members]
    else:
        if tag == "BS":
            for member in members:
                check_base64(member)
        normalised = members
    if len(set(normalised)) != len(normalised):
        raise errors.validation(f"{_INVALID}Input collection {_java_list(tag, members)} contains duplicates.")
    return normalised


def _java_list(tag: str, members: list) -> str:
    """The set as Java prints the List DynamoDB holds; binaries are ByteBuffers there."""
    if tag == "BS":
        members = [f"java.nio.HeapByteBuffer[pos=0 lim={n} cap={n}]"  # unverified
                   for n in map(binary_length, members)]
    return "[" + ", ".join(members) + "]"


def check_base64(text: str) -> None:
    """Binary values must be canonical, padded base64 (SerializationException otherwise)."""
    if len(text) % 4:
        raise errors.serialization(f"Base64 encoded length is expected a multiple of 4 bytes but found: {len(text)}")
    try:
        decoded = binascii.a2b_base64(text, strict_mode=True)
    except binascii.Error:
        bad = _BASE64_CHAR.search(text)
        if bad:
            raise errors.serialization(f"Invalid Base64 character: '{bad.group()}'") from None  # unverified
        raise errors.serialization("Invalid Base64 padding") from None  # unverified
    if binascii.b2a_base64(decoded, newline=False).decode() != text:
        raise errors.serialization("Invalid last non-pad Base64 character dectected")  # unverified; sic


def binary_length(text: str) -> int:
    """Raw byte length of a checked base64 value, without decoding it."""
    return len(text) // 4 * 3 - text[-2:].count("=")


def _first_wire_fault(av, depth: int = 1) -> DynamoError | None:
    """The first JSON type fault in an AttributeValue, ignoring every validation rule."""
    try:
        tags = _members(av)
    except DynamoError as fault:
        return fault
    for tag in tags:
        value = av[tag]
        expected = _WIRE[tag]
        if type(value) is not expected:
            return _wire_fault(expected, value)
        if tag in ("M", "L") and depth <= MAX_DEPTH:
            for member in value.values() if tag == "M" else value:
                inner = _first_wire_fault(member, depth + 1)
                if inner:
                    return inner
        elif tag in _EMPTY_SET or tag == "B":
            for member in value if tag in _EMPTY_SET else (value,):
                if type(member) is not str:
                    return _wire_fault(str, member)
                if tag in ("B", "BS"):
                    try:
                        check_base64(member)
                    except DynamoError as fault:
                        return fault
    return None


def _check_all(values: dict, wrap) -> None:
    """Check every AttributeValue of a map; a type fault anywhere beats the first validation fault."""
    for name, av in values.items():
        try:
            if name == "":
                raise errors.validation(EMPTY_NAME)
            check_value(av)
        except DynamoError as fault:
            if fault.name != "ValidationException":
                raise
            names = iter(values)
            for earlier in names:
                if earlier == name:
                    break
            for later in (name, *names):
                wire = _first_wire_fault(values[later])
                if wire:
                    raise wire from None
            raise wrap(fault, name) from None


def check_item(item: object) -> None:
    """Validate every attribute of an Item (or Key) in place, with DynamoDB's item messages."""
    if type(item) is not dict:
        raise _wire_fault(dict, item)
    _check_all(item, lambda fault, name: fault)


def check_expression_values(values: dict) -> None:
    """Validate ExpressionAttributeValues in place, worded as DynamoDB words them there."""
    if type(values) is not dict:
        raise _wire_fault(dict, values)
    _check_all(values, lambda fault, name: errors.validation(
        f"ExpressionAttributeValues contains invalid value: {fault.message} for key {name}"))
