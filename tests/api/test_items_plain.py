"""GetItem and PutItem in their commonest form take a shorter path (values/plain.py).
Each case here is sent twice, raw: as it is, and with ReturnConsumedCapacity NONE,
a member that changes nothing but sends the request the general way. Both replies
must be the same, errors included."""
from __future__ import annotations

import pytest

GENERAL = {"ReturnConsumedCapacity": "NONE"}


@pytest.fixture
def tables(make_table) -> dict:
    return {"S": make_table(), "N": make_table(hash_type="N"), "SN": make_table("N")}


def both(server, target: str, body: dict):
    """(status, JSON) of the plain request and of the same request sent the general way."""
    plain = server.post(target, body)
    general = server.post(target, {**body, **GENERAL})
    return (plain.status, plain.json), (general.status, general.json)


def same(server, target: str, body: dict):
    plain, general = both(server, target, body)
    assert plain == general
    return plain


ITEMS = [
    ("S", {"pk": {"S": "a"}, "n": {"N": "01.500"}, "b": {"BOOL": False}, "z": {"NULL": True}}),
    ("S", {"pk": {"S": "é" * 300}, "s": {"S": "ünïcode"}}),  # key past the short-key bound
    ("S", {"pk": {"S": "m"}, "m": {"M": {"x": {"N": "1.0"}}}, "l": {"L": [{"S": "v"}]}}),
    ("N", {"pk": {"N": "-0001.50"}, "x": {"S": "y"}}),
    ("SN", {"pk": {"S": "p"}, "sk": {"N": "1e3"}}),
]


@pytest.mark.parametrize("kind, item", ITEMS)
def test_put_then_get_agree(server, tables, kind, item):
    table = tables[kind]
    status, reply = same(server, "PutItem", {"TableName": table, "Item": item})
    assert (status, reply) == (200, {})
    key = {name: item[name] for name in ("pk", "sk") if name in item}
    status, reply = same(server, "GetItem", {"TableName": table, "Key": key})
    assert status == 200
    assert set(reply["Item"]) == set(item)


def test_numbers_are_normalised_on_both_paths(server, tables):
    table = tables["N"]
    server.post("PutItem", {"TableName": table, "Item": {"pk": {"N": "1.50"}, "n": {"N": "007"}}})
    for key in ("1.5", "01.500", "15e-1"):
        status, reply = same(server, "GetItem", {"TableName": table, "Key": {"pk": {"N": key}}})
        assert status == 200
        assert reply["Item"] == {"pk": {"N": "1.5"}, "n": {"N": "7"}}


BAD_PUTS = [
    {},  # no Item
    {"Item": None},
    {"Item": []},
    {"Item": {"pk": {"S": ""}}},
    {"Item": {"pk": {"N": "1"}}},
    {"Item": {"x": {"S": "no key"}}},
    {"Item": {"pk": {"S": "a"}, "z": {"NULL": False}}},
    {"Item": {"pk": {"S": "a"}, "n": {"N": "1..2"}}},
    {"Item": {"pk": {"S": "a"}, "n": {"N": 5}}},
    {"Item": {"pk": {"S": "a"}, "two": {"S": "x", "N": "1"}}},
    {"Item": {"pk": {"S": "a"}, "b": {"BOOL": "true"}}},
    {"Item": {"pk": {"S": "€" * 700}}},  # past 2,048 bytes
    {"Item": {"pk": {"S": "a"}, "big": {"S": "x" * (400 * 1024)}}},
    {"Item": {"pk": {"S": "a"}, "": {"S": "empty name"}}},
]


@pytest.mark.parametrize("extra", BAD_PUTS)
def test_bad_puts_fail_alike(server, tables, extra):
    status, reply = same(server, "PutItem", {"TableName": tables["S"], **extra})
    assert status in (200, 400)
    if status == 400:
        assert "__type" in reply


BAD_KEYS = [
    {},  # no Key
    {"Key": None},
    {"Key": {}},
    {"Key": {"pk": {"N": "1"}}},
    {"Key": {"pk": {"S": ""}}},
    {"Key": {"pk": {"S": "a"}, "extra": {"S": "b"}}},
    {"Key": {"other": {"S": "a"}}},
    {"Key": {"pk": {"S": "€" * 700}}},
    {"Key": {"pk": {"S": "a"}}, "ConsistentRead": "yes"},
]


@pytest.mark.parametrize("extra", BAD_KEYS)
def test_bad_gets_fail_alike(server, tables, extra):
    status, reply = same(server, "GetItem", {"TableName": tables["S"], **extra})
    assert status == 400
    assert reply["__type"].rpartition("#")[2] in ("ValidationException", "SerializationException")


def test_missing_key_is_a_validation_error(server, tables):
    reply = server.post("GetItem", {"TableName": tables["S"]})
    assert reply.status == 400
    assert "'key'" in reply.json["message"]


@pytest.mark.parametrize("target, body", [
    ("GetItem", {"Key": {"pk": {"S": "a"}}}),
    ("PutItem", {"Item": {"pk": {"S": "a"}}}),
])
def test_absent_table_alike(server, target, body):
    status, reply = same(server, target, {"TableName": "no-such-table-here", **body})
    assert status == 400 and "ResourceNotFoundException" in reply["__type"]


def put(item: dict) -> dict:
    return {"PutRequest": {"Item": item}}


def delete(key: dict) -> dict:
    return {"DeleteRequest": {"Key": key}}


BATCHES = [
    lambda s, n: {s: [put({"pk": {"S": f"b{i}"}, "n": {"N": "1.50"}}) for i in range(25)]},
    lambda s, n: {s: [put({"pk": {"S": "b0"}}), delete({"pk": {"S": "b1"}})],
                  n: [put({"pk": {"N": "2"}}), delete({"pk": {"N": "3"}})]},
    lambda s, n: {s: [put({"pk": {"S": "d"}}), delete({"pk": {"S": "d"}})]},  # duplicate key
    lambda s, n: {s: [put({"pk": {"S": f"x{i}"}}) for i in range(26)]},  # too many
    lambda s, n: {s: [put({"pk": {"S": "ok"}}), put({"pk": {"S": ""}})]},  # second is bad
    lambda s, n: {s: [put({"pk": {"S": "ok"}}), put({"pk": {"S": "a"}, "z": {"NULL": False}})]},
    lambda s, n: {s: [put({"pk": {"S": "ok"}}), delete({"pk": {"N": "1"}})]},
    lambda s, n: {s: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}, "DeleteRequest": {
        "Key": {"pk": {"S": "a"}}}}]},
    lambda s, n: {s: []},
    lambda s, n: {s: [put({"pk": {"S": "ok"}})], "no-such-table-here": [put({"pk": {"S": "a"}})]},
]


@pytest.mark.parametrize("batch", BATCHES)
def test_batches_agree(server, tables, batch):
    request = {"RequestItems": batch(tables["S"], tables["N"])}
    status, reply = same(server, "BatchWriteItem", request)
    if status == 200:
        assert reply == {"UnprocessedItems": {}}
        for name, writes in request["RequestItems"].items():
            for write in writes:
                key = (write.get("PutRequest", {}).get("Item")
                       or write["DeleteRequest"]["Key"])
                found = server.post("GetItem", {"TableName": name, "Key": {"pk": key["pk"]}})
                assert ("Item" in found.json) == ("PutRequest" in write)
    else:
        assert status == 400


def test_a_refused_batch_writes_nothing(server, tables):
    request = {"TableName": tables["S"], "Key": {"pk": {"S": "first"}}}
    server.post("BatchWriteItem", {"RequestItems": {tables["S"]: [
        put({"pk": {"S": "first"}}), put({"pk": {"S": "a"}, "n": {"N": "x"}})]}})
    assert server.post("GetItem", request).json == {}
