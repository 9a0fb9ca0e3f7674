"""The condition evaluator: every comparator and function over wire-form items."""
import base64

import pytest

from okura.expressions import Resolver, condition, evaluate


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


ITEM = {
    "s": {"S": "hello"}, "u": {"S": "é"}, "n": {"N": "10"}, "neg": {"N": "-2.5"},
    "b": {"B": b64(b"\x01\x02\x03")}, "t": {"BOOL": True}, "z": {"NULL": True},
    "ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2.5"]}, "bs": {"BS": [b64(b"\x01"), b64(b"\x02")]},
    "l": {"L": [{"S": "x"}, {"N": "1"}, {"M": {"k": {"S": "v"}}}]},
    "m": {"M": {"nest": {"M": {"deep": {"N": "3"}}}, "lst": {"L": [{"S": "q"}]}}},
}

VALUES = {
    ":s": {"S": "hello"}, ":he": {"S": "he"}, ":ll": {"S": "ll"}, ":x": {"S": "x"}, ":a": {"S": "a"},
    ":n10": {"N": "10"}, ":n9": {"N": "9"}, ":n1": {"N": "1"}, ":n3": {"N": "3"}, ":n5": {"N": "5"},
    ":n2": {"N": "2"}, ":n25": {"N": "2.5"}, ":nbig": {"N": "100"},
    ":b": {"B": b64(b"\x01\x02\x03")}, ":b1": {"B": b64(b"\x01")}, ":b23": {"B": b64(b"\x02\x03")},
    ":true": {"BOOL": True}, ":null": {"NULL": True},
    ":ss": {"SS": ["b", "a"]}, ":l": {"L": [{"S": "x"}, {"N": "1"}, {"M": {"k": {"S": "v"}}}]},
    ":m": {"M": {"k": {"S": "v"}}},
    ":tS": {"S": "S"}, ":tN": {"S": "N"}, ":tSS": {"S": "SS"}, ":tL": {"S": "L"}, ":tM": {"S": "M"},
    ":tNULL": {"S": "NULL"}, ":tBOOL": {"S": "BOOL"}, ":tB": {"S": "B"}, ":tNS": {"S": "NS"}, ":tBS": {"S": "BS"},
}


def check(text, item=ITEM):
    values = {k: v for k, v in VALUES.items() if k in text}
    return evaluate(condition(text, Resolver(None, values or None)), item, values)


@pytest.mark.parametrize("text, expected", [
    ("s = :s", True), ("s <> :s", False), ("n = :n10", True), ("n = :s", False),
    ("n < :nbig", True), ("n <= :n10", True), ("n > :n9", True), ("n >= :nbig", False),
    ("neg < :n1", True), ("s < :x", True), ("s > :he", True), ("u > :x", True),
    ("b = :b", True), ("b > :b1", True), ("b < :b23", True),
    ("t = :true", True), ("z = :null", True), ("size(:s) = :n5", True), ("size(:l) < :n3", False),
    ("ss = :ss", True), ("l = :l", True), ("l[2] = :m", True), ("m.nest.deep = :n3", True),
    ("m.lst[0] = :s", False), ("m.lst[5] = :s", False),
    ("s < :n10", False), ("s <> :n10", True),
    ("absent = :s", False), ("absent <> :s", True), ("absent < :s", False),
    ("s.x = :s", False), ("n[0] = :n10", False),
])
def test_comparators(text, expected):
    assert check(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("n BETWEEN :n9 AND :n10", True), ("n BETWEEN :n10 AND :nbig", True), ("n BETWEEN :n1 AND :n5", False),
    ("s BETWEEN :he AND :x", True), ("b BETWEEN :b1 AND :b23", True),
    ("n BETWEEN :he AND :x", False), ("absent BETWEEN :n1 AND :n5", False),
    ("n IN (:n1, :n10)", True), ("n IN (:n1, :s)", False), ("ss IN (:ss)", True), ("absent IN (:s)", False),
])
def test_between_and_in(text, expected):
    assert check(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("attribute_exists(s)", True), ("attribute_exists(m.nest.deep)", True), ("attribute_exists(l[3])", False),
    ("attribute_not_exists(absent)", True), ("attribute_not_exists(l[0])", False),
    ("attribute_type(s, :tS)", True), ("attribute_type(n, :tN)", True), ("attribute_type(ss, :tSS)", True),
    ("attribute_type(l, :tL)", True), ("attribute_type(m, :tM)", True), ("attribute_type(z, :tNULL)", True),
    ("attribute_type(t, :tBOOL)", True), ("attribute_type(b, :tB)", True), ("attribute_type(ns, :tNS)", True),
    ("attribute_type(bs, :tBS)", True), ("attribute_type(s, :tN)", False), ("attribute_type(absent, :tS)", False),
    ("begins_with(s, :he)", True), ("begins_with(s, :ll)", False), ("begins_with(b, :b1)", True),
    ("begins_with(b, :b23)", False), ("begins_with(n, :he)", False), ("begins_with(absent, :he)", False),
    ("contains(s, :ll)", True), ("contains(s, :x)", False), ("contains(b, :b23)", True),
    ("contains(ss, :a)", True), ("contains(ss, :x)", False), ("contains(ns, :n25)", True),
    ("contains(ns, :n3)", False), ("contains(bs, :b1)", True), ("contains(l, :x)", True),
    ("contains(l, :m)", True), ("contains(l, :s)", False), ("contains(n, :n10)", False),
    ("contains(absent, :x)", False), ("contains(m.lst, :x)", False),
])
def test_functions(text, expected):
    assert check(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("size(s) = :n5", True), ("size(u) = :n2", True), ("size(b) = :n3", True), ("size(ss) = :n2", True),
    ("size(l) = :n3", True), ("size(m) = :n2", True), ("size(m.nest) = :n1", True),
    ("size(n) = :n2", False), ("size(absent) <> :n1", True), ("size(absent) = :n1", False),
    ("size(s) BETWEEN :n1 AND :n5", True), ("size(l) IN (:n3)", True),
])
def test_size(text, expected):
    assert check(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("s = :s AND n = :n10", True), ("s = :s AND n = :n9", False),
    ("s = :x OR n = :n10", True), ("s = :x OR n = :n9", False),
    ("NOT s = :x", True), ("NOT attribute_exists(s)", False),
    ("s = :x OR s = :s AND n = :n9", False), ("(s = :x OR s = :s) AND n = :n10", True),
    ("NOT s = :x AND n = :n9", False), ("NOT (s = :x AND n = :n9)", True),
])
def test_logic_and_precedence(text, expected):
    assert check(text) is expected


def test_no_item_means_no_attributes():
    assert check("attribute_not_exists(s)", None) is True
    assert check("s = :s", None) is False
