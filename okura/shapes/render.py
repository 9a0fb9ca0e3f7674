"""How DynamoDB prints a request value inside a validation message.

DynamoDB is written in Java and prints the offending value with its toString():
strings bare, numbers and booleans as Java does, lists as [a, b], maps as
{k=v}, request structures as Name(member=value, ...) with every member of its
class, absent ones as null.
"""
from __future__ import annotations

import zlib
from decimal import Decimal

import orjson

# An AttributeValue prints as its class name and identity hash code; the hash is
# not reproducible, so okura derives a stable stand-in from the value.
_ATTRIBUTE_VALUE = "com.amazonaws.dynamodb.v20120810.AttributeValue@"


def render(value, shape_name: str, shapes: dict) -> str:
    if value is None:
        return "null"
    spec = shapes[shape_name]
    kind = spec["type"]
    if kind == "attributevalue":
        digest = zlib.crc32(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
        return _ATTRIBUTE_VALUE + format(digest, "x")
    if kind == "structure":
        shapes_by_field = {camel: (wire, shape) for wire, camel, shape, _ in spec["members"]}
        parts = []
        for field in spec["fields"]:
            wire, shape = shapes_by_field.get(field, (None, None))
            parts.append(f"{field}={render(value.get(wire), shape, shapes) if wire else 'null'}")
        return f"{shape_name}({', '.join(parts)})"
    if kind == "list":
        return "[" + ", ".join(render(item, spec["member"], shapes) for item in value) + "]"
    if kind == "map":
        return "{" + ", ".join(f"{key}={render(item, spec['value'], shapes)}"
                               for key, item in value.items()) + "}"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "double":
        return java_double(value)
    if kind in ("integer", "long"):
        return str(int(value))
    return str(value)


def java_double(value: float) -> str:
    """Double.toString: plain between 1e-3 and 1e7, else d.dddE[-]n; shortest digits."""
    number = float(value)
    if number == 0 or 1e-3 <= abs(number) < 1e7:
        text = repr(number)
        return text if "e" not in text else format(Decimal(text), "f")
    sign, digits, exponent = Decimal(repr(number)).normalize().as_tuple()
    assert isinstance(exponent, int)  # finite: JSON has no infinity or NaN
    head, tail = str(digits[0]), "".join(map(str, digits[1:])) or "0"
    return f"{'-' if sign else ''}{head}.{tail}E{exponent + len(digits) - 1}"
