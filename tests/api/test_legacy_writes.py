"""The legacy write parameters through boto3: Expected (Value/Exists and
ComparisonOperator forms) with ConditionalOperator on PutItem, DeleteItem and
UpdateItem; AttributeUpdates; and the rule against mixing them with expressions.
Written from the API reference ("Legacy conditional parameters"); whole messages."""
from __future__ import annotations

import pytest

from items_common import FAILED, fails

INVALID = "One or more parameter values were invalid: "
EXPECTED_INVALID = "1 validation error detected: " + INVALID
MIXED = "Can not use both expression and non-expression parameters in the same request: "


def invalid(message: str) -> tuple[str, str]:
    return "ValidationException", message


@pytest.fixture
def item(ddb, table) -> tuple[str, dict]:
    key = {"pk": {"S": "k"}}
    ddb.put_item(TableName=table, Item={**key, "n": {"N": "5"}, "s": {"S": "keep"},
                                        "tags": {"SS": ["a", "b"]}})
    return table, key


def stored(ddb, table, key) -> dict | None:
    return ddb.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")


@pytest.mark.parametrize("expected", [
    {"n": {"Value": {"N": "5"}}},
    {"n": {"Value": {"N": "5.0"}, "Exists": True}},
    {"missing": {"Exists": False}},
    {"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "5"}]}},
    {"s": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "ke"}]}},
    {"tags": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "b"}]}},
    {"n": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "4"}, {"N": "5"}]}},
    {"missing": {"ComparisonOperator": "NE", "Value": {"S": "x"}}},
])
def test_expected_holds(ddb, item, expected):
    table, key = item
    ddb.put_item(TableName=table, Item={**key, "v": {"N": "2"}}, Expected=expected)
    assert stored(ddb, table, key) == {**key, "v": {"N": "2"}}


@pytest.mark.parametrize("expected", [
    {"n": {"Value": {"N": "6"}}},
    {"n": {"Value": {"S": "5"}}},  # another type never matches
    {"missing": {"Value": {"N": "5"}}},
    {"n": {"Exists": False}},
    {"n": {"ComparisonOperator": "NULL"}},
    {"tags": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "a"}]}},
    {"n": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "5"}]}},
    # recorded from DynamoDB: NOT_CONTAINS on a missing attribute is false
    {"missing": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "a"}]}},
])
def test_expected_fails(ddb, item, expected):
    table, key = item
    assert fails(ddb.delete_item, TableName=table, Key=key, Expected=expected) == FAILED
    assert stored(ddb, table, key) is not None


@pytest.mark.parametrize("operator, succeeds", [("AND", False), ("OR", True)])
def test_conditional_operator(ddb, item, operator, succeeds):
    table, key = item
    params = dict(TableName=table, Key=key, ConditionalOperator=operator,
                  Expected={"n": {"Value": {"N": "5"}}, "s": {"Value": {"S": "other"}}})
    if succeeds:
        ddb.delete_item(**params)
        assert stored(ddb, table, key) is None
    else:
        assert fails(ddb.delete_item, **params) == FAILED


def test_expected_on_a_missing_item(ddb, table):
    key = {"pk": {"S": "new"}}
    assert fails(ddb.update_item, TableName=table, Key=key,
                 Expected={"pk": {"Value": {"S": "new"}}}) == FAILED
    assert stored(ddb, table, key) is None
    ddb.put_item(TableName=table, Item=key, Expected={"pk": {"Exists": False}})
    assert stored(ddb, table, key) == key


@pytest.mark.parametrize("expected, message", [
    ({"a": {"Exists": True}},
     EXPECTED_INVALID + "Value must be provided when Exists is true for Attribute: a"),
    ({"a": {}}, EXPECTED_INVALID + "Value must be provided when Exists is null for Attribute: a"),
    ({"a": {"Exists": False, "Value": {"S": "x"}}},
     EXPECTED_INVALID + "Value cannot be used when Exists is false for Attribute: a"),
    ({"a": {"Exists": True, "ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}},
     EXPECTED_INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ"}},
     INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
    ({"a": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"N": "1"}]}},
     INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"),
])
def test_expected_rejected_before_the_table_is_read(ddb, expected, message):
    # the request is checked before the table is looked up: none exists here
    assert fails(ddb.put_item, TableName="no-such-table", Item={"pk": {"S": "k"}},
                 Expected=expected) == invalid(message)


def test_conditional_operator_rules(ddb, table):
    put = dict(TableName=table, Item={"pk": {"S": "k"}}, ConditionalOperator="AND")
    assert fails(ddb.put_item, **put) == invalid(
        "ConditionalOperator cannot be used without Filter or Expected")
    assert fails(ddb.put_item, **put, Expected={"a": {"Exists": False}}) == invalid(
        "ConditionalOperator can only be used when Filter or Expected has two or more elements")


def test_attribute_updates(ddb, item):
    table, key = item
    reply = ddb.update_item(TableName=table, Key=key, ReturnValues="UPDATED_NEW", AttributeUpdates={
        "n": {"Action": "ADD", "Value": {"N": "-7"}},
        "count": {"Action": "ADD", "Value": {"N": "3"}},
        "tags": {"Action": "DELETE", "Value": {"SS": ["a", "z"]}},
        "s": {"Action": "DELETE"},
        "new": {"Value": {"L": [{"S": "x"}]}},
    })
    assert reply["Attributes"] == {"n": {"N": "-2"}, "count": {"N": "3"}, "tags": {"SS": ["b"]},
                                   "new": {"L": [{"S": "x"}]}}
    assert stored(ddb, table, key) == {**key, **reply["Attributes"]}


@pytest.mark.parametrize("name, update", [
    ("s", {"Action": "ADD", "Value": {"N": "1"}}),
    ("tags", {"Action": "ADD", "Value": {"NS": ["1"]}}),
    ("tags", {"Action": "DELETE", "Value": {"NS": ["1"]}})])
def test_attribute_updates_of_the_wrong_type(ddb, item, name, update):
    """AttributeUpdates words it its own way (as DynamoDBMapper users quote it), not as
    an UpdateExpression would."""
    table, key = item
    assert fails(ddb.update_item, TableName=table, Key=key, AttributeUpdates={name: update}) == (
        invalid("Type mismatch for attribute to update"))


def test_attribute_updates_create_the_item(ddb, table):
    key = {"pk": {"S": "fresh"}}
    ddb.update_item(TableName=table, Key=key,
                    AttributeUpdates={"ns": {"Action": "ADD", "Value": {"NS": ["1"]}}})
    assert stored(ddb, table, key) == {**key, "ns": {"NS": ["1"]}}


def test_attribute_updates_add_appends_to_a_list(ddb, table):
    # recorded from DynamoDB: ADD of a list appends to an existing list, or sets a missing one
    key = {"pk": {"S": "k"}}
    ddb.put_item(TableName=table, Item={**key, "l": {"L": [{"S": "a"}]}})
    reply = ddb.update_item(TableName=table, Key=key, ReturnValues="ALL_NEW", AttributeUpdates={
        "l": {"Action": "ADD", "Value": {"L": [{"S": "a"}, {"N": "1"}]}},
        "fresh": {"Action": "ADD", "Value": {"L": [{"S": "x"}]}}})
    assert reply["Attributes"] == {**key, "l": {"L": [{"S": "a"}, {"S": "a"}, {"N": "1"}]},
                                   "fresh": {"L": [{"S": "x"}]}}


def test_expected_in_with_values_of_mixed_types(ddb, item):
    table, key = item
    expected = {"n": {"ComparisonOperator": "IN", "AttributeValueList": [{"N": "5"}, {"S": "5"}]}}
    assert fails(ddb.delete_item, TableName=table, Key=key, Expected=expected) == invalid(
        INVALID + "AttributeValues inside AttributeValueList must be of same type")  # unverified


# AttributeValueUpdate (API reference): on a missing item, "DELETE - Nothing happens;
# there is no attribute to delete" (though an empty AttributeUpdates creates the item)
@pytest.mark.parametrize("updates", [
    {"a": {"Action": "DELETE"}},
    {"a": {"Action": "DELETE", "Value": {"SS": ["x"]}}, "b": {"Action": "DELETE"}},
])
def test_attribute_deletes_alone_create_no_item(ddb, table, updates):
    key = {"pk": {"S": "absent"}}
    reply = ddb.update_item(TableName=table, Key=key, AttributeUpdates=updates,
                            ReturnValues="ALL_NEW")
    assert "Attributes" not in reply
    assert stored(ddb, table, key) is None


def test_attribute_updates_under_expected(ddb, item):
    table, key = item
    updates = {"n": {"Action": "ADD", "Value": {"N": "1"}}}
    ddb.update_item(TableName=table, Key=key, AttributeUpdates=updates,
                    Expected={"n": {"Value": {"N": "5"}}})
    assert fails(ddb.update_item, TableName=table, Key=key, AttributeUpdates=updates,
                 Expected={"n": {"Value": {"N": "5"}}}) == FAILED
    assert stored(ddb, table, key)["n"] == {"N": "6"}


@pytest.mark.parametrize("updates, message", [
    ({"a": {"Action": "PUT"}},
     INVALID + "Only DELETE action is allowed when no attribute value is specified"),
    ({"a": {"Action": "ADD", "Value": {"S": "x"}}},
     INVALID + "ADD action is not supported for the type STRING"),
    ({"a": {"Action": "DELETE", "Value": {"S": "x"}}},
     INVALID + "DELETE action with value is not supported for the type STRING"),
    ({"pk": {"Value": {"S": "other"}}},
     INVALID + "Cannot update attribute pk. This attribute is part of the key"),
])
def test_attribute_updates_rejected(ddb, table, updates, message):
    assert fails(ddb.update_item, TableName=table, Key={"pk": {"S": "k"}},
                 AttributeUpdates=updates) == invalid(message)


@pytest.mark.parametrize("call, params, legacy, modern", [
    ("put_item", {"Item": {"pk": {"S": "k"}}, "Expected": {"a": {"Exists": False}},
                  "ConditionExpression": "attribute_not_exists(a)"},
     "Expected", "ConditionExpression"),
    ("delete_item", {"Key": {"pk": {"S": "k"}}, "ConditionalOperator": "OR",
                     "ConditionExpression": "attribute_not_exists(a)"},
     "ConditionalOperator", "ConditionExpression"),
    ("update_item", {"Key": {"pk": {"S": "k"}}, "AttributeUpdates": {"a": {"Action": "DELETE"}},
                     "ConditionExpression": "attribute_exists(a)"},
     "AttributeUpdates", "ConditionExpression"),
    ("update_item", {"Key": {"pk": {"S": "k"}}, "Expected": {"a": {"Exists": False}},
                     "UpdateExpression": "REMOVE a"},
     "Expected", "UpdateExpression"),
])
def test_mixing_rejected(ddb, table, call, params, legacy, modern):
    assert fails(getattr(ddb, call), TableName=table, **params) == invalid(
        f"{MIXED}Non-expression parameters: {{{legacy}}} Expression parameters: {{{modern}}}")


def test_expression_values_need_expressions(ddb, table):
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"S": "k"}},
                 Expected={"a": {"Exists": False}},
                 ExpressionAttributeValues={":a": {"S": "x"}}) == invalid(
        "ExpressionAttributeValues can only be specified when using expressions: "
        "ConditionExpression is null")
