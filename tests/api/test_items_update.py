"""UpdateItem through boto3, from the API reference and the developer guide's
"Update expressions": SET (+, -, list_append, if_not_exists), REMOVE, ADD, DELETE,
nested paths, the ReturnValues matrix, conditions and DynamoDB's update errors."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of
from items_common import FAILED, NOT_FOUND, fails

KEY = {"pk": {"S": "a"}}
BASE = {
    "pk": {"S": "a"},
    "n": {"N": "10"},
    "s": {"S": "text"},
    "l": {"L": [{"S": "x"}, {"S": "y"}, {"S": "z"}]},
    "m": {"M": {"core": {"M": {"v": {"N": "1"}}}, "oth": {"S": "o"}}},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "bs": {"BS": [b"\x01", b"\x02"]},
}


def invalid_update(detail: str) -> tuple[str, str]:
    return "ValidationException", "Invalid UpdateExpression: " + detail


@pytest.fixture
def stored(ddb, table) -> str:
    ddb.put_item(TableName=table, Item=BASE)
    return table


def update(ddb, table, expression, values=None, names=None, **params) -> dict:
    if values:
        params["ExpressionAttributeValues"] = values
    if names:
        params["ExpressionAttributeNames"] = names
    return ddb.update_item(TableName=table, Key=KEY, UpdateExpression=expression, **params)


def item(ddb, table) -> dict | None:
    return ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True).get("Item")


@pytest.mark.parametrize("expression, values, changes", [
    ("SET s = :v", {":v": {"S": "new"}}, {"s": {"S": "new"}}),
    ("SET fresh = :v", {":v": {"BOOL": False}}, {"fresh": {"BOOL": False}}),
    ("SET n = n + :v", {":v": {"N": "5"}}, {"n": {"N": "15"}}),
    ("SET n = n - :v", {":v": {"N": "10.5"}}, {"n": {"N": "-0.5"}}),
    ("SET n = :v - n", {":v": {"N": "1"}}, {"n": {"N": "-9"}}),
    ("SET l = list_append(l, :v)", {":v": {"L": [{"N": "1"}]}},
     {"l": {"L": BASE["l"]["L"] + [{"N": "1"}]}}),
    ("SET l = list_append(:v, l)", {":v": {"L": [{"N": "1"}]}},
     {"l": {"L": [{"N": "1"}] + BASE["l"]["L"]}}),
    ("SET n = if_not_exists(n, :v), f = if_not_exists(f, :v)", {":v": {"N": "0"}},
     {"f": {"N": "0"}}),
    ("SET m.core.v = :v", {":v": {"S": "deep"}},
     {"m": {"M": {"core": {"M": {"v": {"S": "deep"}}}, "oth": {"S": "o"}}}}),
    ("SET m.added = :v", {":v": {"NULL": True}},
     {"m": {"M": {**BASE["m"]["M"], "added": {"NULL": True}}}}),
    ("SET l[1] = :v", {":v": {"S": "Y"}}, {"l": {"L": [{"S": "x"}, {"S": "Y"}, {"S": "z"}]}}),
    # Past the end of a list, SET appends.
    ("SET l[10] = :v", {":v": {"S": "end"}}, {"l": {"L": BASE["l"]["L"] + [{"S": "end"}]}}),
    # SET reads every value from the item as it was before the update.
    ("SET s = n, n = s", None, {"s": BASE["n"], "n": BASE["s"]}),
    ("ADD n :v", {":v": {"N": "-3"}}, {"n": {"N": "7"}}),
    ("ADD newnum :v", {":v": {"N": "3"}}, {"newnum": {"N": "3"}}),
    ("ADD ss :v", {":v": {"SS": ["b", "c"]}}, {"ss": {"SS": ["a", "b", "c"]}}),
    ("ADD newset :v", {":v": {"NS": ["5"]}}, {"newset": {"NS": ["5"]}}),
    ("ADD bs :v", {":v": {"BS": [b"\x03"]}}, {"bs": {"BS": [b"\x01", b"\x02", b"\x03"]}}),
    ("DELETE ss :v", {":v": {"SS": ["a", "zz"]}}, {"ss": {"SS": ["b"]}}),
    ("DELETE ns :v", {":v": {"NS": ["2"]}}, {"ns": {"NS": ["1"]}}),
    ("DELETE bs :v", {":v": {"BS": [b"\x01"]}}, {"bs": {"BS": [b"\x02"]}}),
    ("DELETE absent :v", {":v": {"SS": ["a"]}}, {}),
])
def test_update_actions(ddb, stored, expression, values, changes):
    update(ddb, stored, expression, values)
    assert _sets_sorted(item(ddb, stored)) == _sets_sorted({**BASE, **changes})


def _sets_sorted(doc: dict) -> dict:
    """Set members come back in no particular order."""
    out = {}
    for name, value in doc.items():
        (tag, inner), = value.items()
        out[name] = {tag: sorted(inner)} if tag in ("SS", "NS", "BS") else value
    return out


@pytest.mark.parametrize("expression, removed", [
    ("REMOVE s", {"s"}),
    ("REMOVE s, n, absent", {"s", "n"}),
    ("REMOVE m.oth", None),
    ("REMOVE l[0], l[2]", None),
])
def test_remove(ddb, stored, expression, removed):
    update(ddb, stored, expression)
    expected = {k: v for k, v in BASE.items() if k not in (removed or ())}
    if expression == "REMOVE m.oth":
        expected["m"] = {"M": {"core": BASE["m"]["M"]["core"]}}
    if expression == "REMOVE l[0], l[2]":  # indexes name elements of the list before the update
        expected["l"] = {"L": [{"S": "y"}]}
    assert _sets_sorted(item(ddb, stored)) == _sets_sorted(expected)


def test_deleting_the_last_members_removes_the_set(ddb, stored):
    update(ddb, stored, "DELETE ss :v", {":v": {"SS": ["a", "b"]}})
    assert "ss" not in item(ddb, stored)


def test_all_four_clauses_in_one_expression(ddb, stored):
    update(ddb, stored, "SET s = :s REMOVE n ADD ns :n DELETE ss :ss",
           {":s": {"S": "S"}, ":n": {"NS": ["3"]}, ":ss": {"SS": ["a"]}})
    got = _sets_sorted(item(ddb, stored))
    assert got["s"] == {"S": "S"} and "n" not in got
    assert got["ns"] == {"NS": ["1", "2", "3"]} and got["ss"] == {"SS": ["b"]}


def test_clauses_in_any_order_and_names(ddb, stored):
    update(ddb, stored, "REMOVE #n SET #s = :s", {":s": {"S": "S"}}, {"#n": "n", "#s": "s"})
    got = item(ddb, stored)
    assert got["s"] == {"S": "S"} and "n" not in got


def test_update_creates_a_missing_item(ddb, sorted_table):
    key = {"pk": {"S": "a"}, "sk": {"S": "b"}}
    reply = ddb.update_item(TableName=sorted_table, Key=key, UpdateExpression="SET v = :v",
                            ExpressionAttributeValues={":v": {"N": "1"}}, ReturnValues="ALL_NEW")
    assert reply["Attributes"] == {**key, "v": {"N": "1"}}
    assert ddb.get_item(TableName=sorted_table, Key=key)["Item"] == {**key, "v": {"N": "1"}}


# Without an update action DynamoDB creates a missing item with its key alone (issue 39,
# measured against recorded replies); REMOVEs alone create nothing (below).
@pytest.mark.parametrize("params", [{}, {"AttributeUpdates": {}}])
def test_update_without_actions_creates_the_key_only_item(ddb, sorted_table, params):
    key = {"pk": {"S": "a"}, "sk": {"S": "b"}}
    reply = ddb.update_item(TableName=sorted_table, Key=key, ReturnValues="ALL_NEW", **params)
    assert reply["Attributes"] == key
    assert ddb.get_item(TableName=sorted_table, Key=key, ConsistentRead=True)["Item"] == key


@pytest.mark.parametrize("return_values", ["NONE", "ALL_OLD", "UPDATED_OLD", "UPDATED_NEW"])
def test_update_without_actions_returns_no_attributes(ddb, table, return_values):
    # nothing was there before, and no attribute was updated (UPDATED_*: unverified)
    assert "Attributes" not in ddb.update_item(TableName=table, Key=KEY,
                                               ReturnValues=return_values)
    assert item(ddb, table) == KEY


def test_update_without_actions_leaves_a_stored_item_as_it_is(ddb, stored):
    assert ddb.update_item(TableName=stored, Key=KEY, ReturnValues="ALL_NEW")["Attributes"] == BASE
    assert item(ddb, stored) == BASE


@pytest.mark.parametrize("condition, values", [
    ("attribute_not_exists(pk)", None),
    ("pk <> :v", {":v": {"S": "a"}}),
    ("(attribute_not_exists(pk))", None),
    ("(pk <> :v)", {":v": {"S": "a"}}),
    ("(attribute_not_exists(pk)) AND (pk <> :v)", {":v": {"S": "a"}}),
])
def test_update_without_actions_under_a_condition_on_the_key(ddb, table, condition, values):
    params = {"ExpressionAttributeValues": values} if values else {}
    reply = ddb.update_item(TableName=table, Key=KEY, ConditionExpression=condition,
                            ReturnValues="ALL_NEW", **params)
    assert reply["Attributes"] == KEY
    assert item(ddb, table) == KEY
    # judged against the stored item, not the key: false now that the item exists
    assert fails(ddb.update_item, TableName=table, Key=KEY, ConditionExpression=condition,
                 **params) == FAILED


@pytest.mark.parametrize("condition, error", [
    ("attribute_exists(pk)", FAILED),
    ("((attribute_not_exists(pk)))", ("ValidationException", "Invalid ConditionExpression: "
                                      "The expression has redundant parentheses;")),
])
def test_update_without_actions_refused_creates_nothing(ddb, table, condition, error):
    assert fails(ddb.update_item, TableName=table, Key=KEY,
                 ConditionExpression=condition) == error
    assert item(ddb, table) is None


@pytest.mark.parametrize("expression", ["REMOVE x", "REMOVE x, y", "REMOVE x.y", "REMOVE x[0]"])
def test_removes_alone_do_not_create_a_missing_item(ddb, table, expression):
    # recorded from DynamoDB: nothing to remove, nothing created, no error for nested paths
    reply = update(ddb, table, expression, ReturnValues="ALL_NEW")
    assert "Attributes" not in reply
    assert item(ddb, table) is None


# ReturnValues: which attributes each value returns (API reference, UpdateItem).
@pytest.mark.parametrize("return_values, expected", [
    ("NONE", None),
    ("ALL_OLD", BASE),
    ("ALL_NEW", {**{k: v for k, v in BASE.items() if k != "n"}, "s": {"S": "S"},
                 "m": {"M": {**BASE["m"]["M"], "x": {"N": "1"}}}}),
    ("UPDATED_OLD", {"s": BASE["s"], "n": BASE["n"]}),
    ("UPDATED_NEW", {"s": {"S": "S"}, "m": {"M": {"x": {"N": "1"}}}}),
])
def test_return_values_matrix(ddb, stored, return_values, expected):
    reply = update(ddb, stored, "SET s = :s, m.x = :x REMOVE n",
                   {":s": {"S": "S"}, ":x": {"N": "1"}}, ReturnValues=return_values)
    if expected is None:
        assert "Attributes" not in reply
    else:
        assert _sets_sorted(reply["Attributes"]) == _sets_sorted(expected)


@pytest.mark.parametrize("return_values", ["ALL_OLD", "UPDATED_OLD"])
def test_old_values_of_a_new_item_are_absent(ddb, table, return_values):
    reply = update(ddb, table, "SET v = :v", {":v": {"N": "1"}}, ReturnValues=return_values)
    assert "Attributes" not in reply


def test_updated_new_of_a_nested_list_element(ddb, stored):
    reply = update(ddb, stored, "SET l[1] = :v", {":v": {"S": "Y"}}, ReturnValues="UPDATED_NEW")
    assert reply["Attributes"] == {"l": {"L": [{"S": "Y"}]}}


def test_updated_old_of_an_add(ddb, stored):
    reply = update(ddb, stored, "ADD n :v", {":v": {"N": "1"}}, ReturnValues="UPDATED_OLD")
    assert reply["Attributes"] == {"n": {"N": "10"}}


def test_condition_on_update(ddb, stored):
    update(ddb, stored, "SET s = :v", {":v": {"S": "ok"}, ":ten": {"N": "10"}},
           ConditionExpression="n = :ten")
    assert item(ddb, stored)["s"] == {"S": "ok"}
    assert fails(ddb.update_item, TableName=stored, Key=KEY, UpdateExpression="SET s = :v",
                 ConditionExpression="n > :ten",
                 ExpressionAttributeValues={":v": {"S": "no"}, ":ten": {"N": "10"}}) == FAILED
    assert item(ddb, stored)["s"] == {"S": "ok"}


def test_failed_condition_returns_the_old_item_on_request(ddb, stored):
    with pytest.raises(ClientError) as excinfo:
        update(ddb, stored, "SET s = :v", {":v": {"S": "no"}},
               ConditionExpression="attribute_not_exists(pk)",
               ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert error_of(excinfo) == FAILED
    assert _sets_sorted(excinfo.value.response["Item"]) == _sets_sorted(BASE)


@pytest.mark.parametrize("expression, values, expected", [
    ("SET nope2 = nope + :v", {":v": {"N": "1"}},
     "The provided expression refers to an attribute that does not exist in the item"),
    ("SET x = list_append(absent, :v)", {":v": {"L": []}},
     "The provided expression refers to an attribute that does not exist in the item"),
    ("SET x = s + :v", {":v": {"N": "1"}},
     "An operand in the update expression has an incorrect data type"),
    ("SET x = list_append(s, :v)", {":v": {"L": []}},
     "An operand in the update expression has an incorrect data type"),
    ("ADD s :v", {":v": {"N": "1"}}, "An operand in the update expression has an incorrect data type"),
    ("ADD ss :v", {":v": {"NS": ["1"]}},
     "An operand in the update expression has an incorrect data type"),
    ("DELETE ss :v", {":v": {"NS": ["1"]}},
     "An operand in the update expression has an incorrect data type"),
    ("SET absent.x = :v", {":v": {"N": "1"}},
     "The document path provided in the update expression is invalid for update"),
    ("SET s.x = :v", {":v": {"N": "1"}},
     "The document path provided in the update expression is invalid for update"),
    ("SET m[0] = :v", {":v": {"N": "1"}},
     "The document path provided in the update expression is invalid for update"),
])
def test_errors_found_against_the_item(ddb, stored, expression, values, expected):
    assert fails(ddb.update_item, TableName=stored, Key=KEY, UpdateExpression=expression,
                 ExpressionAttributeValues=values) == ("ValidationException", expected)
    assert _sets_sorted(item(ddb, stored)) == _sets_sorted(BASE)


@pytest.mark.parametrize("expression, values, expected", [
    ("SET a = :v, a.b = :v", {":v": {"N": "1"}}, invalid_update(
        "Two document paths overlap with each other; must remove or rewrite one of these paths; "
        "path one: [a], path two: [a, b]")),
    ("SET a = :v REMOVE a", {":v": {"N": "1"}}, invalid_update(
        "Two document paths overlap with each other; must remove or rewrite one of these paths; "
        "path one: [a], path two: [a]")),
    ("SET a = :v SET b = :v", {":v": {"N": "1"}}, invalid_update(
        'The "SET" section can only be used once in an update expression;')),
    ("ADD a :v", {":v": {"S": "x"}}, invalid_update(
        "Incorrect operand type for operator or function; operator: ADD, operand type: STRING")),
    ("DELETE a :v", {":v": {"N": "1"}}, invalid_update(
        "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER")),
    ("SET a = list_append(:v, :w)", {":v": {"M": {}}, ":w": {"L": []}}, invalid_update(
        "Incorrect operand type for operator or function; operator or function: list_append, "
        "operand type: M")),
    ("SET a = :v", None, invalid_update(
        "An expression attribute value used in expression is not defined; attribute value: :v")),
    ("SET a = :v", {":v": {"N": "1"}, ":w": {"N": "2"}},
     ("ValidationException",
      "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}")),
    ("SET size = :v", {":v": {"N": "1"}}, invalid_update(
        "Attribute name is a reserved keyword; reserved keyword: size")),
    ("SET a = size(b)", None, invalid_update(
        "The function is not allowed in an update expression; function: size")),
    ("", None, invalid_update("The expression can not be empty;")),
    ("SET _abc = :v", {":v": {"N": "1"}}, invalid_update('Syntax error; token: "_", near: "SET _abc"')),
    ("SET a = :v + :v + :v", {":v": {"N": "1"}},
     invalid_update('Syntax error; token: "+", near: ":v + :v"')),
    ("SET a = if_not_exists(a, :v + :v)", {":v": {"N": "1"}},
     invalid_update('Syntax error; token: "+", near: ":v + :v"')),
    ("SET l = list_append(list_append(l, :v), :v)", {":v": {"L": []}}, invalid_update(
        "The function is not allowed to be used this way in an expression; function: list_append")),
])
def test_expression_errors(ddb, table, expression, values, expected):
    params = {"ExpressionAttributeValues": values} if values else {}
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression=expression,
                 **params) == expected


@pytest.mark.parametrize("expression", ["SET pk = :v", "REMOVE pk", "ADD pk :n", "SET #k = :v"])
def test_key_attributes_cannot_be_updated(ddb, table, expression):
    params = {}
    if ":" in expression:
        params["ExpressionAttributeValues"] = {expression[expression.index(":"):]: {"N": "1"}}
    if "#k" in expression:
        params["ExpressionAttributeNames"] = {"#k": "pk"}
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression=expression,
                 **params) == (
        "ValidationException", "One or more parameter values were invalid: Cannot update attribute "
                               "pk. This attribute is part of the key")


def test_sort_key_cannot_be_updated(ddb, sorted_table):
    assert fails(ddb.update_item, TableName=sorted_table, Key={"pk": {"S": "a"}, "sk": {"S": "b"}},
                 UpdateExpression="SET sk = :v", ExpressionAttributeValues={":v": {"S": "c"}}) == (
        "ValidationException", "One or more parameter values were invalid: Cannot update attribute "
                               "sk. This attribute is part of the key")


def test_nested_path_under_a_key_name_is_an_update_of_the_key(ddb, table):
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET pk.x = :v",
                 ExpressionAttributeValues={":v": {"S": "c"}}) == (
        "ValidationException", "One or more parameter values were invalid: Cannot update attribute "
                               "pk. This attribute is part of the key")


def test_key_must_match_the_schema(ddb, sorted_table):
    assert fails(ddb.update_item, TableName=sorted_table, Key={"pk": {"S": "a"}},
                 UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "1"}}) == (
        "ValidationException", "The provided key element does not match the schema")


def test_missing_table_after_expression_checks(ddb):
    assert fails(ddb.update_item, TableName="no-such-table", Key=KEY,
                 UpdateExpression="SET v = :v", ExpressionAttributeValues={":v": {"N": "1"}}) == NOT_FOUND
    assert fails(ddb.update_item, TableName="no-such-table", Key=KEY,
                 UpdateExpression="SET v = :v") == invalid_update(
        "An expression attribute value used in expression is not defined; attribute value: :v")


def test_update_past_400_kb_is_rejected(ddb, table):
    big = "x" * (200 * 1024)
    update(ddb, table, "SET a = :v", {":v": {"S": big}})
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET b = :v",
                 ExpressionAttributeValues={":v": {"S": big}}) == (
        "ValidationException", "Item size to update has exceeded the maximum allowed size")
    assert "b" not in item(ddb, table)


def test_arithmetic_is_exact_to_38_digits(ddb, table):
    update(ddb, table, "SET n = :a", {":a": {"N": "0.1"}})
    update(ddb, table, "SET n = n + :b", {":b": {"N": "0.2"}})
    assert item(ddb, table)["n"] == {"N": "0.3"}
    big = "1234567890123456789012345678901234567"  # 37 digits
    update(ddb, table, "SET n = :a", {":a": {"N": big}})
    update(ddb, table, "ADD n :b", {":b": {"N": "0.1"}})
    assert item(ddb, table)["n"] == {"N": big + ".1"}


def test_arithmetic_past_38_digits_is_rejected(ddb, table):
    update(ddb, table, "SET n = :a", {":a": {"N": "1" * 38}})
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET n = n + :b",
                 ExpressionAttributeValues={":b": {"N": "0.1"}}) == (
        "ValidationException",
        "Attempting to store more than 38 significant digits in a Number")  # unverified


def test_placeholders_are_shared_by_the_update_and_the_condition(ddb, stored):
    # A name used only by the condition and a value used only by the update are both used.
    update(ddb, stored, "SET s = :v", {":v": {"S": "ok"}, ":ten": {"N": "10"}}, {"#n": "n"},
           ConditionExpression="#n = :ten")
    assert item(ddb, stored)["s"] == {"S": "ok"}


@pytest.mark.parametrize("expression", ["SET l[10].x = :v", "REMOVE absent.x", "REMOVE l[1].x.y"])
def test_paths_through_missing_containers_are_invalid(ddb, stored, expression):
    params = {"ExpressionAttributeValues": {":v": {"N": "1"}}} if ":v" in expression else {}
    assert fails(ddb.update_item, TableName=stored, Key=KEY, UpdateExpression=expression,
                 **params) == (
        "ValidationException",
        "The document path provided in the update expression is invalid for update")


def test_arithmetic_overflow_is_rejected(ddb, table):
    update(ddb, table, "SET n = :a", {":a": {"N": "9E125"}})
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET n = n + n") == (
        "ValidationException",
        "Number overflow. Attempting to store a number with magnitude larger than supported range")


@pytest.mark.parametrize("big, other", [("9E125", "-9E125"), ("-9E125", "9E125"),
                                        ("1E50", "1"), ("-1E50", "-1")])
def test_arithmetic_of_values_overflowing_is_rejected(ddb, table, big, other):
    # recorded from DynamoDB: a result past the range of magnitudes (1E126) is refused, and
    # so is one whose integer part alone needs more than 38 digits (1E50 - 1: 50 nines)
    assert fails(ddb.update_item, TableName=table, Key=KEY, UpdateExpression="SET a = :big - :o",
                 ExpressionAttributeValues={":big": {"N": big}, ":o": {"N": other}}) == (
        "ValidationException",
        "Number overflow. Attempting to store a number with magnitude larger than supported range")
    assert item(ddb, table) is None


def test_updated_old_and_new_of_nested_and_removed_paths(ddb, stored):
    reply = update(ddb, stored, "SET m.core.v = :v REMOVE l[0]", {":v": {"N": "2"}},
                   ReturnValues="UPDATED_OLD")
    assert reply["Attributes"] == {"m": {"M": {"core": {"M": {"v": {"N": "1"}}}}},
                                   "l": {"L": [{"S": "x"}]}}
    reply = update(ddb, stored, "SET m.core.v = :v REMOVE s", {":v": {"N": "3"}},
                   ReturnValues="UPDATED_NEW")
    assert reply["Attributes"] == {"m": {"M": {"core": {"M": {"v": {"N": "3"}}}}}}
