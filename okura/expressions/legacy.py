"""The legacy request parameters, translated into the expression AST.

Expected, QueryFilter, ScanFilter (with ConditionalOperator), KeyConditions,
AttributeUpdates and AttributesToGet become the same trees the expression
parameters compile to, so one evaluator, one update applier and one projector
serve both. Legacy attribute names are plain top-level names: no placeholders,
no reserved words, no document paths.

Every check here runs before the table is looked up, in DynamoDB's order: the
mixing rule first (`check_mixing`), then each parameter's own rules. Texts marked
`# unverified` follow our best knowledge of DynamoDB without a public quote.
"""
from __future__ import annotations

from functools import reduce

from okura import errors
from okura.errors import DynamoError
from okura.expressions.ast import And, Between, Call, Compare, Const, In, Not, Or, Path, UpdateExpression
from okura.expressions.messages import _LONG_NAMES
from okura.expressions.projection import Projection
from okura.values import validation
from okura.values.ordering import compare

_INVALID = "One or more parameter values were invalid: "
# DynamoDB reports Expected's Exists/Value rules as model-level validation errors.
_EXPECTED_INVALID = "1 validation error detected: " + _INVALID

# Per operation: (non-expression parameters, expression parameters), in the order
# DynamoDB lists them in the mixing message (order of several unverified).
_PARAMETERS = {
    "GetItem": (("AttributesToGet",), ("ProjectionExpression",)),
    "PutItem": (("Expected", "ConditionalOperator"), ("ConditionExpression",)),
    "DeleteItem": (("Expected", "ConditionalOperator"), ("ConditionExpression",)),
    "UpdateItem": (("AttributeUpdates", "Expected", "ConditionalOperator"),
                   ("UpdateExpression", "ConditionExpression")),
    "Query": (("AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"),
              ("ProjectionExpression", "FilterExpression", "KeyConditionExpression")),
    "Scan": (("AttributesToGet", "ScanFilter", "ConditionalOperator"),
             ("ProjectionExpression", "FilterExpression")),
}

_ANY = None  # no type rule for the operator's values
_SCALARS = frozenset({"S", "N", "B"})
_SETS = frozenset({"SS", "NS", "BS"})
# operator -> (number of values: an int, or (minimum,) for IN; allowed value types)
_OPERATORS = {
    "EQ": (1, _ANY), "NE": (1, _ANY),
    "LE": (1, _SCALARS), "LT": (1, _SCALARS), "GE": (1, _SCALARS), "GT": (1, _SCALARS),
    "NOT_NULL": (0, _ANY), "NULL": (0, _ANY),
    "CONTAINS": (1, _SCALARS), "NOT_CONTAINS": (1, _SCALARS),
    "BEGINS_WITH": (1, frozenset({"S", "B"})),
    "IN": ((1,), _SCALARS),
    "BETWEEN": (2, _SCALARS),
}
_COMPARE = {"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}
_KEY_OPERATORS = frozenset({"EQ", "LE", "LT", "GE", "GT", "BEGINS_WITH", "BETWEEN"})


def check_mixing(body: dict, operation: str) -> None:
    """DynamoDB's rule that a request uses expressions or legacy parameters, never both.
    KeyConditions alone may stand beside the other expressions of a Query."""
    legacy, modern = _PARAMETERS[operation]
    used = [name for name in modern if body.get(name) is not None]
    if not used:
        return
    mixed = [name for name in legacy if body.get(name) is not None
             and (name != "KeyConditions" or "KeyConditionExpression" in used)]
    if mixed:
        raise errors.validation(
            "Can not use both expression and non-expression parameters in the same request: "
            f"Non-expression parameters: {{{', '.join(mixed)}}} "
            f"Expression parameters: {{{', '.join(used)}}}")


def condition(body: dict, param: str):
    """Expected, QueryFilter or ScanFilter of a request, joined by its ConditionalOperator,
    as a condition tree; None when the request has none."""
    conditions = body.get(param)
    operator = body.get("ConditionalOperator")
    if operator is not None:
        if not conditions:
            raise errors.validation("ConditionalOperator cannot be used without Filter or Expected")
        if len(conditions) < 2:
            raise errors.validation(
                "ConditionalOperator can only be used when Filter or Expected has two or more "
                "elements")
    if not conditions:
        return None
    translate = _expected if param == "Expected" else _condition
    parts = [translate(name, spec) for name, spec in conditions.items()]
    return reduce(Or if operator == "OR" else And, parts)


def key_condition(conditions: dict):
    """KeyConditions as a key condition tree for Query's planner (key_condition.plan)."""
    parts = []
    for name, spec in conditions.items():
        op = spec["ComparisonOperator"]
        values = _values(op, spec.get("AttributeValueList"))
        if op not in _KEY_OPERATORS:
            raise errors.validation("Attempted conditional constraint is not an indexable "
                                    "operation")  # unverified
        parts.append(_node(name, op, values))
    return reduce(And, parts)


def projection(names: list) -> Projection:
    """AttributesToGet as a projection of top-level attributes."""
    seen = set()
    for name in names:
        if name in seen:
            raise errors.validation(
                f"{_INVALID}Duplicate value in attribute name: {name}")  # unverified
        seen.add(name)
    return Projection(_path(name) for name in names)


def update(updates: dict) -> UpdateExpression:
    """AttributeUpdates as an update: PUT sets, ADD adds, DELETE with a value deletes
    from a set, DELETE without one removes the attribute."""
    sets, removes, adds, deletes = [], [], [], []
    for name, spec in updates.items():
        action = spec.get("Action", "PUT")
        value = spec.get("Value")
        path = _path(name)
        if value is None:
            if action != "DELETE":
                raise errors.validation(f"{_INVALID}Only DELETE action is allowed when no "
                                        "attribute value is specified")  # unverified
            removes.append(path)
            continue
        validation.check_item({name: value})
        kind = next(iter(value))
        if action == "PUT":
            sets.append((path, Const(value)))
        elif action == "ADD":
            if kind not in ("N", "L") and kind not in _SETS:  # a list appends (recorded)
                raise errors.validation(f"{_INVALID}ADD action is not supported for the type "
                                        f"{_LONG_NAMES[kind]}")  # unverified
            adds.append((path, Const(value)))
        else:
            if kind not in _SETS:
                raise errors.validation(f"{_INVALID}DELETE action with value is not supported "
                                        f"for the type {_LONG_NAMES[kind]}")
            deletes.append((path, Const(value)))
    return UpdateExpression(tuple(sets), tuple(removes), tuple(adds), tuple(deletes), legacy=True)


def _expected(name: str, spec: dict):
    """One ExpectedAttributeValue: the Value/Exists form or the ComparisonOperator form."""
    op = spec.get("ComparisonOperator")
    value, exists, values = spec.get("Value"), spec.get("Exists"), spec.get("AttributeValueList")
    if op is None:
        if values is not None:
            raise _expected_invalid("AttributeValueList can only be used with a "
                                    f"ComparisonOperator for Attribute: {name}")  # unverified
        if exists is False:
            if value is not None:
                raise _expected_invalid(f"Value cannot be used when Exists is false for "
                                        f"Attribute: {name}")
            return _node(name, "NULL", [])
        if value is None:
            state = "null" if exists is None else "true"
            raise _expected_invalid(f"Value must be provided when Exists is {state} for "
                                    f"Attribute: {name}")
        return _node(name, "EQ", _values("EQ", [value]))
    if exists is not None:
        raise _expected_invalid(
            f"Exists and ComparisonOperator cannot be used together for Attribute: {name}")
    if value is not None:
        if values is not None:
            raise _expected_invalid("Value and AttributeValueList cannot be used together for "
                                    f"Attribute: {name}")  # unverified
        values = [value]  # DynamoDB accepts Value as the operator's one value
    return _node(name, op, _values(op, values))


def _expected_invalid(detail: str) -> DynamoError:
    return errors.validation(_EXPECTED_INVALID + detail)


def _condition(name: str, spec: dict):
    """One QueryFilter/ScanFilter Condition."""
    op = spec["ComparisonOperator"]
    return _node(name, op, _values(op, spec.get("AttributeValueList")))


def _values(op: str, values: list | None) -> list:
    """The operator's values, after its count and type rules (numbers normalised)."""
    values = values or []
    count, types = _OPERATORS[op]
    wrong = len(values) < count[0] if type(count) is tuple else len(values) != count
    if wrong:
        raise errors.validation(
            f"{_INVALID}Invalid number of argument(s) for the {op} ComparisonOperator")
    validation.check_item(dict(enumerate(values)))
    if types is not None:
        for value in values:
            kind = next(iter(value))
            if kind not in types:
                raise errors.validation(f"{_INVALID}ComparisonOperator {op} is not valid for "
                                        f"{kind} AttributeValue type")  # users' reports
    if op == "IN" and len({next(iter(value)) for value in values}) > 1:
        raise errors.validation(f"{_INVALID}AttributeValues inside AttributeValueList must "
                                "be of same type")  # unverified
    if op == "BETWEEN":
        low, high = values
        if next(iter(low)) != next(iter(high)):
            raise errors.validation(f"{_INVALID}AttributeValues inside AttributeValueList must "
                                    "be of same type")  # unverified
        if compare(low, high) > 0:
            # unverified: a reply quoted in 2014 said "bigger", AWS's DAX client (2018) "greater"
            raise errors.validation("The BETWEEN condition was provided a range where the lower "
                                    "bound is greater than the upper bound")
    return values


def _path(name: str) -> Path:
    """A legacy parameter's attribute name as a path (never empty)."""
    if not name:
        raise errors.validation(validation.EMPTY_NAME)
    return Path((name,))


def _node(name: str, op: str, values: list):
    path = _path(name)
    consts = [Const(value) for value in values]
    symbol = _COMPARE.get(op)
    if symbol is not None:
        return Compare(symbol, path, consts[0])
    if op == "NOT_NULL":
        return Call("attribute_exists", (path,))
    if op == "NULL":
        return Call("attribute_not_exists", (path,))
    if op == "CONTAINS":
        return Call("contains", (path, consts[0]))
    if op == "NOT_CONTAINS":
        # a missing attribute fails NOT_CONTAINS too (recorded from DynamoDB)
        return And(Call("attribute_exists", (path,)), Not(Call("contains", (path, consts[0]))))
    if op == "BEGINS_WITH":
        return Call("begins_with", (path, consts[0]))
    if op == "IN":
        return In(path, tuple(consts))
    return Between(path, consts[0], consts[1])
