"""The condition evaluator: a resolved condition tree over a wire-form item.

`values` are the request's ExpressionAttributeValues: resolution checks them but leaves
their placeholders in the tree (a cached tree then serves every request as it is), so
the evaluator reads a `Value` there; trees without placeholders (legacy parameters,
PartiQL) need none.

A missing attribute makes every comparison false except `<>`, which is true
(the attribute is not equal to the value); functions over a missing attribute
are false, size() of one has no value.
"""
from __future__ import annotations

from base64 import b64decode
from typing import Any, Callable

from okura.expressions.ast import And, Between, Call, Compare, Const, In, Not, Or, Path, Value
from okura.values.ordering import compare, equal
from okura.values.sizes import utf8_size
from okura.values.validation import binary_length


def get(item: dict | None, elements: tuple) -> dict | None:
    """The value at a document path, or None when the item has nothing there."""
    if item is None:
        return None
    value = item.get(elements[0])
    for e in elements[1:]:
        if value is None:
            return None
        if type(e) is int:
            items = value.get("L")
            value = items[e] if items is not None and e < len(items) else None
        else:
            members = value.get("M")
            value = members.get(e) if members is not None else None
    return value


def constant(node, values: dict | None) -> dict | None:
    """The attribute value a constant node stands for (a Const's own, a placeholder's from
    the request); None for any other node."""
    t = type(node)
    if t is Value:
        assert values is not None  # a tree with placeholders comes with their values
        return values[node.placeholder]
    if t is Const:
        return node.value
    return None


def operand(node, item: dict | None, values: dict | None) -> dict | None:
    t = type(node)
    if t is Path:
        return get(item, node.elements)
    if t is not Call:
        return constant(node, values)
    # the only function a condition may use as an operand is size(), of a path or a value
    value = operand(node.args[0], item, values)
    if value is None:
        return None
    n = _size(value)
    return None if n is None else {"N": str(n)}


def _size(av: dict) -> int | None:
    """DynamoDB's size(): UTF-8 bytes of a string, bytes of a binary, members of a set, list
    or map; other types have no size."""
    (tag, value), = av.items()
    if tag == "S":
        return utf8_size(value)
    if tag == "B":
        return binary_length(value)
    if tag in _SIZED:
        return len(value)
    return None


_SIZED = frozenset({"SS", "NS", "BS", "L", "M"})


def _order(a: dict, b: dict) -> int | None:
    """compare(), or None for values that do not order against each other."""
    try:
        return compare(a, b)
    except TypeError:
        return None


def evaluate(node, item: dict | None, values: dict | None = None) -> bool:
    return _EVALUATORS[type(node)](node, item, values)


def _compare(node: Compare, item, values) -> bool:
    a, b = operand(node.left, item, values), operand(node.right, item, values)
    op = node.op
    if a is None or b is None:
        return op == "<>"
    if op == "=":
        return equal(a, b)
    if op == "<>":
        return not equal(a, b)
    order = _order(a, b)
    if order is None:
        return False
    if op == "<":
        return order < 0
    if op == "<=":
        return order <= 0
    if op == ">":
        return order > 0
    return order >= 0


def _between(node: Between, item, values) -> bool:
    value = operand(node.operand, item, values)
    low, high = operand(node.low, item, values), operand(node.high, item, values)
    if value is None or low is None or high is None:
        return False
    above, below = _order(value, low), _order(value, high)
    return above is not None and below is not None and above >= 0 and below <= 0


def _in(node: In, item, values) -> bool:
    value = operand(node.operand, item, values)
    if value is None:
        return False
    for choice in node.choices:
        other = operand(choice, item, values)
        if other is not None and equal(value, other):
            return True
    return False


def _call(node: Call, item, values) -> bool:
    name, args = node.name, node.args
    if name == "attribute_exists":
        return get(item, args[0].elements) is not None
    if name == "attribute_not_exists":
        return get(item, args[0].elements) is None
    first, second = operand(args[0], item, values), operand(args[1], item, values)
    if first is None or second is None:
        return False
    if name == "attribute_type":
        return "S" in second and second["S"] in first
    if name == "begins_with":
        return _begins_with(first, second)
    return _contains(first, second)


def _begins_with(value: dict, prefix: dict) -> bool:
    if "S" in value and "S" in prefix:
        return value["S"].startswith(prefix["S"])
    if "B" in value and "B" in prefix:
        return b64decode(value["B"]).startswith(b64decode(prefix["B"]))
    return False


_MEMBER_TYPES = {"SS": "S", "NS": "N", "BS": "B"}


def _contains(value: dict, member: dict) -> bool:
    kind = next(iter(value))
    if kind == "S":
        return "S" in member and member["S"] in value["S"]
    if kind == "B":
        return "B" in member and b64decode(member["B"]) in b64decode(value["B"])
    if kind == "L":
        return any(equal(element, member) for element in value["L"])
    scalar = _MEMBER_TYPES.get(kind)
    if scalar is None or scalar not in member:
        return False
    # checked values are normalised numbers and canonical base64: equal text is equal value
    return member[scalar] in value[kind]


_EVALUATORS: dict[type, Callable[[Any, dict | None, dict | None], bool]] = {
    Compare: _compare,
    Between: _between,
    In: _in,
    Call: _call,
    And: lambda node, item, values: (evaluate(node.left, item, values)
                                     and evaluate(node.right, item, values)),
    Or: lambda node, item, values: (evaluate(node.left, item, values)
                                    or evaluate(node.right, item, values)),
    Not: lambda node, item, values: not evaluate(node.operand, item, values),
}
