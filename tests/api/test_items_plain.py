"""GetItem and PutItem in their commonest form take a shorter path (values/plain.py).
Each case here is sent twice, raw: as it is, and with ReturnConsumedCapacity NONE,
a member that changes nothing but sends the request the general way. Both replies
must be the same, errors included."""
from __future__ import annotations

import pytest
from conftest import new_table

GENERAL = {"ReturnConsumedCapacity": "NONE"}


@pytest.fixture(scope="module")
def tables(ddb) -> dict:
    """One table of each key schema for the module: each test writes keys of its own, or
    starts its keys afresh (`fresh`), so none depends on what another left."""
    return {"S": new_table(ddb), "N": new_table(ddb, hash_type="N"),
            "SN": new_table(ddb, "N"), "NS": new_table(ddb, "S", hash_type="N"),
            "SS": new_table(ddb, "S")}


def both(server, target: str, body: dict):
    """(status, JSON) of the plain request and of the same request sent the general way."""
    plain = server.post(target, body)
    general = server.post(target, {**body, **GENERAL})
    return (plain.status, plain.json), (general.status, general.json)


def same(server, target: str, body: dict):
    plain, general = both(server, target, body)
    assert plain == general
    return plain


def diverged(case, reason: str):
    """A case on which the plain path once answered otherwise than the general one
    (`reason` says how); kept as a guard."""
    return pytest.param(*case)


def was_broken(case, reason: str):
    """A case both paths once answered alike but wrongly (`reason` says how); a guard."""
    return pytest.param(*case)


def fresh(server, target: str, body: dict, table: str, key, before: dict | None = None):
    """(reply, stored item) of a write sent plainly and sent the general way, each
    on a fresh item (`before`, if given, is put first): the stored data must agree too."""
    results = []
    for extra in ({}, GENERAL):
        server.post("DeleteItem", {"TableName": table, "Key": key})
        if before is not None:
            server.post("PutItem", {"TableName": table, "Item": {**before, **key}})
        reply = server.post(target, {**body, **extra})
        stored = server.post("GetItem", {"TableName": table, "Key": key, "ConsistentRead": True})
        results.append(((reply.status, reply.json), (stored.status, stored.json)))
    assert results[0] == results[1]
    return results[0]


# Past the request model's AttributeName limit of 65,535, which Java counts in UTF-16
# code units: 33,000 characters outside the BMP are 66,000 units (132,000 bytes, so
# within the item size limit).
ASTRAL_NAME = "\U0001F600" * 33000
LONG_NAME = "x" * 65536  # past the limit in any count
UTF16 = ("AttributeName's max 65535 is UTF-16 units in shapes (nodes._utf16_length), "
         "code points in plain.py / plain_expression_members (len(name))")
RENDERED = ("the plain walk normalises numbers in place before giving up; the general "
            "path's validation message then renders each AttributeValue as "
            "AttributeValue@crc32(its JSON), so the hash differs from the same request "
            "sent the general way at once")
OVERFLOW = ("both paths answer 500: numbers.normalize lets decimal.Overflow / "
            "InvalidOperation escape for exponents past the 999999 context (DynamoDB: "
            "ValidationException 'Number overflow ...')")
ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/{}"


ITEMS = [
    ("S", {"pk": {"S": "a"}, "n": {"N": "01.500"}, "b": {"BOOL": False}, "z": {"NULL": True}}),
    ("S", {"pk": {"S": "é" * 300}, "s": {"S": "ünïcode"}}),  # key past the short-key bound
    ("S", {"pk": {"S": "m"}, "m": {"M": {"x": {"N": "1.0"}}}, "l": {"L": [{"S": "v"}]}}),
    ("N", {"pk": {"N": "-0001.50"}, "x": {"S": "y"}}),
    ("SN", {"pk": {"S": "p"}, "sk": {"N": "1e3"}}),
    ("S", {"pk": {"S": "e"}, "e": {"S": ""}, "t": {"BOOL": True}}),  # empty non-key string
    ("S", {"pk": {"S": "numbers"}, "a": {"N": "-0"}, "b": {"N": "0e5"}, "c": {"N": ".5"},
           "d": {"N": "5."}, "e": {"N": "+5"}, "f": {"N": "1E+2"}, "g": {"N": "-1e-130"},
           "h": {"N": "9.9999999999999999999999999999999999999e125"},
           "i": {"N": "12345678901234567890123456789012345678"},
           "j": {"N": "0.00000000000000000000000000000000000001"}, "k": {"N": "-000.000"},
           "l": {"N": "100000000000000000000000000000000000000000"}}),
    ("S", {"pk": {"S": "u"}, "名前": {"S": "値"}, "\U0001F600": {"N": "1"}}),
    ("S", {"pk": {"S": "long name"}, "x" * 65535: {"S": "v"}}),  # at the name limit
    ("S", {"pk": {"S": "junk"}, "x": {"S": "v", "N": None}}),  # a null member is unset
    ("S", {"pk": {"S": "big"}, "big": {"S": "x" * (400 * 1024 - 8)}}),  # 400 KB exactly
    ("N", {"pk": {"N": "+1e0"}}),
    ("NS", {"pk": {"N": "-00.10"}, "sk": {"S": "s"}}),
    ("SS", {"pk": {"S": "p"}, "sk": {"S": "\U0001F600" * 256}}),  # sort key of 1,024 bytes
    ("SS", {"pk": {"S": "\U0001F600" * 512}, "sk": {"S": "s"}}),  # hash key of 2,048 bytes
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


@pytest.mark.parametrize("kind, item", ITEMS)
def test_puts_store_alike(server, tables, kind, item):
    table = tables[kind]
    key = {name: item[name] for name in ("pk", "sk") if name in item}
    (status, _), (_, stored) = fresh(server, "PutItem", {"TableName": table, "Item": item},
                                     table, key)
    assert status == 200 and set(stored["Item"]) == set(item)


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
    {"Item": {"pk": {"S": "a"}, LONG_NAME: {"S": "v"}}},
    {"Item": {"pk": {"S": "a"}, "x": None}},
    {"Item": {"pk": {"S": "a"}, "x": {}}},
    {"Item": {"pk": {"S": "a"}, "x": {"NULL": True, "BOOL": None}}},
    {"Item": {"pk": {"S": "a"}, "x": {"L": []}, "n": {"N": "01"}}},
    {"Item": {"pk": {"S": "a", "N": None}}},
    {"Item": {"pk": {"S": "a"}, "big": {"S": "x" * (400 * 1024 - 7)}}},  # one byte past
    *({"Item": {"pk": {"S": "a"}, "n": {"N": number}}} for number in (
        "1e126", "-1e126", "1e-131", "123456789012345678901234567890123456789", " 1", "1 ",
        "1_000", "Infinity", "NaN", "0x10", "", "-", ".", "1e", "\u0661", "1e+", "--1")),
    {"Item": {"pk": {"S": "a"}, "n": {"N": "01"}, "b": {"BOOL": None}}},
    {"Item": {"pk": {"S": "a"}}, "ReturnValues": "ALL_NEW"},
    {"Item": {"pk": {"S": "a"}}, "ReturnValues": ["ALL_OLD"]},
    {"Item": {"pk": {"S": "a"}}, "TableName": "no"},
    pytest.param({"Item": {"pk": {"S": "a"}, ASTRAL_NAME: {"S": "x"}}}),
    pytest.param({"Item": {"pk": {"S": "a"}, "n": {"N": "01.50"}, LONG_NAME: {"S": "v"}}}),
    pytest.param({"Item": {"pk": {"S": "a"}, "n": {"N": "1e1000000"}}}),
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
    {"Key": {"pk": {"S": "a"}}, "ConsistentRead": 1},
    {"Key": {"pk": {"S": "a"}}, "ProjectionExpression": ""},
    {"Key": {"pk": {"S": "a"}}, "ExpressionAttributeNames": {"#a": "a"}},
    {"Key": {"pk": {"S": "a"}}, "TableName": "ab"},
    {"Key": {"pk": {"S": "a", "N": "1"}}},
    {"Key": {"pk": {}}},
    {"Key": {"pk": None}},
    {"Key": {"pk": {"S": 5}}},
    {"Key": {"pk": {"S": "a"}, ASTRAL_NAME: {"S": "x"}}},
    {"Key": {"pk": {"S": "é" * 1025}}},  # 2,050 bytes
    {"Key": []},
]


@pytest.mark.parametrize("extra", BAD_KEYS)
def test_bad_gets_fail_alike(server, tables, extra):
    status, reply = same(server, "GetItem", {"TableName": tables["S"], **extra})
    assert status == 400
    assert reply["__type"].rpartition("#")[2] in ("ValidationException", "SerializationException")


GETS = [  # (table kind, request members): odd requests, good or bad, answered alike
    ("N", {"Key": {"pk": {"N": "01"}}}),
    ("N", {"Key": {"pk": {"N": "1e126"}}}),
    ("N", {"Key": {"pk": {"N": "x"}}}),
    ("N", {"Key": {"pk": {"S": "1"}}}),
    ("NS", {"Key": {"pk": {"N": "01"}, "other": {"S": "v"}}}),
    ("NS", {"Key": {"pk": {"N": "01"}}}),
    ("SN", {"Key": {"pk": {"S": "p"}, "sk": {"N": "1e3"}}, "ConsistentRead": True}),
    ("SS", {"Key": {"pk": {"S": "p"}, "sk": {"S": "\U0001F600" * 256}}}),
    ("SS", {"Key": {"pk": {"S": "p"}, "sk": {"S": "\U0001F600" * 257}}}),
    ("SS", {"Key": {"pk": {"S": "p"}, "sk": {"S": ""}}}),
    ("S", {"Key": {"pk": {"S": "a"}}, "ConsistentRead": None}),
    ("S", {"Key": {"pk": {"S": "a", "N": None}}}),
    ("S", {"Key": {"pk": {"S": "é" * 300}}}),
    diverged(("NS", {"Key": {"pk": {"N": "01"}, LONG_NAME: {"S": "v"}}}), RENDERED),
    was_broken(("N", {"Key": {"pk": {"N": "1e1000000"}}}), OVERFLOW),
]


@pytest.mark.parametrize("kind, extra", GETS)
def test_gets_agree(server, tables, kind, extra):
    table = tables[kind]
    if type(extra["Key"]) is dict:  # something to find, where the key is valid
        server.post("PutItem", {"TableName": table, "Item": {**extra["Key"], "v": {"S": "v"}}})
    status, _ = same(server, "GetItem", {"TableName": table, **extra})
    assert status in (200, 400)


@pytest.mark.parametrize("target, body", [
    ("GetItem", {"Key": {"pk": {"S": "a"}}}),
    ("PutItem", {"Item": {"pk": {"S": "a"}, "n": {"N": "01"}}}),
    ("UpdateItem", {"Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET n = :n",
                    "ExpressionAttributeValues": {":n": {"N": "02"}}, "ReturnValues": "ALL_NEW"}),
])
def test_table_by_arn_alike(server, tables, target, body):
    status, _ = same(server, target, {"TableName": ARN.format(tables["S"]), **body})
    assert status == 200


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


KEYS = {"S": {"pk": {"S": "u"}}, "N": {"pk": {"N": "7"}},
        "SN": {"pk": {"S": "u"}, "sk": {"N": "1"}}, "NS": {"pk": {"N": "7"}, "sk": {"S": "u"}}}


def set_to(expression: str, **values) -> dict:
    return {"UpdateExpression": expression,
            "ExpressionAttributeValues": {f":{name}": value for name, value in values.items()}}


UPDATES = [  # (table kind, item there before or None, request members; "Key" overrides KEYS)
    ("S", None, {**set_to("SET a = :a, b = :b", a={"N": "01.50"}, b={"N": "-0"}),
                 "ReturnValues": "ALL_NEW"}),
    ("S", {"n": {"N": "5"}}, {**set_to("ADD n :v", v={"N": "-0.50"}), "ReturnValues": "UPDATED_NEW"}),
    ("S", None, {**set_to("ADD n :v", v={"N": "1e2"}), "ReturnValues": "UPDATED_OLD"}),
    ("S", {"a": {"S": "x"}, "b": {"N": "1"}},
     {**set_to("REMOVE a SET b = b + :one", one={"N": "1.0"}), "ReturnValues": "ALL_OLD"}),
    ("S", None, {"ReturnValues": "ALL_NEW"}),  # no expression: the key alone is created
    ("S", {"a": {"S": "x"}}, {"ReturnValues": "UPDATED_OLD"}),
    ("S", None, {"ConditionExpression": "attribute_exists(pk)"}),
    ("S", {"a": {"S": "x"}}, {**set_to("SET #b = :b", b={"BOOL": False}, x={"S": "x"}),
                              "ConditionExpression": "a = :x", "ExpressionAttributeNames":
                              {"#b": "b"}, "ReturnValues": "UPDATED_NEW"}),
    ("S", {"a": {"S": "x"}}, {**set_to("SET b = :b", b={"S": "y"}, x={"S": "z"}),
                              "ConditionExpression": "a = :x", "ReturnValues": "ALL_NEW"}),
    ("S", None, {**set_to("SET e = :e, z = :z, t = :t", e={"S": ""}, z={"NULL": True},
                          t={"BOOL": True}), "ReturnValues": "ALL_NEW"}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ExpressionAttributeNames": {"#u": "u"}}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}, unused={"S": "y"})}),
    ("S", None, {"UpdateExpression": "SET a = :a", "ExpressionAttributeValues": {}}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ExpressionAttributeNames": {}}),
    ("S", None, {"ExpressionAttributeValues": {":a": {"S": "x"}}}),
    ("S", None, {"ExpressionAttributeNames": {"#a": "a"}}),
    ("S", None, {**set_to("SET pk = :a", a={"S": "x"})}),
    ("S", None, {"UpdateExpression": ""}),
    ("S", None, {"UpdateExpression": "SET = :a"}),
    ("S", None, {"UpdateExpression": "SET a = :a"}),  # :a undefined
    ("S", None, {**set_to("SET a = m + :a", a={"N": "1"})}),  # m absent
    ("S", {"n": {"N": "9.9e125"}}, {**set_to("SET n = n + :a", a={"N": "1e125"})}),
    ("S", {"big": {"S": "x" * (400 * 1024 - 100)}}, {**set_to("SET more = :a", a={"S": "x" * 200})}),
    ("S", None, {**set_to("SET a = :a", a={"N": "1..2"})}),
    ("S", None, {**set_to("SET a = :a", a={"NULL": False})}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x", "N": None})}),
    ("S", None, {**set_to("SET a = :a", a={"M": {"n": {"N": "01"}}}), "ReturnValues": "ALL_NEW"}),
    ("S", None, {**set_to("SET a = :a, b = :b", a={"N": "01"}, b={"L": [{"N": "02"}]})}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ReturnValues": "BOGUS"}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ReturnValues": None}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ReturnValues": 5}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ConditionExpression": 5}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ConditionExpression": None}),
    ("S", None, {"UpdateExpression": "REMOVE a", "ExpressionAttributeValues": None,
                 "ExpressionAttributeNames": None, "ReturnValues": "ALL_NEW"}),
    ("S", None, {**set_to("SET #n = :a", a={"S": "x"}), "ExpressionAttributeNames": {"#n": ""}}),
    ("S", None, {**set_to("SET #n = :a", a={"S": "x"}),
                 "ExpressionAttributeNames": {"#n": "x" * 65535}}),
    ("S", None, {**set_to("SET #n = :a", a={"S": "x"}),
                 "ExpressionAttributeNames": {"#n": LONG_NAME}}),
    ("S", None, {**set_to("SET #n = :a", a={"S": "x"}), "ExpressionAttributeNames": {"#n": 5}}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "Key": {"pk": {"S": "u"}, "x": {"S": "y"}}}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "Key": {"pk": {"S": "u", "N": None}}}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "Key": {"pk": {"S": "é" * 300}},
                 "ReturnValues": "ALL_NEW"}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "Key": {"pk": {"S": ""}}}),
    ("N", None, {**set_to("SET a = :a", a={"S": "x"}), "Key": {"pk": {"N": "07.00"}},
                 "ReturnValues": "ALL_NEW"}),
    ("SN", None, {**set_to("SET a = :a", a={"S": "x"}), "Key": {"pk": {"S": "u"}, "sk": {"N": "1e0"}},
                  "ReturnValues": "ALL_NEW"}),
    ("NS", None, {**set_to("SET a = :a", a={"S": "x"}), "Key": {"pk": {"N": "07"}, "x": {"S": "y"}}}),
    ("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ReturnValuesOnConditionCheckFailure": "NONE"}),
    diverged(("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ReturnValues": ["ALL_NEW"]}),
             "ReturnValues of an unhashable JSON type: plain_expression_members tests "
             "`body.get('ReturnValues', 'NONE') in _RETURN_VALUES` (a frozenset), TypeError, "
             "500 InternalServerError; general: SerializationException"),
    diverged(("S", None, {**set_to("SET a = :a", a={"S": "x"}), "ReturnValues": {"x": 1}}),
             "ReturnValues {...}: TypeError unhashable dict on the plain path, 500"),
    diverged(("S", None, {**set_to("SET #n = :a", a={"S": "x"}),
                          "ExpressionAttributeNames": {"#n": ASTRAL_NAME}}), UTF16),
    diverged(("NS", None, {**set_to("SET a = :a", a={"S": "x"}),
                           "Key": {"pk": {"N": "07"}, LONG_NAME: {"S": "y"}}}), RENDERED),
    was_broken(("S", None, {**set_to("SET a = :a", a={"N": "1e1000000"})}), OVERFLOW),
]


@pytest.mark.parametrize("kind, before, extra", UPDATES)
def test_updates_agree(server, tables, kind, before, extra):
    table = tables[kind]
    body = {"TableName": table, "Key": KEYS[kind], **extra}
    (status, _), _ = fresh(server, "UpdateItem", body, table, body["Key"], before)
    assert status in (200, 400)


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
    lambda s, n: {n: [put({"pk": {"N": "1"}}), delete({"pk": {"N": "1.0"}})]},  # duplicate
    lambda s, n: {n: [put({"pk": {"N": "01.0"}, "x": {"N": "-0"}}), delete({"pk": {"N": "2e0"}})]},
    lambda s, n: {s: [put({"pk": {"S": "big"}, "big": {"S": "x" * (400 * 1024 - 8)}})]},
    lambda s, n: {s: [put({"pk": {"S": "big"}, "big": {"S": "x" * (400 * 1024 - 7)}})]},
    lambda s, n: {s: [put({"pk": {"S": "j"}, "x": {"S": "v", "N": None}})]},
    lambda s, n: {s: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}, "DeleteRequest": None}]},
    lambda s, n: {s: [{"PutRequest": {"Item": {"pk": {"S": "a"}}, "Other": 1}}]},
    lambda s, n: {s: [{"PutRequest": {}}]},
    lambda s, n: {s: [{}]},
    lambda s, n: {s: [put({"pk": {"S": "a"}})], ARN.format(s): [put({"pk": {"S": "b"}})]},
    lambda s, n: {s: [put({"pk": {"S": "e"}, "e": {"S": ""}}), delete({"pk": {"S": "é" * 300}})]},
    lambda s, n: {s: [put({"pk": {"S": "a"}, LONG_NAME: {"S": "v"}})]},
    lambda s, n: {s: [put({"pk": {"S": f"y{i}"}}) for i in range(13)],
                  n: [put({"pk": {"N": str(i)}}) for i in range(13)]},  # 26 over two tables
    pytest.param(lambda s, n: {s: [put({"pk": {"S": "a"}, ASTRAL_NAME: {"S": "x"}})]}),
    pytest.param(lambda s, n: {s: [put({"pk": {"S": "a"}, "n": {"N": "01.50"},
                                        LONG_NAME: {"S": "v"}})]}),
    pytest.param(lambda s, n: {s: [put({"pk": {"S": f"x{i}"}, "n": {"N": "1.50"}})
                                   for i in range(26)]}),  # too many, numbers normalised first
    pytest.param(lambda s, n: {s: [put({"pk": {"S": "a"}, "n": {"N": "1e1000000"}})]}),
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


def batch_keys(request_items: dict):
    """(table, key) of each write of a batch that names one."""
    for name, writes in request_items.items():
        for write in writes if type(writes) is list else ():
            for part, member in (("PutRequest", "Item"), ("DeleteRequest", "Key")):
                record = ((write.get(part) or {}).get(member) if type(write) is dict else None)
                if type(record) is dict and "pk" in record:
                    yield name, {"pk": record["pk"]}


@pytest.mark.parametrize("batch", BATCHES)
def test_batches_store_alike(server, tables, batch):
    """Each way from the same start (the keys absent, but a key deleted is first put)."""
    request_items = batch(tables["S"], tables["N"])
    keys = list(batch_keys(request_items))
    results = []
    for extra in ({}, GENERAL):
        for name, key in keys:
            server.post("PutItem", {"TableName": name, "Item": {**key, "before": {"S": "b"}}})
        reply = server.post("BatchWriteItem", {"RequestItems": request_items, **extra})
        stored = [server.post("GetItem", {"TableName": name, "Key": key}).json
                  for name, key in keys]
        results.append(((reply.status, reply.json), stored))
    assert results[0] == results[1]
    assert results[0][0][0] in (200, 400)


def test_one_key_by_name_and_by_arn_is_a_duplicate(server, tables):
    """One table named once by name and once by ARN is one table: a put and a delete of
    one key are duplicates (before, both passed, and the put won)."""
    name = tables["S"]
    request = {"RequestItems": {name: [put({"pk": {"S": "a"}})],
                                ARN.format(name): [delete({"pk": {"S": "a"}})]}}
    status, reply = same(server, "BatchWriteItem", request)
    assert status == 400
    assert reply["message"] == "Provided list of item keys contains duplicates"


def test_a_refused_batch_writes_nothing(server, tables):
    request = {"TableName": tables["S"], "Key": {"pk": {"S": "first"}}}
    server.post("BatchWriteItem", {"RequestItems": {tables["S"]: [
        put({"pk": {"S": "first"}}), put({"pk": {"S": "a"}, "n": {"N": "x"}})]}})
    assert server.post("GetItem", request).json == {}
