"""Query's rules on a resolved KeyConditionExpression, and the plan they leave.

A key condition is an AND of simple conditions, one per key attribute: every
HASH attribute (up to four for a multi-attribute GSI key) compared with "=",
then RANGE attributes from the first on, "=" on all but the last named, which
may use =, <, <=, >, >=, BETWEEN or begins_with. Anything else is DynamoDB's
ValidationException, with its message.
"""
from __future__ import annotations

from typing import NamedTuple

from okura import errors
from okura.expressions import constant
from okura.expressions.ast import And, Between, Call, Compare, Const, In, Not, Or, Path, Value
from okura.values import key_rules

_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class KeyPlan(NamedTuple):
    hash_values: list[dict]  # one per HASH attribute, in schema order
    equal: list[dict]  # "=" values of the leading RANGE attributes
    op: str | None  # the condition on the next RANGE attribute, if any
    operands: tuple  # its values


def invalid_operator(name: str) -> errors.DynamoError:
    return errors.validation(f"Invalid operator used in KeyConditionExpression: {name}")


def not_supported() -> errors.DynamoError:
    return errors.validation("Query key condition not supported")  # unverified


def _missed(name: str, count: int) -> errors.DynamoError:
    """A HASH attribute without its "=": a classic key says which is missing, a key of
    several HASH attributes says each needs one (users quote DynamoDB up to "equality
    conditions"; the rest is okura's)."""
    if count == 1:
        return errors.validation(f"Query condition missed key schema element: {name}")
    return errors.validation(f"HASH key attributes {name} must have equality conditions "
                             "specified in the query")


def plan(condition: object, hash_keys: list[tuple[str, str]], range_keys: list[tuple[str, str]],
         values: dict | None) -> KeyPlan:
    """The partition and sort-key range a key condition selects, after its checks
    (`values`: what its placeholders stand for)."""
    found: dict[str, tuple[str, tuple[dict, ...]]] = {}
    for part in _conjuncts(condition):
        name, op, nodes = _simple(part)
        operands = tuple([_value(node, values) for node in nodes])
        if name in found:
            raise errors.validation("KeyConditionExpressions must only contain one condition per key")
        found[name] = (op, operands)
    for name, _ in hash_keys:
        if name not in found or len(hash_keys) > 1 and found[name][0] != "=":
            raise _missed(name, len(hash_keys))
    types = dict(hash_keys + range_keys)
    for name, (op, operands) in found.items():
        type_ = types.get(name)
        if type_ is None:
            raise not_supported()
        for value in operands:
            if next(iter(value)) != type_:
                raise errors.validation(  # unverified
                    "One or more parameter values were invalid: "
                    "Condition parameter type does not match schema type")
        if op == "=" and type_ != "N" and not operands[0][type_]:
            key_rules.check_not_empty(name, operands[0])  # a key value is never empty
    hash_values = []
    for name, _ in hash_keys:
        op, operands = found[name]
        if op != "=":
            raise not_supported()
        hash_values.append(operands[0])
    count = len(found) - len(hash_keys)
    if count == 0:
        return KeyPlan(hash_values, [], None, ())
    # The RANGE attributes named must be a leading run, "=" on all but the last.
    names = [name for name, _ in range_keys]
    for later, name in enumerate(names):
        if name in found:
            for prior in names[:later]:
                if prior not in found or found[prior][0] != "=":
                    raise errors.validation(
                        f"RANGE key attributes {prior} must have equality conditions specified "
                        f"in the query because a condition is present on key attribute {name}")
    named = [found[name] for name in names[:count]]
    equal = [operands[0] for _, operands in named[:-1]]
    op, operands = named[-1]
    return KeyPlan(hash_values, equal, op, operands)


def _value(node: object, values: dict | None) -> dict:
    """The attribute value of an operand node (_simple's: a Value or a Const)."""
    value = constant(node, values)
    assert value is not None  # a Value or a Const stands for a value
    return value


def _conjuncts(node: object) -> list[object]:
    """The conditions an AND joins, in order (a list: most key conditions are one or two,
    for which a generator cost more than the rest of the walk)."""
    parts: list[object] = []
    while type(node) is And:
        parts += _conjuncts(node.left)
        node = node.right
    parts.append(node)
    return parts


def _simple(node) -> tuple[str, str, tuple]:
    """(attribute name, operator, operand nodes: Value or Const) of one condition of the AND."""
    t = type(node)
    if t is Or:
        raise invalid_operator("OR")
    if t is Not:
        raise invalid_operator("NOT")
    if t is In:
        raise invalid_operator("IN")
    if t is Compare:
        if node.op not in _FLIPPED:
            raise invalid_operator(node.op)
        if type(node.right) is Path:
            return _attribute(node.right), _FLIPPED[node.op], (_constant(node.left),)
        return _attribute(node.left), node.op, (_constant(node.right),)
    if t is Between:
        return _attribute(node.operand), "BETWEEN", (_constant(node.low), _constant(node.high))
    if t is Call:
        if node.name != "begins_with":
            raise invalid_operator(node.name)
        return _attribute(node.args[0]), "begins_with", (_constant(node.args[1]),)
    raise not_supported()


def _attribute(node: object) -> str:
    """A key condition names top-level attributes only."""
    if type(node) is not Path:
        raise not_supported()  # unverified
    if len(node.elements) != 1 or type(node.elements[0]) is not str:
        raise errors.validation("Invalid KeyConditionExpression: KeyConditionExpressions cannot "
                                "have conditions on nested attributes")
    return node.elements[0]


def _constant(node: object) -> Value | Const:
    if type(node) is not Value and type(node) is not Const:
        raise not_supported()  # unverified
    return node
