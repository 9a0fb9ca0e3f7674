"""Condition expressions end to end, from the developer guide ("Comparison operator and
function reference", "Condition expressions", "Expression attribute names and
values"): every comparator and function decides whether a write happens, and the
name/value checks give DynamoDB's messages."""
from __future__ import annotations

import re

import pytest

from conftest import unique_name
from items_common import FAILED, fails

KEY = {"pk": {"S": "a"}}
ITEM = {
    "pk": {"S": "a"},
    "n": {"N": "10"},
    "s": {"S": "hello"},
    "b": {"B": b"\x01\x02\x03"},
    "t": {"BOOL": True},
    "z": {"NULL": True},
    "l": {"L": [{"S": "x"}, {"N": "2"}]},
    "m": {"M": {"k": {"S": "v"}, "deep": {"M": {"n": {"N": "5"}}}}},
    "ss": {"SS": ["red", "green"]},
    "ns": {"NS": ["1", "2", "3"]},
    "bs": {"BS": [b"\x01", b"\x02"]},
    "e": {"S": ""},
}
V = {
    ":n10": {"N": "10"}, ":n5": {"N": "5"}, ":n20": {"N": "20"}, ":n2": {"N": "2"},
    ":n3": {"N": "3"}, ":n10b": {"N": "10.0"}, ":s": {"S": "hello"}, ":he": {"S": "he"},
    ":ell": {"S": "ell"}, ":x": {"S": "x"}, ":red": {"S": "red"}, ":b1": {"B": b"\x01"},
    ":b2": {"B": b"\x02"}, ":sstr": {"S": "S"}, ":nstr": {"S": "N"}, ":ssstr": {"S": "SS"},
    ":mstr": {"S": "M"}, ":nullstr": {"S": "NULL"}, ":boolstr": {"S": "BOOL"},
    ":bstr": {"S": "B"}, ":lstr": {"S": "L"}, ":tru": {"BOOL": True}, ":empty": {"S": ""},
    ":list": {"L": [{"S": "x"}, {"N": "2"}]}, ":ssv": {"SS": ["green", "red"]}, ":v": {"S": "v"},
}


@pytest.fixture(scope="module")
def conditions_table(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    ddb.put_item(TableName=name, Item=ITEM)
    return name


def holds(ddb, table, condition: str, names: dict | None = None) -> bool:
    """Whether `condition` holds for ITEM: a conditional put of the same item succeeds."""
    used = {k: V[k] for k in re.findall(r":\w+", condition)}
    params = {"ExpressionAttributeValues": used} if used else {}
    if names:
        params["ExpressionAttributeNames"] = names
    try:
        ddb.put_item(TableName=table, Item=ITEM, ConditionExpression=condition, **params)
    except ddb.exceptions.ConditionalCheckFailedException:
        return False
    return True


@pytest.mark.parametrize("condition, expected", [
    ("n = :n10", True), ("n = :n10b", True), ("n = :n5", False), ("s = :s", True),
    ("n <> :n5", True), ("n <> :n10", False), ("absent <> :n5", True), ("absent = :n5", False),
    ("n < :n20", True), ("n < :n10", False), ("n <= :n10", True), ("n > :n5", True),
    ("n >= :n20", False), ("s > :he", True), ("s < :he", False), ("b > :b1", True),
    ("b < :b2", True), ("s < :n20", False), ("t = :tru", True), ("l = :list", True),
    ("ss = :ssv", True), ("m.deep.n = :n5", True), ("l[1] = :n2", True), ("l[0] = :x", True),
    ("l[5] = :x", False), ("e = :empty", True),
    ("n BETWEEN :n5 AND :n10", True), ("n BETWEEN :n5 AND :n5", False),
    ("s BETWEEN :he AND :s", True), ("n BETWEEN :he AND :s", False),
    ("n IN (:n5, :n10)", True), ("n IN (:n5, :n20)", False), ("s IN (:x, :s)", True),
    ("absent IN (:x)", False),
    ("attribute_exists(n)", True), ("attribute_exists(absent)", False),
    ("attribute_exists(m.k)", True), ("attribute_exists(m.absent)", False),
    ("attribute_exists(l[1])", True), ("attribute_exists(l[2])", False),
    ("attribute_not_exists(absent)", True), ("attribute_not_exists(z)", False),
    ("attribute_type(n, :nstr)", True), ("attribute_type(n, :sstr)", False),
    ("attribute_type(ss, :ssstr)", True), ("attribute_type(m, :mstr)", True),
    ("attribute_type(z, :nullstr)", True), ("attribute_type(t, :boolstr)", True),
    ("attribute_type(b, :bstr)", True), ("attribute_type(l, :lstr)", True),
    ("attribute_type(absent, :sstr)", False),
    # recorded: a value may stand first
    ("attribute_type(:s, :sstr)", True), ("attribute_type(:s, :nstr)", False),
    ("begins_with(s, :he)", True), ("begins_with(s, :ell)", False),
    ("begins_with(b, :b1)", True), ("begins_with(b, :b2)", False), ("begins_with(n, :he)", False),
    ("contains(s, :ell)", True), ("contains(s, :x)", False), ("contains(ss, :red)", True),
    ("contains(ns, :n3)", True), ("contains(ns, :n5)", False), ("contains(bs, :b2)", True),
    ("contains(l, :x)", True), ("contains(l, :n2)", True), ("contains(l, :red)", False),
    ("contains(b, :b2)", True), ("contains(absent, :x)", False),
    ("size(s) = :n5", True), ("size(b) = :n3", True), ("size(ss) = :n2", True),
    ("size(l) = :n2", True), ("size(m) = :n2", True), ("size(n) = :n2", False),
    ("size(absent) < :n5", False), ("size(e) < :n2", True),
    ("NOT n = :n5", True), ("NOT attribute_exists(n)", False),
    ("n = :n5 OR s = :s", True), ("n = :n5 AND s = :s", False),
    # AND binds tighter than OR; NOT tighter than AND.
    ("n = :n10 OR n = :n5 AND n = :n20", True),
    ("(n = :n10 OR n = :n5) AND n = :n20", False),
    ("NOT n = :n5 AND n = :n10", True),
    ("NOT (n = :n10 AND n = :n5)", True),
    ("n = :n5 OR NOT (s = :x)", True),
])
def test_condition(ddb, conditions_table, condition, expected):
    assert holds(ddb, conditions_table, condition) is expected


def test_names_stand_for_reserved_words_and_dots(ddb, conditions_table):
    assert holds(ddb, conditions_table, "#s = :s AND #m.#k = :v AND NOT #dot = :v",
                 {"#s": "s", "#m": "m", "#k": "k", "#dot": "m.k"}) is True
    # "#dot" is one attribute named "m.k", not the path m.k: absent.
    assert holds(ddb, conditions_table, "#dot = :v", {"#dot": "m.k"}) is False


def test_condition_on_a_missing_item(ddb, table):
    ddb.put_item(TableName=table, Item=KEY, ConditionExpression="attribute_not_exists(pk)")
    ddb.delete_item(TableName=table, Key=KEY)
    assert fails(ddb.put_item, TableName=table, Item=KEY,
                 ConditionExpression="attribute_exists(pk)") == FAILED


def invalid_condition(detail: str) -> tuple[str, str]:
    return "ValidationException", "Invalid ConditionExpression: " + detail


@pytest.mark.parametrize("condition, values, names, expected", [
    ("status = :v", {":v": {"S": "x"}}, None, invalid_condition(
        "Attribute name is a reserved keyword; reserved keyword: status")),
    ("#a = :v", {":v": {"S": "x"}}, None, invalid_condition(
        "An expression attribute name used in the document path is not defined; attribute name: #a")),
    ("a = :v", None, None, invalid_condition(
        "An expression attribute value used in expression is not defined; attribute value: :v")),
    ("a = :v", {":v": {"S": "x"}, ":w": {"S": "y"}}, None, (
        "ValidationException",
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}")),
    ("a = :v", {":v": {"S": "x"}}, {"#a": "a", "#b": "b"}, (
        "ValidationException",
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}")),
    ("a = :v", {":v": {"S": "x"}}, {}, (
        "ValidationException", "ExpressionAttributeNames must not be empty")),
    ("a = :v", {}, None, ("ValidationException", "ExpressionAttributeValues must not be empty")),
    ("a = :v", {"v": {"S": "x"}}, None, (
        "ValidationException",
        'ExpressionAttributeValues contains invalid key: Syntax error; key: "v"')),
    ("#a = :v", {":v": {"S": "x"}}, {"a": "a"}, (
        "ValidationException",
        'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"')),
    ("a = :v", {":v": {"SS": []}}, None, (
        "ValidationException",
        "ExpressionAttributeValues contains invalid value: One or more parameter values were "
        "invalid: An string set  may not be empty for key :v")),
    ("a = :v", {":v": {"N": "x"}}, None, (
        "ValidationException", "ExpressionAttributeValues contains invalid value: The parameter "
                               "cannot be converted to a numeric value: x for key :v")),
    ("a =", None, None, invalid_condition('Syntax error; token: "<EOF>", near: "="')),
    ("a = a", None, None, invalid_condition(
        "The first operand must be distinct from the remaining operands for this operator or "
        "function; operator: =, first operand: [a]")),
    ("", None, None, invalid_condition("The expression can not be empty;")),
    ("foo(a)", None, None, invalid_condition("Invalid function name; function: foo")),
    ("size(a)", None, None, invalid_condition(
        "The function is not allowed to be used this way in an expression; function: size")),
    ("attribute_exists(a, b)", None, None, invalid_condition(
        "Incorrect number of operands for operator or function; operator or function: "
        "attribute_exists, number of operands: 2")),
    ("begins_with(a, :v)", {":v": {"N": "1"}}, None, invalid_condition(
        "Incorrect operand type for operator or function; operator or function: begins_with, "
        "operand type: N")),
    ("a <> :v", {":v": {"S": "x"}}, None, None),
    ("size(:v) = :n", {":v": {"S": "abc"}, ":n": {"N": "3"}}, None, None),
    ("size(:n) = :n", {":n": {"N": "3"}}, None, invalid_condition(
        "Incorrect operand type for operator or function; operator or function: size, operand type: N")),
    ("size(size(a)) = :n", {":n": {"N": "3"}}, None, invalid_condition(
        "Incorrect operand type for operator or function; operator or function: size, operand type: N")),
    ("a < :v", {":v": {"L": [{"S": "x"}]}}, None, invalid_condition(
        "Incorrect operand type for operator or function; operator or function: <, operand type: L")),
    # recorded: refused (the wording is okura's)
    ("attribute_type(a, b)", None, None, invalid_condition(
        "Operator or function requires a value; operator or function: attribute_type")),
])
def test_expression_errors(ddb, table, condition, values, names, expected):
    params = {}
    if values is not None:
        params["ExpressionAttributeValues"] = values
    if names is not None:
        params["ExpressionAttributeNames"] = names
    if expected is None:  # the control case: the same request, well formed, succeeds
        ddb.put_item(TableName=table, Item=KEY, ConditionExpression=condition, **params)
        return
    assert fails(ddb.put_item, TableName=table, Item=KEY, ConditionExpression=condition,
                 **params) == expected


def test_value_type_faults_beat_value_rule_faults(server, table):
    reply = server.post("PutItem", {
        "TableName": table, "Item": KEY, "ConditionExpression": "a = :v AND b = :w",
        "ExpressionAttributeValues": {":v": {"SS": []}, ":w": {"S": 5}}})
    assert reply.status == 400
    assert reply.json == {"__type": "com.amazon.coral.service#SerializationException",
                          "message": "NUMBER_VALUE cannot be converted to String"}


@pytest.mark.parametrize("text, message", [
    ("SET a = " + "(" * 3000 + "b", 'Syntax error; token: "<EOF>", near: "b"'),
    # + does not chain: the second is the syntax error
    ("SET a = b" + " + b" * 320, 'Syntax error; token: "+", near: "b + b"'),
    ("SET " + ", ".join(f"a{i}=b+b" for i in range(320)),
     "The expression contains too many operators; operator count: 320"),
])
def test_pathological_update_expressions(ddb, table, text, message):
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression=text) == (
        "ValidationException", "Invalid UpdateExpression: " + message)


@pytest.mark.parametrize("text, message", [
    ("NOT " * 1000 + "a = b", "The expression contains too many operators; operator count: 1001"),
    ("(" * 2000 + "a = b" + ")" * 2000, "The expression has redundant parentheses;"),
    ("a = b" + " OR a = b" * 150, "The expression contains too many operators; operator count: 301"),
])
def test_pathological_conditions(ddb, table, text, message):
    assert fails(ddb.delete_item, TableName=table, Key=KEY, ConditionExpression=text) == (
        "ValidationException", "Invalid ConditionExpression: " + message)


def test_expression_of_4_kb(ddb, table):
    # 4 KB is the documented limit; one byte more is rejected.
    condition = "attribute_not_exists(a)" + " " * (4096 - 23)
    ddb.put_item(TableName=table, Item=KEY, ConditionExpression=condition)
    assert fails(ddb.put_item, TableName=table, Item=KEY,
                 ConditionExpression=condition + " ") == invalid_condition(
        "Expression size has exceeded the maximum allowed size; expression size: 4097")


def test_a_path_as_attribute_types_type_is_refused_when_nothing_is_read(ddb, table):
    """Recorded: refused even in the FilterExpression of a Query that finds nothing."""
    assert fails(ddb.query, TableName=table, KeyConditionExpression="pk = :p",
                 FilterExpression="attribute_type(a, b)",
                 ExpressionAttributeValues={":p": {"S": "nothing"}}) == (
        "ValidationException", "Invalid FilterExpression: Operator or function requires a "
                               "value; operator or function: attribute_type")
