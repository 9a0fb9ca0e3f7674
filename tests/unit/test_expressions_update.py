"""Applying UpdateExpressions: SET (+, -, list_append, if_not_exists), REMOVE, ADD, DELETE."""
import base64
import copy
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from okura.errors import DynamoError
from okura.expressions import Path, Resolver, apply_update, update
from okura.values import numbers


def run(text, item, values=None, names=None):
    frozen = copy.deepcopy(item)
    new, paths = apply_update(update(text, Resolver(names, values)), item, values)
    assert item == frozen, "the input item must not change"
    return new, paths


def failure(text, item, values=None):
    with pytest.raises(DynamoError) as caught:
        run(text, item, values)
    assert caught.value.name == "ValidationException"
    return caught.value.message


def test_set_top_level_and_returned_paths():
    new, paths = run("SET a = :v, b = :w REMOVE c", {"c": {"S": "x"}}, {":v": {"N": "1"}, ":w": {"S": "y"}})
    assert new == {"a": {"N": "1"}, "b": {"S": "y"}}
    assert paths == (Path(("a",)), Path(("b",)), Path(("c",)))


def test_set_arithmetic_is_exact():
    item = {"n": {"N": "99999999999999999999999999999999999999"}}
    new, _ = run("SET n = n - :one, m = :one + :one", item, {":one": {"N": "1"}})
    assert new["n"] == {"N": "99999999999999999999999999999999999998"}
    assert new["m"] == {"N": "2"}


def test_arithmetic_overflow_is_rejected():
    item = {"n": {"N": numbers.normalize("9E+125")}}
    with pytest.raises(DynamoError) as caught:
        run("SET n = n + :big", item, {":big": {"N": numbers.normalize("1E+125")}})
    assert caught.value.message == \
        "Number overflow. Attempting to store a number with magnitude larger than supported range"


def test_set_values_read_the_item_before_the_update():
    new, _ = run("SET a = b, b = a", {"a": {"S": "1"}, "b": {"S": "2"}})
    assert new == {"a": {"S": "2"}, "b": {"S": "1"}}


def test_if_not_exists_and_list_append():
    item = {"l": {"L": [{"S": "b"}]}, "c": {"N": "5"}}
    values = {":front": {"L": [{"S": "a"}]}, ":zero": {"N": "0"}, ":one": {"N": "1"}}
    new, _ = run("SET l = list_append(:front, l), c = if_not_exists(c, :zero) + :one, "
                 "d = if_not_exists(d, :zero) + :one, e = list_append(if_not_exists(e, :front), :front)",
                 item, values)
    assert new == {"l": {"L": [{"S": "a"}, {"S": "b"}]}, "c": {"N": "6"}, "d": {"N": "1"},
                   "e": {"L": [{"S": "a"}, {"S": "a"}]}}


def test_nested_map_and_list_paths():
    item = {"m": {"M": {"x": {"M": {}}, "l": {"L": [{"N": "1"}, {"N": "2"}]}}}}
    new, _ = run("SET m.x.y = :v, m.l[0] = :v, #n = :v", item, {":v": {"S": "v"}}, {"#n": "a.b"})
    assert new == {"m": {"M": {"x": {"M": {"y": {"S": "v"}}}, "l": {"L": [{"S": "v"}, {"N": "2"}]}}},
                   "a.b": {"S": "v"}}


def test_set_past_the_end_appends_in_index_order():
    item = {"l": {"L": [{"N": "0"}]}}
    new, _ = run("SET l[9] = :b, l[5] = :a", item, {":a": {"S": "a"}, ":b": {"S": "b"}})
    assert new["l"] == {"L": [{"N": "0"}, {"S": "a"}, {"S": "b"}]}


def test_remove_list_elements_shifts_the_rest():
    item = {"l": {"L": [{"S": str(i)} for i in range(5)]}}
    new, _ = run("REMOVE l[1], l[3], l[9]", item)
    assert new["l"] == {"L": [{"S": "0"}, {"S": "2"}, {"S": "4"}]}


def test_remove_of_absent_attributes_is_a_no_op():
    new, _ = run("REMOVE a, m.x", {"m": {"M": {}}, "k": {"S": "k"}})
    assert new == {"m": {"M": {}}, "k": {"S": "k"}}


def test_add_numbers_and_sets():
    item = {"n": {"N": "1.5"}, "ss": {"SS": ["a"]}, "bs": {"BS": [base64.b64encode(b"x").decode()]}}
    values = {":n": {"N": "-2"}, ":ss": {"SS": ["b", "a"]}, ":ns": {"NS": ["3"]},
              ":bs": {"BS": [base64.b64encode(b"x").decode(), base64.b64encode(b"y").decode()]}}
    new, _ = run("ADD n :n, ss :ss, fresh :n, ns :ns, bs :bs", item, values)
    assert new["n"] == {"N": "-0.5"}
    assert new["ss"] == {"SS": ["a", "b"]}
    assert new["fresh"] == {"N": "-2"}
    assert new["ns"] == {"NS": ["3"]}
    assert new["bs"] == {"BS": [base64.b64encode(b"x").decode(), base64.b64encode(b"y").decode()]}


def test_delete_from_sets():
    item = {"ss": {"SS": ["a", "b", "c"]}, "one": {"NS": ["1"]}}
    new, _ = run("DELETE ss :del, one :n, absent :n", item, {":del": {"SS": ["a", "c", "z"]}, ":n": {"NS": ["1"]}})
    assert new == {"ss": {"SS": ["b"]}}  # an emptied set goes away


def test_nested_add_and_delete():
    item = {"m": {"M": {"c": {"N": "1"}, "s": {"SS": ["a", "b"]}}}}
    new, _ = run("ADD m.c :one DELETE m.s :a", item, {":one": {"N": "1"}, ":a": {"SS": ["a"]}})
    assert new == {"m": {"M": {"c": {"N": "2"}, "s": {"SS": ["b"]}}}}


@pytest.mark.parametrize("text, item, values", [
    ("SET a = b + :v", {}, {":v": {"N": "1"}}),
    ("SET a = list_append(l, :v)", {}, {":v": {"L": []}}),
])
def test_missing_operand(text, item, values):
    assert failure(text, item, values) == \
        "The provided expression refers to an attribute that does not exist in the item"


@pytest.mark.parametrize("text, item, values", [
    ("SET a = b + :v", {"b": {"S": "x"}}, {":v": {"N": "1"}}),
    ("SET a = list_append(b, :v)", {"b": {"S": "x"}}, {":v": {"L": []}}),
    ("ADD a :v", {"a": {"S": "x"}}, {":v": {"N": "1"}}),
    ("ADD a :v", {"a": {"NS": ["1"]}}, {":v": {"SS": ["x"]}}),
    ("DELETE a :v", {"a": {"N": "1"}}, {":v": {"NS": ["1"]}}),
])
def test_incorrect_data_type(text, item, values):
    assert failure(text, item, values) == "An operand in the update expression has an incorrect data type"


@pytest.mark.parametrize("text, item", [
    ("SET a.b = :v", {}),
    ("SET a.b = :v", {"a": {"S": "x"}}),
    ("SET a[0] = :v", {"a": {"M": {}}}),
    ("SET a.b = :v", {"a": {"L": []}}),
    ("SET a.b.c = :v", {"a": {"M": {}}}),
    ("REMOVE a.b", {}),
    ("ADD a.b :v", {}),
    ("DELETE a[0] :s", {"a": {"S": "x"}}),
])
def test_invalid_document_path(text, item):
    values = {k: v for k, v in {":v": {"N": "1"}, ":s": {"SS": ["x"]}}.items() if k in text}
    assert failure(text, item, values or None) == \
        "The document path provided in the update expression is invalid for update"


_numbers = st.decimals(min_value=Decimal("-1e20"), max_value=Decimal("1e20"), places=6,
                       allow_nan=False, allow_infinity=False).map(lambda d: numbers.to_text(numbers.check(d)))


@given(_numbers, _numbers)
def test_add_and_subtract_are_exact(a, b):
    item = {"n": {"N": a}}
    values = {":b": {"N": b}}
    plus, _ = run("SET p = n + :b, m = n - :b ADD n :b", item, values)
    assert Decimal(plus["p"]["N"]) == Decimal(a) + Decimal(b)
    assert Decimal(plus["m"]["N"]) == Decimal(a) - Decimal(b)
    assert plus["n"] == plus["p"]
    assert plus["p"]["N"] == numbers.normalize(plus["p"]["N"])
