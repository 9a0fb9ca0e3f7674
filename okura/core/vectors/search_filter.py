"""SearchConditionExpression over a vector index's search-schema attributes: its rules,
and its evaluation over a Matrix's value columns, all rows at once.

What it accepts follows the developer guide's SearchConditionExpression reference
(newer than the model's "equality only": docs/decisions.md): comparisons (= < <= > >=),
BETWEEN and IN on top-level search-schema attributes against :values, combined with AND
and OR (and parentheses). An item without the attribute, or with a value of another
type, matches no condition on it. Values compare as keys do (storage/keys.py: numbers
numerically, strings and binaries by bytes).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from okura import errors
from okura.core.vectors.definitions import VectorIndex
from okura.core.vectors.matrix import Matrix
from okura.expressions.ast import And, Between, Compare, In, Or, Path, Value
from okura.storage import keys

Mask = Callable[[Matrix], np.ndarray]
_COMPARATORS = ("=", "<", "<=", ">", ">=")


def invalid_comparator() -> errors.DynamoError:
    return errors.validation("Invalid comparator used in SearchConditionExpression")  # guide


def hash_required() -> errors.DynamoError:
    return errors.validation(  # guide
        "SearchConditionExpression must be provided when SearchSchema has a HASH key")


def compile_mask(node: object, index: VectorIndex, values: dict) -> Mask:
    """The rows of a matrix that `node` (a resolved condition) selects."""
    types = dict(index.schema)
    if index.hash_keys and not _pins(node, index.hash_keys[0]):
        raise hash_required()
    return _compile(node, types, values)


def _pins(node: object, name: str) -> bool:
    """Whether the condition holds only where `name` equals one value (an equality on it
    in the top-level conjunction)."""
    if type(node) is And:
        return _pins(node.left, name) or _pins(node.right, name)
    return type(node) is Compare and node.op == "=" and _attribute(node.left) == name


def _attribute(node: object) -> str | None:
    if type(node) is Path and len(node.elements) == 1 and type(node.elements[0]) is str:
        return node.elements[0]
    return None


def _name(node: object, types: dict[str, str]) -> str:
    if type(node) is not Path:
        raise invalid_comparator()
    name = _attribute(node)
    if name is None:
        raise errors.validation(
            "SearchConditionExpression supports top-level attributes only")  # unverified
    if name not in types:
        raise errors.validation(
            f"Attribute {name} in SearchConditionExpression is not in the vector index's "
            "SearchSchema")  # unverified
    return name


def _operand(node: object, type_: str, values: dict) -> bytes | None:
    """The encoded value of a :value, None if it is not of the attribute's type."""
    if type(node) is not Value:
        raise invalid_comparator()
    value = values[node.placeholder]
    return keys.encode(type_, value[type_]) if type_ in value else None


def _compile(node: Any, types: dict[str, str], values: dict) -> Mask:
    kind = type(node)
    if kind is And or kind is Or:
        left, right = _compile(node.left, types, values), _compile(node.right, types, values)
        if kind is And:
            return lambda matrix: left(matrix) & right(matrix)
        return lambda matrix: left(matrix) | right(matrix)
    if kind is Compare and node.op in _COMPARATORS:
        name = _name(node.left, types)
        operand = _operand(node.right, types[name], values)
        compare = _COMPARE[node.op]
        return _test(name, lambda v: compare(v, operand), operand is None)
    if kind is Between:
        name = _name(node.operand, types)
        low = _operand(node.low, types[name], values)
        high = _operand(node.high, types[name], values)
        return _test(name, lambda v: low <= v <= high,  # type: ignore[operator]
                     low is None or high is None)
    if kind is In:
        name = _name(node.operand, types)
        choices = {_operand(choice, types[name], values) for choice in node.choices}
        choices.discard(None)
        return _test(name, lambda v: v in choices, not choices)
    raise invalid_comparator()


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _test(name: str, holds: Callable[[bytes], bool], never: bool) -> Mask:
    def mask(matrix: Matrix) -> np.ndarray:
        if never:
            return np.zeros(matrix.count, bool)
        column = matrix.values[name]
        return np.fromiter((v is not None and holds(v) for v in column), bool, matrix.count)
    return mask
