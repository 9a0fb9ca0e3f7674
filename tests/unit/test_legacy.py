"""Legacy parameters translated into the expression AST: the rules of each
ComparisonOperator, Expected's Exists/Value forms, ConditionalOperator,
AttributeUpdates, AttributesToGet and the mixing rule; and, as a property, that
each translated condition means what the API reference says the operator means."""
from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings, strategies as st

from conftest import examples
from okura.errors import DynamoError
from okura.expressions import apply_update, evaluate, project
from okura.expressions import legacy

INVALID = "One or more parameter values were invalid: "
EXPECTED_INVALID = "1 validation error detected: " + INVALID


def message(call, *args) -> str:
    with pytest.raises(DynamoError) as excinfo:
        call(*args)
    assert excinfo.value.name == "ValidationException"
    return excinfo.value.message


def scan_filter(**conditions) -> dict:
    return {"ScanFilter": conditions}


def cond(op: str, *values) -> dict:
    spec = {"ComparisonOperator": op}
    if values:
        spec["AttributeValueList"] = list(values)
    return spec


# --- ComparisonOperator rules -------------------------------------------------------------

@pytest.mark.parametrize("op, count", [
    ("EQ", 0), ("EQ", 2), ("NE", 0), ("LT", 2), ("GE", 0), ("NULL", 1), ("NOT_NULL", 1),
    ("CONTAINS", 0), ("NOT_CONTAINS", 2), ("BEGINS_WITH", 2), ("IN", 0), ("BETWEEN", 1),
    ("BETWEEN", 3),
])
def test_argument_count(op, count):
    body = scan_filter(a=cond(op, *[{"S": str(i)} for i in range(count)]))
    assert message(legacy.condition, body, "ScanFilter") == (
        f"{INVALID}Invalid number of argument(s) for the {op} ComparisonOperator")


@pytest.mark.parametrize("op, value", [
    ("BEGINS_WITH", {"N": "1"}), ("BEGINS_WITH", {"SS": ["a"]}), ("LT", {"SS": ["a"]}),
    ("GT", {"BOOL": True}), ("LE", {"L": []}), ("CONTAINS", {"NS": ["1"]}),
    ("NOT_CONTAINS", {"M": {}}), ("IN", {"NULL": True}),
])
def test_value_type(op, value):
    body = scan_filter(a=cond(op, value))
    kind = next(iter(value))
    assert message(legacy.condition, body, "ScanFilter") == (
        f"{INVALID}ComparisonOperator {op} is not valid for {kind} AttributeValue type")


@pytest.mark.parametrize("value", [{"BOOL": True}, {"NULL": True}, {"L": [{"S": "x"}]},
                                   {"M": {"k": {"N": "1"}}}, {"SS": ["a"]}])
def test_eq_and_ne_take_every_type(value):
    for op in ("EQ", "NE"):
        assert legacy.condition(scan_filter(a=cond(op, value)), "ScanFilter") is not None


def test_between_bounds():
    same_type = scan_filter(a=cond("BETWEEN", {"S": "a"}, {"N": "1"}))
    assert message(legacy.condition, same_type, "ScanFilter") == (
        f"{INVALID}AttributeValues inside AttributeValueList must be of same type")
    reversed_ = scan_filter(a=cond("BETWEEN", {"N": "10"}, {"N": "9"}))
    assert message(legacy.condition, reversed_, "ScanFilter") == (
        "The BETWEEN condition was provided a range where the lower bound is greater than the "
        "upper bound")


def test_values_are_checked_and_normalised():
    value = {"N": "01.50"}
    legacy.condition(scan_filter(a=cond("EQ", value)), "ScanFilter")
    assert value == {"N": "1.5"}
    assert message(legacy.condition, scan_filter(a=cond("EQ", {"NS": []})), "ScanFilter") == (
        f"{INVALID}An number set  may not be empty")


# --- Expected --------------------------------------------------------------------------------

@pytest.mark.parametrize("spec, detail", [
    ({"Exists": True}, "Value must be provided when Exists is true for Attribute: a"),
    ({}, "Value must be provided when Exists is null for Attribute: a"),
    ({"Exists": False, "Value": {"S": "x"}},
     "Value cannot be used when Exists is false for Attribute: a"),
    ({"Exists": True, "ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]},
     "Exists and ComparisonOperator cannot be used together for Attribute: a"),
    ({"Exists": False, "ComparisonOperator": "NULL"},
     "Exists and ComparisonOperator cannot be used together for Attribute: a"),
    ({"Exists": True, "AttributeValueList": [{"S": "x"}]},
     "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"),
    ({"ComparisonOperator": "EQ", "Value": {"S": "x"}, "AttributeValueList": [{"S": "x"}]},
     "Value and AttributeValueList cannot be used together for Attribute: a"),
])
def test_expected_forms_rejected(spec, detail):
    assert message(legacy.condition, {"Expected": {"a": spec}}, "Expected") == (
        EXPECTED_INVALID + detail)


@pytest.mark.parametrize("spec, present, absent, other", [
    ({"Value": {"S": "x"}}, True, False, False),
    ({"Value": {"S": "x"}, "Exists": True}, True, False, False),
    ({"Exists": False}, False, True, False),
    ({"ComparisonOperator": "NE", "Value": {"S": "x"}}, False, True, True),  # Value as the list
    ({"ComparisonOperator": "NOT_NULL"}, True, False, True),
])
def test_expected_forms_mean(spec, present, absent, other):
    node = legacy.condition({"Expected": {"a": spec}}, "Expected")
    assert evaluate(node, {"a": {"S": "x"}}) is present
    assert evaluate(node, {}) is absent
    assert evaluate(node, {"a": {"S": "y"}}) is other


def test_expected_operator_errors_have_no_model_prefix():
    body = {"Expected": {"a": {"ComparisonOperator": "EQ"}}}
    assert message(legacy.condition, body, "Expected") == (
        f"{INVALID}Invalid number of argument(s) for the EQ ComparisonOperator")


# --- ConditionalOperator ---------------------------------------------------------------------

def test_conditional_operator_needs_two_conditions():
    assert message(legacy.condition, {"ConditionalOperator": "AND"}, "ScanFilter") == (
        "ConditionalOperator cannot be used without Filter or Expected")
    one = {"ConditionalOperator": "OR", "Expected": {"a": {"Exists": False}}}
    assert message(legacy.condition, one, "Expected") == (
        "ConditionalOperator can only be used when Filter or Expected has two or more elements")


@pytest.mark.parametrize("operator, both, one, none", [
    (None, True, False, False), ("AND", True, False, False), ("OR", True, True, False)])
def test_conditional_operator_joins(operator, both, one, none):
    body = scan_filter(a=cond("EQ", {"N": "1"}), b=cond("EQ", {"N": "2"}))
    if operator:
        body["ConditionalOperator"] = operator
    node = legacy.condition(body, "ScanFilter")
    assert evaluate(node, {"a": {"N": "1"}, "b": {"N": "2"}}) is both
    assert evaluate(node, {"a": {"N": "1"}, "b": {"N": "3"}}) is one
    assert evaluate(node, {"a": {"N": "0"}}) is none


def test_absent_or_empty_filter_is_no_condition():
    assert legacy.condition({}, "ScanFilter") is None
    assert legacy.condition({"Expected": {}}, "Expected") is None


# --- KeyConditions ---------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["NE", "IN", "NULL", "NOT_NULL", "CONTAINS", "NOT_CONTAINS"])
def test_key_condition_operators(op):
    values = [] if op in ("NULL", "NOT_NULL") else [{"S": "x"}]
    assert message(legacy.key_condition, {"pk": cond(op, *values)}) == (
        "Attempted conditional constraint is not an indexable operation")


def test_key_condition_tree():
    node = legacy.key_condition({"pk": cond("EQ", {"S": "p"}),
                                 "sk": cond("BETWEEN", {"N": "1"}, {"N": "5"})})
    assert evaluate(node, {"pk": {"S": "p"}, "sk": {"N": "3"}})
    assert not evaluate(node, {"pk": {"S": "p"}, "sk": {"N": "6"}})


# --- AttributesToGet -------------------------------------------------------------------------

def test_attributes_to_get():
    projection = legacy.projection(["a", "b.c", "x"])
    item = {"a": {"N": "1"}, "b.c": {"S": "dotted"}, "b": {"M": {"c": {"S": "nested"}}}}
    assert project(projection, item) == {"a": {"N": "1"}, "b.c": {"S": "dotted"}}
    assert message(legacy.projection, ["a", "b", "a"]) == (
        f"{INVALID}Duplicate value in attribute name: a")


# --- AttributeUpdates ------------------------------------------------------------------------

def test_attribute_updates_apply():
    update = legacy.update({
        "put": {"Value": {"S": "new"}},  # PUT is the default action
        "count": {"Action": "ADD", "Value": {"N": "5"}},
        "fresh": {"Action": "ADD", "Value": {"N": "-2"}},  # missing: starts from 0
        "tags": {"Action": "ADD", "Value": {"SS": ["b", "c"]}},
        "gone": {"Action": "DELETE"},
        "drop": {"Action": "DELETE", "Value": {"NS": ["1", "2"]}},
        "empty": {"Action": "DELETE", "Value": {"NS": ["3"]}},
    })
    old = {"put": {"S": "old"}, "count": {"N": "1"}, "tags": {"SS": ["a", "b"]},
           "gone": {"S": "x"}, "drop": {"NS": ["1", "3"]}, "empty": {"NS": ["3"]}}
    new, _ = apply_update(update, old)
    assert new == {"put": {"S": "new"}, "count": {"N": "6"}, "fresh": {"N": "-2"},
                   "tags": {"SS": ["a", "b", "c"]}, "drop": {"NS": ["3"]}}


@pytest.mark.parametrize("spec, detail", [
    ({"Action": "PUT"}, "Only DELETE action is allowed when no attribute value is specified"),
    ({"Action": "ADD"}, "Only DELETE action is allowed when no attribute value is specified"),
    ({"Action": "ADD", "Value": {"S": "x"}}, "ADD action is not supported for the type STRING"),
    ({"Action": "ADD", "Value": {"M": {}}}, "ADD action is not supported for the type MAP"),
    ({"Action": "DELETE", "Value": {"N": "1"}},
     "DELETE action with value is not supported for the type NUMBER"),
    ({"Action": "DELETE", "Value": {"S": "x"}},
     "DELETE action with value is not supported for the type STRING"),
])
def test_attribute_updates_rejected(spec, detail):
    assert message(legacy.update, {"a": spec}) == INVALID + detail


# --- mixing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("operation, body, legacy_params, expression_params", [
    ("GetItem", {"AttributesToGet": ["a"], "ProjectionExpression": "a"},
     "AttributesToGet", "ProjectionExpression"),
    ("PutItem", {"Expected": {}, "ConditionExpression": "x"}, "Expected", "ConditionExpression"),
    ("UpdateItem", {"AttributeUpdates": {}, "ConditionExpression": "x"},
     "AttributeUpdates", "ConditionExpression"),
    ("UpdateItem", {"AttributeUpdates": {}, "Expected": {}, "ConditionalOperator": "OR",
                    "UpdateExpression": "x", "ConditionExpression": "x"},
     "AttributeUpdates, Expected, ConditionalOperator", "UpdateExpression, ConditionExpression"),
    ("Query", {"QueryFilter": {}, "KeyConditionExpression": "x"},
     "QueryFilter", "KeyConditionExpression"),
    ("Query", {"KeyConditions": {}, "KeyConditionExpression": "x"},
     "KeyConditions", "KeyConditionExpression"),
    ("Scan", {"ScanFilter": {}, "FilterExpression": "x"}, "ScanFilter", "FilterExpression"),
])
def test_mixing(operation, body, legacy_params, expression_params):
    assert message(legacy.check_mixing, body, operation) == (
        "Can not use both expression and non-expression parameters in the same request: "
        f"Non-expression parameters: {{{legacy_params}}} "
        f"Expression parameters: {{{expression_params}}}")


def test_key_conditions_may_stand_beside_other_expressions():
    legacy.check_mixing({"KeyConditions": {}, "FilterExpression": "x",
                         "ProjectionExpression": "y"}, "Query")
    legacy.check_mixing({"AttributesToGet": ["a"], "ScanFilter": {}}, "Scan")


# --- the property: each operator means what the API reference says ---------------------------

# A small domain, so that equal values, prefixes and members turn up often.
_scalars = st.one_of(
    st.builds(lambda s: {"S": s}, st.sampled_from(["", "a", "ab", "b", "ba"])),
    st.builds(lambda n: {"N": n}, st.sampled_from(["-1", "0", "1", "2", "10"])),
)
_attributes = st.one_of(
    _scalars,
    st.builds(lambda m: {"SS": sorted(m)}, st.sets(st.sampled_from(["a", "ab", "b"]), min_size=1)),
    st.builds(lambda m: {"NS": sorted(m)}, st.sets(st.sampled_from(["0", "1", "2"]), min_size=1)),
    st.just({"BOOL": True}),
    st.builds(lambda v: {"L": v}, st.lists(_scalars, max_size=2)),
)


def _key(av: dict):
    """A value to compare with Python's operators: Decimal for numbers."""
    (tag, value), = av.items()
    return Decimal(value) if tag == "N" else value


def _reference(op: str, attr: dict | None, values: list[dict]) -> bool:
    """The API reference's ComparisonOperator descriptions, written out directly."""
    if op == "NULL":
        return attr is None
    if op == "NOT_NULL":
        return attr is not None
    if op == "NE":
        return attr is None or attr != values[0]
    if attr is None:
        # every operator but NULL and NE is false here, NOT_CONTAINS too (recorded from
        # DynamoDB for Expected; filters taken to agree)
        return False
    tag = next(iter(attr))
    if op == "EQ":
        return attr == values[0]
    if op == "IN":
        return attr in values
    same = all(next(iter(v)) == tag for v in values)
    if op in ("LT", "LE", "GT", "GE", "BETWEEN"):
        if not same:
            return False
        x, bounds = _key(attr), [_key(v) for v in values]
        return {"LT": x < bounds[0], "LE": x <= bounds[0], "GT": x > bounds[0],
                "GE": x >= bounds[0], "BETWEEN": bounds[0] <= x <= bounds[-1]}[op]
    if op == "BEGINS_WITH":
        return same and tag == "S" and attr["S"].startswith(values[0]["S"])
    (vtag, v), = values[0].items()
    if tag == "S":
        contained = vtag == "S" and v in attr["S"]
    elif tag in ("SS", "NS"):
        contained = vtag == tag[0] and any(_key({vtag: m}) == _key(values[0]) for m in attr[tag])
    elif tag == "L":
        contained = values[0] in attr["L"]
    else:
        contained = False
    return contained if op == "CONTAINS" else not contained


@settings(max_examples=examples(500))  # 13 operators: enough cases of each for the boundaries
@given(attr=st.one_of(st.none(), _attributes),
       op=st.sampled_from(sorted(legacy._OPERATORS)),
       values=st.lists(_scalars, min_size=1, max_size=3))
def test_operators_mean_what_the_reference_says(attr, op, values):
    count = legacy._OPERATORS[op][0]
    if type(count) is int:
        values = values[:count] if len(values) >= count else None
        if values is None:
            return
    if op == "BEGINS_WITH" and "S" not in values[0]:
        return
    if op in ("BETWEEN", "IN") and len({next(iter(v)) for v in values}) > 1:
        return  # refused: the values must be of one type
    if op == "BETWEEN":
        values = sorted(values, key=_key)
    node = legacy.condition(scan_filter(a=cond(op, *values)), "ScanFilter")
    item = {} if attr is None else {"a": attr}
    assert evaluate(node, item) is _reference(op, attr, values)
