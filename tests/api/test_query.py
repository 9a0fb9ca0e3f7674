"""Query through boto3, from the API reference and the developer guide ("Querying
tables", "Paginating table query results"): key conditions on the sort key, order,
Limit and LastEvaluatedKey, the 1 MB page counted before the filter, Select,
projection, Count/ScannedCount and consumed capacity."""
from __future__ import annotations

import math

import pytest

SORT_VALUES = [-7, -1.5, 0, 1, 2, 3, 10, 11, 25, 100]
WORDS = ["a", "ab", "abc", "abd", "b", "ba", "bb", "c", "ca", "z"]


@pytest.fixture
def numbers(ddb, make_table) -> str:
    name = make_table("N")
    for value in SORT_VALUES:
        ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": str(value)},
                                           "odd": {"BOOL": value % 2 == 1}})
    ddb.put_item(TableName=name, Item={"pk": {"S": "other"}, "sk": {"N": "1"}})
    return name


@pytest.fixture
def words(ddb, sorted_table) -> str:
    for word in WORDS:
        ddb.put_item(TableName=sorted_table, Item={"pk": {"S": "p"}, "sk": {"S": word}})
    return sorted_table


def query(ddb, table, condition, values, **params):
    return ddb.query(TableName=table, KeyConditionExpression=condition,
                     ExpressionAttributeValues=values, **params)


def n(value) -> dict:
    return {"N": str(value)}


def sort_values(reply) -> list:
    return [float(item["sk"]["N"]) for item in reply["Items"]]


@pytest.mark.parametrize("condition, operands, keep", [
    ("sk = :a", [3], lambda v: v == 3),
    ("sk < :a", [2], lambda v: v < 2),
    ("sk <= :a", [2], lambda v: v <= 2),
    ("sk > :a", [2], lambda v: v > 2),
    ("sk >= :a", [2], lambda v: v >= 2),
    ("sk BETWEEN :a AND :b", [-1.5, 11], lambda v: -1.5 <= v <= 11),
    (":a < sk", [10], lambda v: v > 10),
])
def test_sort_key_conditions_on_numbers(ddb, numbers, condition, operands, keep):
    values = {":p": {"S": "p"}} | {f":{k}": n(v) for k, v in zip("ab", operands)}
    reply = query(ddb, numbers, "pk = :p AND " + condition, values)
    expected = [v for v in SORT_VALUES if keep(v)]
    assert sort_values(reply) == expected
    assert reply["Count"] == reply["ScannedCount"] == len(expected)


@pytest.mark.parametrize("condition, operands, expected", [
    ("begins_with(sk, :a)", ["ab"], ["ab", "abc", "abd"]),
    ("begins_with(sk, :a)", ["b"], ["b", "ba", "bb"]),
    ("sk BETWEEN :a AND :b", ["ab", "b"], ["ab", "abc", "abd", "b"]),
    ("sk > :a", ["c"], ["ca", "z"]),
    ("sk < :a", ["ab"], ["a"]),
])
def test_sort_key_conditions_on_strings(ddb, words, condition, operands, expected):
    values = {":p": {"S": "p"}} | {f":{k}": {"S": v} for k, v in zip("ab", operands)}
    reply = query(ddb, words, "pk = :p AND " + condition, values)
    assert [item["sk"]["S"] for item in reply["Items"]] == expected


def test_backwards(ddb, numbers):
    reply = query(ddb, numbers, "pk = :p", {":p": {"S": "p"}}, ScanIndexForward=False)
    assert sort_values(reply) == sorted(SORT_VALUES, reverse=True)


def test_other_partition_and_empty_partition(ddb, numbers):
    assert sort_values(query(ddb, numbers, "pk = :p", {":p": {"S": "other"}})) == [1]
    reply = query(ddb, numbers, "pk = :p", {":p": {"S": "none"}})
    assert reply["Items"] == [] and reply["Count"] == 0 and "LastEvaluatedKey" not in reply


def test_hash_only_table(ddb, table):
    ddb.put_item(TableName=table, Item={"pk": {"S": "k"}, "v": {"S": "x"}})
    reply = query(ddb, table, "pk = :p", {":p": {"S": "k"}})
    assert reply["Items"] == [{"pk": {"S": "k"}, "v": {"S": "x"}}]


@pytest.mark.parametrize("forward", [True, False])
def test_limit_pages_through_every_item(ddb, numbers, forward):
    seen, start, pages = [], None, 0
    while True:
        params = {"ExclusiveStartKey": start} if start else {}
        reply = query(ddb, numbers, "pk = :p", {":p": {"S": "p"}}, Limit=3,
                      ScanIndexForward=forward, **params)
        seen += sort_values(reply)
        pages += 1
        start = reply.get("LastEvaluatedKey")
        if start is None:
            break
        assert start == {"pk": {"S": "p"}, "sk": reply["Items"][-1]["sk"]}
    assert seen == sorted(SORT_VALUES, reverse=not forward)
    assert pages == 4


def test_limit_reached_exactly_still_gives_a_last_key(ddb, numbers):
    reply = query(ddb, numbers, "pk = :p", {":p": {"S": "p"}}, Limit=len(SORT_VALUES))
    assert reply["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": n(100)}
    rest = query(ddb, numbers, "pk = :p", {":p": {"S": "p"}}, Limit=len(SORT_VALUES),
                 ExclusiveStartKey=reply["LastEvaluatedKey"])
    assert rest["Items"] == [] and "LastEvaluatedKey" not in rest


def test_start_key_inside_a_sort_key_range(ddb, numbers):
    values = {":p": {"S": "p"}, ":a": n(0), ":b": n(25)}
    reply = query(ddb, numbers, "pk = :p AND sk BETWEEN :a AND :b", values,
                  ExclusiveStartKey={"pk": {"S": "p"}, "sk": n(2)})
    assert sort_values(reply) == [3, 10, 11, 25]


def test_filter_counts_after_limit(ddb, numbers):
    """Limit counts items read, the filter discards after: Count <= ScannedCount."""
    reply = query(ddb, numbers, "pk = :p", {":p": {"S": "p"}, ":t": {"BOOL": True}},
                  FilterExpression="odd = :t", Limit=5)
    assert sort_values(reply) == [-7, 1]  # Python's -7 % 2 == 1 stored -7 as odd
    assert (reply["Count"], reply["ScannedCount"]) == (2, 5)
    assert reply["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": n(2)}


def test_projection_and_names(ddb, numbers):
    reply = query(ddb, numbers, "#k = :p AND sk = :a", {":p": {"S": "p"}, ":a": n(1)},
                  ProjectionExpression="odd", ExpressionAttributeNames={"#k": "pk"})
    assert reply["Items"] == [{"odd": {"BOOL": True}}]


def test_select_count(ddb, numbers):
    reply = query(ddb, numbers, "pk = :p", {":p": {"S": "p"}, ":t": {"BOOL": True}},
                  Select="COUNT", FilterExpression="odd = :t")
    assert "Items" not in reply
    assert (reply["Count"], reply["ScannedCount"]) == (5, len(SORT_VALUES))


@pytest.mark.parametrize("select", ["ALL_ATTRIBUTES", "SPECIFIC_ATTRIBUTES"])
def test_select_with_what_it_needs(ddb, numbers, select):
    extra = {"ProjectionExpression": "sk"} if select == "SPECIFIC_ATTRIBUTES" else {}
    reply = query(ddb, numbers, "pk = :p AND sk = :a", {":p": {"S": "p"}, ":a": n(3)},
                  Select=select, **extra)
    assert reply["Items"] == [{"sk": n(3)} if extra else
                              {"pk": {"S": "p"}, "sk": n(3), "odd": {"BOOL": True}}]


@pytest.mark.parametrize("consistent, mode", [(False, "TOTAL"), (True, "TOTAL"),
                                              (False, "INDEXES"), (True, "INDEXES")])
def test_consumed_capacity_sums_sizes_then_rounds(ddb, sorted_table, consistent, mode):
    """Read units come from the summed size of the items read (developer guide, "Read
    consumption for Query"), rounded up to 4 KB, halved when eventually consistent."""
    for i in range(3):
        ddb.put_item(TableName=sorted_table,
                     Item={"pk": {"S": "p"}, "sk": {"S": str(i)}, "d": {"S": "x" * 3000}})
    size = 3 * (2 + 1 + 2 + 1 + 1 + 3000)
    units = math.ceil(size / 4096) * (1 if consistent else 0.5)
    reply = query(ddb, sorted_table, "pk = :p", {":p": {"S": "p"}, ":z": {"S": "none"}},
                  FilterExpression="d = :z", ConsistentRead=consistent,
                  ReturnConsumedCapacity=mode)
    expected = {"TableName": sorted_table, "CapacityUnits": units}
    if mode == "INDEXES":
        expected["Table"] = {"CapacityUnits": units}
    assert reply["ConsumedCapacity"] == expected
    assert reply["Count"] == 0


def test_empty_result_costs_the_minimum(ddb, numbers):
    reply = query(ddb, numbers, "pk = :p", {":p": {"S": "none"}}, ReturnConsumedCapacity="TOTAL")
    assert reply["ConsumedCapacity"] == {"TableName": numbers, "CapacityUnits": 0.5}


def test_pages_stop_at_one_megabyte_before_the_filter(ddb, make_table):
    """25 items of about 100 KB: a page holds about 1 MB of them whatever the filter
    keeps, and the pages together hold every item once, in order."""
    name = make_table("N")
    for i in range(25):
        ddb.put_item(TableName=name, Item={"pk": {"S": "big"}, "sk": n(i),
                                           "d": {"S": str(i % 10) * 100_000}})
    values = {":p": {"S": "big"}, ":none": {"S": "none"}}
    filtered = query(ddb, name, "pk = :p", values, FilterExpression="d = :none")
    assert filtered["Count"] == 0 and filtered["ScannedCount"] in (10, 11)
    assert filtered["LastEvaluatedKey"] == {"pk": {"S": "big"},
                                            "sk": n(filtered["ScannedCount"] - 1)}
    seen, start = [], None
    while True:
        params = {"ExclusiveStartKey": start} if start else {}
        reply = query(ddb, name, "pk = :p", {":p": {"S": "big"}},
                      ProjectionExpression="sk", **params)
        assert reply["Count"] <= 11
        seen += sort_values(reply)
        start = reply.get("LastEvaluatedKey")
        if start is None:
            break
    assert seen == list(range(25))
