"""GetItem through boto3, from the API reference: whole and projected items, key
rules, missing items and tables, and the order of DynamoDB's checks."""
from __future__ import annotations

import pytest

from items_common import NOT_FOUND, fails

KEY_MISMATCH = ("ValidationException", "The provided key element does not match the schema")

ITEM = {
    "pk": {"S": "a"},
    "name": {"S": "n"},
    "m": {"M": {"x": {"N": "1"}, "y": {"M": {"z": {"S": "deep"}}}, "w": {"S": "w"}}},
    "l": {"L": [{"S": "l0"}, {"S": "l1"}, {"M": {"k": {"S": "v"}, "j": {"S": "u"}}}, {"S": "l3"}]},
    "ss": {"SS": ["p", "q"]},
}


@pytest.fixture
def stored(ddb, table) -> str:
    ddb.put_item(TableName=table, Item=ITEM)
    return table


def test_missing_item_gives_an_empty_reply(ddb, table):
    reply = ddb.get_item(TableName=table, Key={"pk": {"S": "none"}})
    assert "Item" not in reply


@pytest.mark.parametrize("consistent", [True, False])
def test_whole_item(ddb, stored, consistent):
    assert ddb.get_item(TableName=stored, Key={"pk": {"S": "a"}},
                        ConsistentRead=consistent)["Item"] == ITEM


@pytest.mark.parametrize("projection, names, expected", [
    ("ss, pk", None, {"pk": ITEM["pk"], "ss": ITEM["ss"]}),
    ("m.x", None, {"m": {"M": {"x": {"N": "1"}}}}),
    ("m.y.z, m.x", None, {"m": {"M": {"x": {"N": "1"}, "y": {"M": {"z": {"S": "deep"}}}}}}),
    ("l[1]", None, {"l": {"L": [{"S": "l1"}]}}),
    # Selected list elements keep list order and close up.
    ("l[3], l[0]", None, {"l": {"L": [{"S": "l0"}, {"S": "l3"}]}}),
    ("l[2].k", None, {"l": {"L": [{"M": {"k": {"S": "v"}}}]}}),
    ("#n", {"#n": "name"}, {"name": {"S": "n"}}),
    ("absent, m.absent, l[9]", None, {}),
])
def test_projection(ddb, stored, projection, names, expected):
    params = {"ExpressionAttributeNames": names} if names else {}
    reply = ddb.get_item(TableName=stored, Key={"pk": {"S": "a"}},
                         ProjectionExpression=projection, **params)
    assert reply.get("Item", {}) == expected


def test_projection_of_nothing_present_on_a_missing_item(ddb, table):
    reply = ddb.get_item(TableName=table, Key={"pk": {"S": "x"}}, ProjectionExpression="a")
    assert "Item" not in reply


@pytest.mark.parametrize("projection, names, message", [
    ("name", None,
     "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"),
    ("a, a.b", None,
     "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
     "rewrite one of these paths; path one: [a], path two: [a, b]"),
    ("#x", None,
     "Invalid ProjectionExpression: An expression attribute name used in the document path is "
     "not defined; attribute name: #x"),
    ("a", {"#x": "b"}, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"),
    ("", None, "Invalid ProjectionExpression: The expression can not be empty;"),
    ("a[99999999999999]", None, "Invalid ProjectionExpression: List index is not within the "
                                "allowable range; index: [99999999999999]"),
])
def test_projection_errors(ddb, table, projection, names, message):
    params = {"ExpressionAttributeNames": names} if names else {}
    assert fails(ddb.get_item, TableName=table, Key={"pk": {"S": "a"}},
                 ProjectionExpression=projection, **params) == ("ValidationException", message)


def test_names_without_an_expression(ddb, table):
    assert fails(ddb.get_item, TableName=table, Key={"pk": {"S": "a"}},
                 ExpressionAttributeNames={"#a": "a"}) == (
        "ValidationException",
        "ExpressionAttributeNames can only be specified when using expressions")


def test_values_are_not_accepted_by_get_item(server, table):
    # GetItem has no ExpressionAttributeValues member: like any unknown member, it is ignored.
    reply = server.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "a"}},
                                    "ExpressionAttributeValues": {":v": {"S": "x"}}})
    assert (reply.status, reply.json) == (200, {})


@pytest.mark.parametrize("key", [
    {"pk": {"N": "1"}},  # wrong type
    {"other": {"S": "a"}},  # wrong name
    {"pk": {"S": "a"}, "extra": {"S": "b"}},  # more than the schema
    {},
])
def test_key_must_match_the_schema(ddb, table, key):
    assert fails(ddb.get_item, TableName=table, Key=key) == KEY_MISMATCH


def test_sort_key_is_required(ddb, sorted_table):
    assert fails(ddb.get_item, TableName=sorted_table, Key={"pk": {"S": "a"}}) == KEY_MISMATCH


def test_whole_key_of_a_sorted_table(ddb, sorted_table):
    item = {"pk": {"S": "a"}, "sk": {"S": "b"}, "v": {"BOOL": True}}
    ddb.put_item(TableName=sorted_table, Item=item)
    key = {"pk": {"S": "a"}, "sk": {"S": "b"}}
    assert ddb.get_item(TableName=sorted_table, Key=key)["Item"] == item
    assert "Item" not in ddb.get_item(TableName=sorted_table,
                                      Key={"pk": {"S": "a"}, "sk": {"S": "c"}})


def test_empty_key_value(ddb, table):
    assert fails(ddb.get_item, TableName=table, Key={"pk": {"S": ""}}) == (
        "ValidationException", "One or more parameter values are not valid. The AttributeValue for "
                               "a key attribute cannot contain an empty string value. Key: pk")


def test_missing_table(ddb):
    assert fails(ddb.get_item, TableName="no-such-table", Key={"pk": {"S": "a"}}) == NOT_FOUND


def test_key_schema_errors_need_the_table_first(ddb):
    assert fails(ddb.get_item, TableName="no-such-table", Key={"x": {"N": "1"}}) == NOT_FOUND


def test_expression_errors_come_before_the_missing_table(ddb):
    assert fails(ddb.get_item, TableName="no-such-table", Key={"pk": {"S": "a"}},
                 ProjectionExpression="name") == (
        "ValidationException",
        "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name")


def test_missing_key_is_a_constraint_error(server, table):
    reply = server.post("GetItem", {"TableName": table})
    assert reply.status == 400
    assert reply.json["message"] == ("1 validation error detected: Value null at 'key' failed to "
                                     "satisfy constraint: Member must not be null")
