"""Key conditions without a server: the byte ranges they become (core/reads.sort_range):
for any stored sort-key values, the rows inside [lo, hi) are exactly the rows whose
values satisfy the condition, for table rows and for index rows (which append the
table key after the sort key), with single and multi-attribute sort keys; and the
rules of multi-attribute GSI keys (operations/key_condition.plan)."""
from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from okura import expressions
from okura.core.reads import sort_range
from okura.errors import DynamoError
from okura.operations.shared import key_condition
from okura.storage import keys
from okura.values.ordering import compare

OPS = ["=", "<", "<=", ">", ">=", "BETWEEN", "begins_with", None]

texts = st.text(alphabet=st.sampled_from("\x00ab\xff\u00e9z"), max_size=4).map(lambda s: {"S": s})
numbers = st.decimals(min_value=-1000, max_value=1000, places=2).map(
    lambda d: {"N": str(d.normalize()) if d else "0"})
binaries = st.binary(max_size=3).map(lambda b: {"B": base64.b64encode(b).decode()})
VALUES = {"S": texts, "N": numbers, "B": binaries}


def _raw(value: dict) -> bytes:
    (tag, wire), = value.items()
    return wire.encode() if tag == "S" else base64.b64decode(wire)


def holds(op, value: dict, operands: list[dict]) -> bool:
    if op is None:
        return True
    if op == "begins_with":
        return _raw(value).startswith(_raw(operands[0]))
    order = compare(value, operands[0])
    if op == "BETWEEN":
        return order >= 0 and compare(value, operands[1]) <= 0
    return {"=": order == 0, "<": order < 0, "<=": order <= 0, ">": order > 0,
            ">=": order >= 0}[op]


@st.composite
def cases(draw):
    types = draw(st.lists(st.sampled_from("SNB"), min_size=1, max_size=3))
    op = draw(st.sampled_from(OPS))
    if op == "begins_with" and types[-1] == "N":
        op = "<="
    equal_count = len(types) - 1
    equal = [draw(VALUES[t]) for t in types[:equal_count]]
    operands = [draw(VALUES[types[-1]]) for _ in range(2 if op == "BETWEEN" else 1)]
    if op == "BETWEEN" and compare(*operands) > 0:
        operands.reverse()
    rows = draw(st.lists(st.tuples(*[VALUES[t] for t in types]), max_size=12))
    # Rows sharing the equal prefix, so the last attribute's condition decides.
    rows += [tuple(equal) + (draw(VALUES[types[-1]]),) for _ in range(draw(st.integers(0, 8)))]
    suffix = draw(st.binary(max_size=4))
    return types, equal, op, operands, rows, suffix


@settings(max_examples=examples(400), deadline=None)
@given(cases(), st.booleans())
def test_rows_in_range_are_rows_satisfying_the_condition(case, index_rows):
    types, equal, op, operands, rows, suffix = case
    schema = [(f"r{i}", t) for i, t in enumerate(types)]
    lo, hi = sort_range(schema, equal, op, tuple(operands))
    for row in rows:
        rk = b"".join(keys.sort_key(t, value[t]) for t, value in zip(types, row))
        if index_rows:  # an index row: the table's key follows, terminated
            rk += keys.terminated(b"\x07" + suffix) + suffix
        inside = (lo is None or rk >= lo) and (hi is None or rk < hi)
        prefix_matches = all(compare(a, b) == 0 for a, b in zip(row, equal))
        expected = prefix_matches and holds(op, row[len(equal)], operands)
        assert inside == expected, (row, op, operands)


def test_no_condition_on_a_table_without_equal_values_is_unbounded():
    assert sort_range([("r", "S")], [], None, ()) == (None, None)


def test_numbers_compare_numerically():
    lo, hi = sort_range([("r", "N")], [], "BETWEEN", ({"N": "-1.5"}, {"N": "10"}))
    for text, inside in [("-2", False), ("-1.5", True), ("0", True), ("9.99", True),
                         ("10", True), ("10.01", False), ("100", False)]:
        rk = keys.sort_key("N", text)
        assert (lo <= rk < hi) is inside, text


# Multi-attribute GSI keys (developer guide, "Multi-attribute keys pattern"): every
# partition attribute with "=", sort attributes left to right, a range only on the last.
MULTI_HASH = [("a", "S"), ("b", "N")]
MULTI_RANGE = [("x", "S"), ("y", "N")]
MULTI_VALUES = {":a": {"S": "1"}, ":b": {"N": "2"}, ":x": {"S": "3"}, ":y": {"N": "4"}}


def multi_plan(text: str):
    used = {k: v for k, v in MULTI_VALUES.items() if k in text}
    return key_condition.plan(expressions.key_condition(text, expressions.Resolver(None, used)),
                              MULTI_HASH, MULTI_RANGE, used)


def test_multi_attribute_plan():
    plan = multi_plan("a = :a AND b = :b AND x = :x AND y > :y")
    assert plan == key_condition.KeyPlan([{"S": "1"}, {"N": "2"}], [{"S": "3"}], ">",
                                         ({"N": "4"},))
    assert multi_plan("b = :b AND a = :a AND begins_with(x, :x)").op == "begins_with"
    assert multi_plan("a = :a AND b = :b").op is None


@pytest.mark.parametrize("text, message", [
    # a HASH attribute of several without "=" (users quote DynamoDB's text up to
    # "equality conditions"; the rest is okura's, from the RANGE text)
    ("a = :a AND x = :x", "HASH key attributes b must have equality conditions specified in "
                          "the query"),
    ("a = :a AND b > :b", "HASH key attributes b must have equality conditions specified in "
                          "the query"),
    ("a = :a AND b BETWEEN :b AND :y", "HASH key attributes b must have equality conditions "
                                       "specified in the query"),
    # DynamoDB's text for RANGE attributes used out of turn (issue 24)
    ("a = :a AND b = :b AND y = :y", "RANGE key attributes x must have equality conditions "
     "specified in the query because a condition is present on key attribute y"),
    ("a = :a AND b = :b AND x > :x AND y = :y", "RANGE key attributes x must have equality "
     "conditions specified in the query because a condition is present on key attribute y"),
])
def test_multi_attribute_rules(text, message):
    with pytest.raises(DynamoError) as excinfo:
        multi_plan(text)
    assert excinfo.value.message == message
