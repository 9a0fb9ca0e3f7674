"""Scan through boto3, from the API reference and the developer guide ("Scanning
tables", "Parallel scan"): partition-hash order, Limit and LastEvaluatedKey, the
1 MB page, filter and projection, Select COUNT, segments that split the items with
no overlap and no gap, and Scan's validation messages."""
from __future__ import annotations

import pytest

from conftest import new_table
from items_common import NOT_FOUND, fails
from okura.storage import keys

KEYS = [f"k{i:03d}" for i in range(60)]


@pytest.fixture(scope="module")
def filled(ddb) -> str:
    """A table of 60 items that the tests only read."""
    table = new_table(ddb)
    for i, key in enumerate(KEYS):
        ddb.put_item(TableName=table, Item={"pk": {"S": key}, "n": {"N": str(i)}})
    return table


def keys_of(reply) -> list[str]:
    return [item["pk"]["S"] for item in reply["Items"]]


def hash_order(values: list[str]) -> list[str]:
    """Partition-hash order: the order of the stored partition bytes."""
    return sorted(values, key=lambda value: keys.partition("S", value))


def scan_all(ddb, table, **params) -> tuple[list[str], int]:
    """Every key a paged scan returns, and the number of pages."""
    seen, start, pages = [], None, 0
    while True:
        extra = {"ExclusiveStartKey": start} if start else {}
        reply = ddb.scan(TableName=table, **params, **extra)
        seen += keys_of(reply)
        pages += 1
        start = reply.get("LastEvaluatedKey")
        if start is None:
            return seen, pages


def test_items_come_in_partition_hash_order(ddb, filled):
    found = keys_of(ddb.scan(TableName=filled))
    assert found == hash_order(KEYS)
    assert found != KEYS  # not insertion order


def test_limit_pages_in_the_same_order(ddb, filled):
    seen, pages = scan_all(ddb, filled, Limit=7)
    assert seen == hash_order(KEYS)
    assert pages == 9  # 60 items: eight full pages, then 4 items


def test_fractional_limit_and_segment_are_truncated(server, filled):
    """Over raw JSON, as boto3 refuses to send them: read as Java reads them into an
    int (these once reached SQLite as floats: a 500)."""
    reply = server.post("Scan", {"TableName": filled, "Limit": 1.5, "Segment": 0.5,
                                 "TotalSegments": 2.5})
    assert reply.status == 200 and reply.json["Count"] == 1
    assert keys_of(reply.json)[0] in KEYS


def test_last_key_is_the_last_item_read(ddb, filled):
    reply = ddb.scan(TableName=filled, Limit=5, FilterExpression="n < :z",
                     ExpressionAttributeValues={":z": {"N": "0"}})
    assert (reply["Count"], reply["ScannedCount"]) == (0, 5)
    assert reply["LastEvaluatedKey"] == {"pk": {"S": hash_order(KEYS)[4]}}


def test_filter_projection_and_count(ddb, filled):
    values = {":lo": {"N": "10"}}
    reply = ddb.scan(TableName=filled, FilterExpression="n < :lo", ProjectionExpression="n",
                     ExpressionAttributeValues=values)
    assert sorted(int(item["n"]["N"]) for item in reply["Items"]) == list(range(10))
    assert all(set(item) == {"n"} for item in reply["Items"])
    counted = ddb.scan(TableName=filled, FilterExpression="n < :lo", Select="COUNT",
                       ExpressionAttributeValues=values)
    assert "Items" not in counted
    assert (counted["Count"], counted["ScannedCount"]) == (10, len(KEYS))


@pytest.mark.parametrize("total", [1, 2, 3, 7, 16, 1_000_000])
def test_segments_split_the_items_with_no_overlap_and_no_gap(ddb, filled, total):
    segments = range(total) if total < 100 else [0, 1, total // 2, total - 1]
    found = []
    for segment in segments:
        part, _ = scan_all(ddb, filled, Segment=segment, TotalSegments=total, Limit=4)
        assert part == hash_order(part)
        found += part
    if total < 100:
        assert found == hash_order(KEYS)
    else:  # a few of a million segments: disjoint, each a slice of the hash order
        assert len(found) == len(set(found)) and len(found) <= 4


@pytest.mark.parametrize("consistent, units", [(True, 4.0), (False, 2.0)])
def test_capacity_of_a_scan(ddb, filled, consistent, units):
    """60 small items are under 4 KB in all, but a Scan costs at least a read unit for
    each of the table's 4 partitions it searches; halved when eventually consistent."""
    reply = ddb.scan(TableName=filled, ReturnConsumedCapacity="INDEXES", ConsistentRead=consistent)
    assert reply["ConsumedCapacity"] == {"TableName": filled, "CapacityUnits": units,
                                         "Table": {"CapacityUnits": units}}


def test_pages_stop_at_one_megabyte(ddb, table):
    for i in range(13):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"big{i}"}, "d": {"S": "y" * 300_000}})
    first = ddb.scan(TableName=table, Select="COUNT")
    assert first["ScannedCount"] == 4  # 3 items are under 1 MB, the 4th reaches it
    assert "LastEvaluatedKey" in first
    seen, pages = scan_all(ddb, table, ProjectionExpression="pk")
    assert seen == hash_order([f"big{i}" for i in range(13)]) and pages == 4


def test_missing_table(ddb):
    assert fails(ddb.scan, TableName="no-such-table") == NOT_FOUND


@pytest.mark.parametrize("params, message", [
    ({"Segment": 0},
     "The TotalSegments parameter is required but was not present in the request when "
     "Segment parameter is present"),
    ({"TotalSegments": 2},
     "The Segment parameter is required but was not present in the request when parameter "
     "TotalSegments is present"),
    ({"Segment": 2, "TotalSegments": 2},
     "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
     "Segment: 2 is not less than TotalSegments: 2"),
    ({"Select": "ALL_PROJECTED_ATTRIBUTES"},
     "ALL_PROJECTED_ATTRIBUTES can be used only when Scanning using an IndexName"),
    ({"Select": "COUNT", "ProjectionExpression": "pk"},
     "Cannot specify the ProjectionExpression when choosing to get COUNT"),
    # recorded (issue 24): the key's names are right, its types are not
    ({"ExclusiveStartKey": {"pk": {"N": "1"}}}, "The provided key element does not match the schema"),
    ({"ExclusiveStartKey": {"x": {"S": "1"}}},
     "The provided starting key is invalid: The provided key element does not match the schema"),
    ({"IndexName": "nope"}, "The table does not have the specified index: nope"),
])
def test_scan_validation(ddb, table, params, message):
    assert fails(ddb.scan, TableName=table, **params) == ("ValidationException", message)


def test_segment_bounds_come_from_the_model(server, table):
    reply = server.post("Scan", {"TableName": table, "Segment": 1_000_000,
                                 "TotalSegments": 1_000_001})
    assert reply.json["message"] == (
        "2 validation errors detected: Value '1000001' at 'totalSegments' failed to satisfy "
        "constraint: Member must have value less than or equal to 1000000; Value '1000000' at "
        "'segment' failed to satisfy constraint: Member must have value less than or equal to "
        "999999")


def test_start_key_of_another_segment(ddb, filled):
    first = hash_order(KEYS)[0]
    assert fails(ddb.scan, TableName=filled, Segment=1, TotalSegments=2,
                 ExclusiveStartKey={"pk": {"S": first}}) == (
        "ValidationException",
        "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
        "ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 1")


@pytest.mark.parametrize("operation", ["query", "scan"])
def test_start_key_with_extra_attributes_on_a_table_without_sort_key(ddb, table, operation):
    params = {"ExclusiveStartKey": {"pk": {"S": "p"}, "x": {"S": "x"}}}
    if operation == "query":
        params |= {"KeyConditionExpression": "pk = :p",
                   "ExpressionAttributeValues": {":p": {"S": "p"}}}
    # recorded from DynamoDB up to the colon; what follows it is unverified
    assert fails(getattr(ddb, operation), TableName=table, **params) == (
        "ValidationException",
        "The provided exclusive start key is invalid: The provided key element does not match "
        "the schema")
