"""The legacy read parameters through boto3: AttributesToGet on GetItem, Query and
Scan; KeyConditions and QueryFilter on Query; ScanFilter with ConditionalOperator on
Scan; and the rule against mixing them with expressions. Whole messages."""
from __future__ import annotations

import pytest

from items_common import fails

INVALID = "One or more parameter values were invalid: "
MIXED = "Can not use both expression and non-expression parameters in the same request: "


def invalid(message: str) -> tuple[str, str]:
    return "ValidationException", message


def eq(value: dict) -> dict:
    return {"ComparisonOperator": "EQ", "AttributeValueList": [value]}


@pytest.fixture
def rows(ddb, sorted_table) -> str:
    """Partition p with sk a..e (n = 1..5, even n tagged), and partition q with one item."""
    for n, sk in enumerate("abcde", 1):
        item = {"pk": {"S": "p"}, "sk": {"S": sk}, "n": {"N": str(n)}, "x": {"S": f"x{n}"}}
        if n % 2 == 0:
            item["even"] = {"BOOL": True}
        ddb.put_item(TableName=sorted_table, Item=item)
    ddb.put_item(TableName=sorted_table, Item={"pk": {"S": "q"}, "sk": {"S": "a"},
                                               "n": {"N": "9"}})
    return sorted_table


def sort_keys(reply: dict) -> list[str]:
    return [item["sk"]["S"] for item in reply["Items"]]


def test_get_item_attributes_to_get(ddb, rows):
    key = {"pk": {"S": "p"}, "sk": {"S": "b"}}
    reply = ddb.get_item(TableName=rows, Key=key, AttributesToGet=["n", "even", "absent"])
    assert reply["Item"] == {"n": {"N": "2"}, "even": {"BOOL": True}}
    assert fails(ddb.get_item, TableName=rows, Key=key, AttributesToGet=["n", "x", "n"]) == (
        invalid(f"{INVALID}Duplicate value in attribute name: n"))


@pytest.mark.parametrize("conditions, expected", [
    ({}, ["a", "b", "c", "d", "e"]),
    ({"sk": {"ComparisonOperator": "GT", "AttributeValueList": [{"S": "c"}]}}, ["d", "e"]),
    ({"sk": {"ComparisonOperator": "LE", "AttributeValueList": [{"S": "b"}]}}, ["a", "b"]),
    ({"sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "b"}, {"S": "d"}]}},
     ["b", "c", "d"]),
    ({"sk": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "c"}]}}, ["c"]),
    ({"sk": eq({"S": "e"})}, ["e"]),
])
def test_query_key_conditions(ddb, rows, conditions, expected):
    reply = ddb.query(TableName=rows, KeyConditions={"pk": eq({"S": "p"}), **conditions})
    assert sort_keys(reply) == expected


def test_query_filter_projection_and_paging(ddb, rows):
    params = dict(TableName=rows, KeyConditions={"pk": eq({"S": "p"})},
                  QueryFilter={"n": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "2"}]},
                               "even": {"ComparisonOperator": "NOT_NULL"}},
                  AttributesToGet=["sk", "n"], ScanIndexForward=False)
    reply = ddb.query(**params)
    assert reply["Items"] == [{"sk": {"S": "d"}, "n": {"N": "4"}},
                              {"sk": {"S": "b"}, "n": {"N": "2"}}]
    assert (reply["Count"], reply["ScannedCount"]) == (2, 5)
    reply = ddb.query(**params, ConditionalOperator="OR", Limit=2)
    assert sort_keys(reply) == ["e", "d"]
    assert reply["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"S": "d"}}


def test_query_key_conditions_beside_expressions(ddb, rows):
    reply = ddb.query(TableName=rows, KeyConditions={"pk": eq({"S": "p"})},
                      FilterExpression="n > :n", ProjectionExpression="sk",
                      ExpressionAttributeValues={":n": {"N": "3"}})
    assert reply["Items"] == [{"sk": {"S": "d"}}, {"sk": {"S": "e"}}]


@pytest.mark.parametrize("conditions, message", [
    ({"pk": {"ComparisonOperator": "NE", "AttributeValueList": [{"S": "p"}]}},
     "Attempted conditional constraint is not an indexable operation"),
    ({"pk": eq({"S": "p"}), "sk": {"ComparisonOperator": "CONTAINS",
                                    "AttributeValueList": [{"S": "a"}]}},
     "Attempted conditional constraint is not an indexable operation"),
    ({"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}, {"S": "q"}]}},
     INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
    ({"sk": eq({"S": "a"})}, "Query condition missed key schema element: pk"),
])
def test_query_key_conditions_rejected(ddb, rows, conditions, message):
    assert fails(ddb.query, TableName=rows, KeyConditions=conditions) == invalid(message)


def test_query_filter_on_a_key(ddb, rows):
    assert fails(ddb.query, TableName=rows, KeyConditions={"pk": eq({"S": "p"})},
                 QueryFilter={"sk": eq({"S": "a"})}) == invalid(
        "QueryFilter can only contain non-key attributes: Primary key attribute: sk")


def test_scan_filter(ddb, rows):
    reply = ddb.scan(TableName=rows, ConditionalOperator="OR", AttributesToGet=["x"],
                     ScanFilter={"n": {"ComparisonOperator": "IN",
                                       "AttributeValueList": [{"N": "1"}, {"N": "9"}]},
                                 "x": {"ComparisonOperator": "CONTAINS",
                                       "AttributeValueList": [{"S": "5"}]}})
    assert sorted(reply["Items"], key=str) == [{"x": {"S": "x1"}}, {"x": {"S": "x5"}}, {}]
    assert reply["ScannedCount"] == 6


@pytest.mark.parametrize("call, param", [("scan", "ScanFilter"), ("query", "QueryFilter")])
def test_filter_in_with_values_of_mixed_types(ddb, rows, call, param):
    params = {param: {"n": {"ComparisonOperator": "IN",
                            "AttributeValueList": [{"N": "1"}, {"S": "1"}]}}}
    if call == "query":
        params["KeyConditions"] = {"pk": eq({"S": "p"})}
    assert fails(getattr(ddb, call), TableName=rows, **params) == invalid(
        INVALID + "AttributeValues inside AttributeValueList must be of same type")  # unverified


def test_select_with_attributes_to_get(ddb, rows):
    reply = ddb.scan(TableName=rows, Select="SPECIFIC_ATTRIBUTES", AttributesToGet=["n"],
                     ScanFilter={"n": eq({"N": "9"})})
    assert reply["Items"] == [{"n": {"N": "9"}}]
    assert fails(ddb.scan, TableName=rows, Select="COUNT", AttributesToGet=["n"]) == invalid(
        "Cannot specify the AttributesToGet when choosing to get COUNT")


@pytest.mark.parametrize("call, params, legacy, modern", [
    ("get_item", {"Key": {"pk": {"S": "p"}, "sk": {"S": "a"}}, "AttributesToGet": ["n"],
                  "ProjectionExpression": "n"}, "AttributesToGet", "ProjectionExpression"),
    ("query", {"KeyConditionExpression": "pk = :p", "AttributesToGet": ["n"],
               "ExpressionAttributeValues": {":p": {"S": "p"}}},
     "AttributesToGet", "KeyConditionExpression"),
    ("query", {"KeyConditionExpression": "pk = :p", "QueryFilter": {"n": eq({"N": "1"})},
               "ExpressionAttributeValues": {":p": {"S": "p"}}},
     "QueryFilter", "KeyConditionExpression"),
    ("scan", {"ScanFilter": {"n": eq({"N": "1"})}, "FilterExpression": "attribute_exists(n)"},
     "ScanFilter", "FilterExpression"),
])
def test_mixing_rejected(ddb, rows, call, params, legacy, modern):
    assert fails(getattr(ddb, call), TableName=rows, **params) == invalid(
        f"{MIXED}Non-expression parameters: {{{legacy}}} Expression parameters: {{{modern}}}")


def test_key_conditions_required(ddb, rows):
    assert fails(ddb.query, TableName=rows, QueryFilter={"n": eq({"N": "1"})}) == invalid(
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
        "request.")


def test_batch_get_attributes_to_get(ddb, rows):
    keys = [{"pk": {"S": "p"}, "sk": {"S": "a"}}, {"pk": {"S": "q"}, "sk": {"S": "a"}}]
    reply = ddb.batch_get_item(RequestItems={rows: {"Keys": keys, "AttributesToGet": ["n"]}})
    assert sorted(reply["Responses"][rows], key=str) == [{"n": {"N": "1"}}, {"n": {"N": "9"}}]
    assert fails(ddb.batch_get_item, RequestItems={rows: {
        "Keys": keys, "AttributesToGet": ["n"], "ProjectionExpression": "n"}}) == invalid(
        f"{MIXED}Non-expression parameters: {{AttributesToGet}} "
        "Expression parameters: {ProjectionExpression}")
    assert fails(ddb.batch_get_item, RequestItems={rows: {
        "Keys": keys, "AttributesToGet": ["n", "n"]}}) == invalid(
        f"{INVALID}Duplicate value in attribute name: n")
