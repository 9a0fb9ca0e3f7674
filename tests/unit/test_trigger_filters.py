"""Lambda's event-filtering grammar (okura/triggers/filters.py), operator by operator,
over records shaped as Lambda's DynamoDB event spells them."""
from __future__ import annotations

import json

import pytest

from okura.triggers.filters import InvalidPattern, parse, passes

RECORD = {"eventName": "MODIFY", "awsRegion": "us-east-1", "dynamodb": {
    "Keys": {"pk": {"S": "order-17"}},
    "NewImage": {"pk": {"S": "order-17"}, "status": {"S": "Shipped"}, "total": {"N": "42.5"},
                 "tags": {"L": [{"S": "gift"}, {"S": "eu"}]}, "paid": {"BOOL": True},
                 "note": {"NULL": True}}}}


def matches(pattern: dict, record: dict = RECORD) -> bool:
    return passes(parse({"Filters": [{"Pattern": json.dumps(pattern)}]}), record)


def image(**fields) -> dict:
    return {"dynamodb": {"NewImage": fields}}


@pytest.mark.parametrize("pattern, expected", [
    (image(status={"S": ["Shipped"]}), True),
    (image(status={"S": ["shipped"]}), False),
    (image(status={"S": [{"equals-ignore-case": "shipped"}]}), True),
    (image(status={"S": [{"prefix": "Ship"}]}), True),
    (image(status={"S": [{"prefix": {"equals-ignore-case": "SHIP"}}]}), True),
    (image(status={"S": [{"suffix": "ped"}]}), True),
    (image(status={"S": [{"suffix": "Ped"}]}), False),
    (image(status={"S": [{"wildcard": "S*d"}]}), True),
    (image(status={"S": [{"anything-but": ["Shipped", "Lost"]}]}), False),
    (image(status={"S": [{"anything-but": "Lost"}]}), True),
    (image(status={"S": [{"anything-but": {"prefix": "Sh"}}]}), False),
    (image(status={"S": [{"anything-but": {"equals-ignore-case": ["lost", "x"]}}]}), True),
    (image(total={"N": [{"numeric": [">", 40, "<=", 42.5]}]}), True),
    (image(total={"N": [{"numeric": ["<", 42.5]}]}), False),
    (image(total={"N": [{"numeric": ["=", 42.5]}]}), True),
    (image(status={"S": [{"numeric": [">", 0]}]}), False),
    (image(paid={"BOOL": [True]}), True),
    (image(paid={"BOOL": [False]}), False),
    (image(note={"NULL": [True]}), True),
    (image(tags={"L": {"S": ["eu"]}}), True),  # an array matches through any element
    (image(missing=[{"exists": False}]), True),
    (image(missing=[{"exists": True}]), False),
    (image(status=[{"exists": True}]), False),  # exists looks at leaves, not objects
    (image(status={"S": [{"exists": True}]}), True),
    ({"eventName": ["INSERT", "MODIFY"]}, True),
    ({"eventName": ["INSERT"], "dynamodb": {"Keys": {"pk": {"S": [{"prefix": "order"}]}}}},
     False),
    ({"$or": [{"eventName": ["INSERT"]}, image(status={"S": ["Shipped"]})]}, True),
    ({"$or": [{"eventName": ["INSERT"]}, image(status={"S": ["Lost"]})]}, False),
])
def test_operators(pattern, expected):
    assert matches(pattern) is expected


def test_several_filters_pass_a_record_any_one_matches():
    filters = parse({"Filters": [{"Pattern": json.dumps({"eventName": ["INSERT"]})},
                                 {"Pattern": json.dumps(image(status={"S": ["Shipped"]}))}]})
    assert passes(filters, RECORD)
    assert not passes(filters, {"eventName": "REMOVE", "dynamodb": {}})
    assert passes([], RECORD)  # no filters: every record


@pytest.mark.parametrize("pattern", [
    '{"eventName": "INSERT"}',                       # a leaf must be an array
    "{}", "[]", "not json",
    '{"eventName": [{"prefix": 1}]}',
    '{"eventName": [{"numeric": ["<", "a"]}]}',
    '{"eventName": [{"numeric": ["<", 1, ">", 0]}]}',  # a range is lower bound first
    '{"eventName": [{"exists": "yes"}]}',
    '{"eventName": [{"unknown": 1}]}',
    '{"eventName": [{"prefix": "a", "suffix": "b"}]}',
    '{"$or": [{"eventName": ["INSERT"]}]}',         # $or needs two patterns
])
def test_invalid_patterns(pattern):
    with pytest.raises(InvalidPattern):
        parse({"Filters": [{"Pattern": pattern}]})


def test_at_most_five_filters():
    one = {"Pattern": '{"eventName": ["INSERT"]}'}
    assert len(parse({"Filters": [one] * 5})) == 5
    with pytest.raises(InvalidPattern):
        parse({"Filters": [one] * 6})
