"""AttributeValues end to end, from the developer guide ("Supported data types",
"Item sizes and formats", "Service quotas"): every type round trips, numbers come
back normalised, the set, nesting, size and key limits hold, and malformed requests
get a 400 with DynamoDB's error, never a 500."""
from __future__ import annotations

import base64
import json
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from items_common import fails

INVALID = "One or more parameter values were invalid: "
TOO_LARGE = ("ValidationException", "Item size has exceeded the maximum allowed size")


def roundtrip(ddb, table, value: dict) -> dict:
    ddb.put_item(TableName=table, Item={"pk": {"S": "k"}, "v": value})
    return ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]["v"]


@pytest.mark.parametrize("value", [
    {"S": "héllo ✓"},
    {"S": ""},  # empty strings are allowed outside keys
    {"N": "-12.5"},
    {"B": b"\x00\xff\x10"},
    {"B": b""},
    {"BOOL": True},
    {"BOOL": False},
    {"NULL": True},
    {"M": {}},
    {"L": []},
    {"M": {"a": {"L": [{"N": "1"}, {"M": {"b": {"SS": ["x"]}}}, {"B": b"\x01"}]}}},
    {"SS": ["a", ""]},
])
def test_every_type_round_trips(ddb, table, value):
    assert roundtrip(ddb, table, value) == value


@pytest.mark.parametrize("tag, members", [
    ("SS", ["b", "a", "c"]), ("NS", ["3", "1.5", "-2"]), ("BS", [b"\x02", b"\x01", b""])])
def test_sets_round_trip_as_sets(ddb, table, tag, members):
    assert sorted(roundtrip(ddb, table, {tag: members})[tag]) == sorted(members)


@pytest.mark.parametrize("sent, returned", [
    ("1.50", "1.5"),
    ("1e3", "1000"),
    ("1E+3", "1000"),
    ("-0", "0"),
    ("0.000", "0"),
    ("00012", "12"),
    ("+7", "7"),
    ("1.2e-5", "0.000012"),
    (".5", "0.5"),
    ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
    ("9.9999999999999999999999999999999999999E+125", "99999999999999999999999999999999999999" + "0" * 88),
    ("1E-130", "0." + "0" * 129 + "1"),
])
def test_numbers_come_back_normalised(ddb, table, sent, returned):
    assert roundtrip(ddb, table, {"N": sent}) == {"N": returned}


def test_number_set_members_are_normalised(ddb, table):
    assert sorted(roundtrip(ddb, table, {"NS": ["1.50", "2e1"]})["NS"]) == ["1.5", "20"]


@pytest.mark.parametrize("number, message", [
    ("abc", "The parameter cannot be converted to a numeric value: abc"),
    ("1.2.3", "The parameter cannot be converted to a numeric value: 1.2.3"),
    ("", "The parameter cannot be converted to a numeric value: "),
    ("1234567890123456789012345678901234567891",
     "Attempting to store more than 38 significant digits in a Number"),
    ("1E126",
     "Number overflow. Attempting to store a number with magnitude larger than supported range"),
    ("1E-131",
     "Number underflow. Attempting to store a number with magnitude smaller than supported range"),
])
def test_invalid_numbers(ddb, table, number, message):
    assert fails(ddb.put_item, TableName=table,
                 Item={"pk": {"S": "k"}, "v": {"N": number}}) == ("ValidationException", message)


@pytest.mark.parametrize("value, message", [
    ({"SS": []}, INVALID + "An string set  may not be empty"),
    ({"NS": []}, INVALID + "An number set  may not be empty"),
    ({"SS": ["a", "a"]}, INVALID + "Input collection [a, a] contains duplicates."),
    ({"NS": ["1", "1"]}, INVALID + "Input collection [1, 1] contains duplicates."),
    ({"NULL": False}, INVALID + "Null attribute value types must have the value of true"),
    ({}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
    ({"S": "a", "N": "1"}, "Supplied AttributeValue has more than one datatypes set, must contain "
                           "exactly one of the supported datatypes"),
])
def test_invalid_values(ddb, table, value, message):
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"S": "k"}, "v": value}) == (
        "ValidationException", message)


def test_number_set_duplicates_after_normalising(ddb, table):
    # "1" and "1.0" are one number: a set may not hold it twice.
    code, message = fails(ddb.put_item, TableName=table,
                          Item={"pk": {"S": "k"}, "v": {"NS": ["1", "1.0"]}})
    assert (code, message) == ("ValidationException",
                               INVALID + "Input collection [1, 1.0] contains duplicates.")


def nested(levels: int) -> dict:
    """A value `levels` deep: the innermost string counts as one level."""
    value: dict = {"S": "x"}
    for _ in range(levels - 1):
        value = {"M": {"m": value}}
    return value


def test_nesting_up_to_32_levels(ddb, table):
    assert roundtrip(ddb, table, nested(32)) == nested(32)
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"S": "k"}, "v": nested(33)}) == (
        "ValidationException", "Nesting Levels have exceeded supported limits: Attributes in the "
                               "item have nested levels beyond supported limit")


def sized(total: int) -> dict:
    """An item of exactly `total` bytes as DynamoDB counts them: "pk" + "k" + "d" + the string."""
    return {"pk": {"S": "k"}, "d": {"S": "x" * (total - 4)}}


def test_item_of_exactly_400_kb_is_accepted(ddb, table):
    ddb.put_item(TableName=table, Item=sized(400 * 1024))
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"]
    assert len(got["d"]["S"]) == 400 * 1024 - 4


def test_item_one_byte_over_400_kb_is_rejected(ddb, table):
    assert fails(ddb.put_item, TableName=table, Item=sized(400 * 1024 + 1)) == TOO_LARGE
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})


def test_item_size_counts_utf8_bytes_and_names(ddb, table):
    # 'é' is two UTF-8 bytes; the attribute name counts too.
    half = (400 * 1024 - 3 - 2) // 2
    item = {"pk": {"S": "k"}, "dd": {"S": "é" * half}}
    ddb.put_item(TableName=table, Item=item)  # 5 + 2 * half = 409599 bytes
    item["dd"] = {"S": "é" * (half + 1)}
    assert fails(ddb.put_item, TableName=table, Item=item) == TOO_LARGE


def test_binary_size_is_raw_bytes(ddb, table):
    limit = 400 * 1024 - len("pk") - 1 - len("b")
    ddb.put_item(TableName=table, Item={"pk": {"S": "k"}, "b": {"B": b"\x00" * limit}})
    assert fails(ddb.put_item, TableName=table,
                 Item={"pk": {"S": "k"}, "b": {"B": b"\x00" * (limit + 1)}}) == TOO_LARGE


def test_partition_key_up_to_2048_bytes(ddb, table):
    ddb.put_item(TableName=table, Item={"pk": {"S": "k" * 2048}})
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "k" * 2048}})["Item"]
    message = INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"S": "k" * 2049}}) == (
        "ValidationException", message)
    assert fails(ddb.get_item, TableName=table, Key={"pk": {"S": "k" * 2049}}) == (
        "ValidationException", message)


def test_sort_key_up_to_1024_bytes(ddb, sorted_table):
    ddb.put_item(TableName=sorted_table, Item={"pk": {"S": "k"}, "sk": {"S": "s" * 1024}})
    assert fails(ddb.put_item, TableName=sorted_table,
                 Item={"pk": {"S": "k"}, "sk": {"S": "s" * 1025}}) == (
        "ValidationException",
        INVALID + "Aggregated size of all range keys has exceeded the size limit of 1024 bytes")


def test_binary_partition_key_round_trips(ddb, make_table):
    table = make_table(hash_type="B")
    key = {"pk": {"B": b"\x00\x01\xfe"}}
    ddb.put_item(TableName=table, Item={**key, "v": {"S": "x"}})
    assert ddb.get_item(TableName=table, Key=key)["Item"] == {**key, "v": {"S": "x"}}
    assert fails(ddb.put_item, TableName=table, Item={"pk": {"B": b""}}) == (
        "ValidationException", "One or more parameter values are not valid. The AttributeValue for "
                               "a key attribute cannot contain an empty binary value. Key: pk")


def test_number_keys_are_one_key_whatever_their_spelling(ddb, make_table):
    table = make_table(hash_type="N")
    ddb.put_item(TableName=table, Item={"pk": {"N": "1.50"}, "v": {"S": "first"}})
    ddb.put_item(TableName=table, Item={"pk": {"N": "15e-1"}, "v": {"S": "second"}})
    assert ddb.get_item(TableName=table, Key={"pk": {"N": "1.5"}})["Item"] == {
        "pk": {"N": "1.5"}, "v": {"S": "second"}}


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.builds(lambda m, e: Decimal(m).scaleb(e), st.integers(-(10 ** 38) + 1, 10 ** 38 - 1),
                 st.integers(-168, 125)).filter(lambda d: d == 0 or -130 <= d.adjusted() < 126))
def test_numbers_keep_their_value(ddb, table, number):
    got = roundtrip(ddb, table, {"N": str(number)})["N"]
    assert Decimal(got) == number
    assert "e" not in got.lower() and (got == "0" or not got.rstrip("0").endswith("."))


# Malformed requests: DynamoDB answers 400 with its error, whatever the shape of the fault.
@pytest.mark.parametrize("item, error", [
    ({"pk": {"S": 5}}, ("SerializationException", "NUMBER_VALUE cannot be converted to String")),
    ({"pk": {"S": ["a"]}}, ("SerializationException", "Start of list found where not expected")),
    ({"pk": {"S": "a"}, "l": {"L": {"a": 1}}},
     ("SerializationException", "Start of structure or map found where not expected")),
    ({"pk": {"S": "a"}, "b": {"B": "not base64!"}}, ("SerializationException", None)),
    ({"pk": {"S": "a"}, "b": {"B": "abc"}},
     ("SerializationException", "Base64 encoded length is expected a multiple of 4 bytes but found: 3")),
    ({"pk": {"S": "a"}, "n": {"N": 5}}, ("SerializationException", None)),
    ({"pk": {"S": "a"}, "ns": {"NS": [1]}}, ("SerializationException", None)),
    ({"pk": {"S": "a"}, "x": "plain"}, ("SerializationException", None)),
    ({"pk": {"S": "a"}, "x": None}, (None, None)),
    ({"pk": {"S": "a"}, "m": {"M": []}}, ("SerializationException", None)),
    ({"pk": {"S": "a"}, "t": {"BOOL": "yes"}}, ("SerializationException", None)),
    ({"pk": {"S": "a"}, "u": {"UNKNOWN": "x"}}, ("ValidationException", None)),
    ([1, 2], ("SerializationException", "Start of list found where not expected")),
    ("item", ("SerializationException", None)),
])
def test_malformed_items_are_client_errors(server, table, item, error):
    reply = server.post("PutItem", {"TableName": table, "Item": item})
    assert reply.status in (200, 400), reply.raw
    code, message = error
    if code is not None:
        assert reply.status == 400
        assert reply.json["__type"].rpartition("#")[2] == code
        if message is not None:
            assert reply.json["message"] == message


@pytest.mark.parametrize("levels", [33, 200, 5000])
def test_deep_nesting_is_a_client_error(server, table, levels):
    doc = '{"S": "x"}'
    for _ in range(levels):
        doc = '{"L": [' + doc + "]}"
    raw = ('{"TableName": "%s", "Item": {"pk": {"S": "a"}, "v": %s}}' % (table, doc)).encode()
    reply = server.post("PutItem", raw)
    assert reply.status == 400, reply.raw
    assert reply.json["__type"].rpartition("#")[2] in ("ValidationException",
                                                       "SerializationException")


@pytest.mark.parametrize("operation, body", [
    ("GetItem", {"Key": "k"}),
    ("GetItem", {"Key": {"pk": {"S": "a"}}, "ProjectionExpression": 5}),
    ("GetItem", {"Key": {"pk": {"S": "a"}}, "ExpressionAttributeNames": ["#a"]}),
    ("DeleteItem", {"Key": {"pk": {"N": "x"}}}),
    ("DeleteItem", {"Key": {"pk": {"S": "a"}}, "ConditionExpression": "a = :v",
                    "ExpressionAttributeValues": {":v": {"B": "%%%%"}}}),
    ("UpdateItem", {"Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :v",
                    "ExpressionAttributeValues": {":v": 3}}),
    ("UpdateItem", {"Key": {"pk": {"S": "a"}}, "UpdateExpression": ["SET a = b"]}),
    ("UpdateItem", {"Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = " + "(" * 3000 + "b"}),
    ("PutItem", {"Item": {"pk": {"S": "a"}}, "ConditionExpression": "NOT " * 3000 + "a = b"}),
    ("PutItem", {"Item": {"pk": {"S": "a"}}, "ReturnValues": 1}),
    ("PutItem", {"Item": {"pk": {"S": "a"}}, "ConditionExpression": "a IN (" + ",".join(
        ["b"] * 1000) + ")"}),
])
def test_malformed_requests_are_client_errors(server, table, operation, body):
    reply = server.post(operation, {"TableName": table, **body})
    assert reply.status == 400, reply.raw
    assert reply.json["__type"].rpartition("#")[2] in ("ValidationException",
                                                       "SerializationException")


def test_json_that_is_not_an_object(server):
    for raw in (b"[]", b"nul", b'"text"', b"{", json.dumps({"TableName": 1}).encode()):
        reply = server.post("PutItem", raw)
        assert reply.status == 400, (raw, reply.raw)


def test_base64_is_decoded_once(server, table):
    encoded = base64.b64encode(b"\x00\x01").decode()
    server.post("PutItem", {"TableName": table, "Item": {"pk": {"S": "a"}, "b": {"B": encoded}}})
    reply = server.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "a"}}})
    assert reply.json["Item"]["b"] == {"B": encoded}


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.sampled_from(["", "a", "1", "AA==", ":v", "#n"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS", "pk", "x"]),
        inner, max_size=3),
    max_leaves=12)
_members = {
    "Item": _json, "Key": _json, "ConditionExpression": _json | st.sampled_from(
        ["a = :v", "#n = :v", "size(a) > :v", "a IN (:v)", "begins_with(a, :v)"]),
    "UpdateExpression": _json | st.sampled_from(["SET a = :v", "ADD a :v", "DELETE a :v",
                                                 "SET #n = list_append(a, :v)", "REMOVE a"]),
    "ExpressionAttributeValues": st.dictionaries(st.sampled_from([":v", "v"]), _json, max_size=2),
    "ExpressionAttributeNames": _json, "ReturnValues": _json | st.sampled_from(["ALL_NEW"]),
    "ProjectionExpression": _json, "ReturnConsumedCapacity": _json,
}


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(["PutItem", "GetItem", "UpdateItem", "DeleteItem"]),
       st.fixed_dictionaries({}, optional=_members))
def test_arbitrary_json_never_gets_a_500(server, table, operation, body):
    reply = server.post(operation, {"TableName": table, **body})
    assert reply.status in (200, 400), (body, reply.raw)


EMPTY_NAME = INVALID + "Empty attribute name"  # the wording after the prefix is unverified
_S = {"S": "v"}


@pytest.mark.parametrize("operation, params, message", [
    ("put_item", {"Item": {"pk": {"S": "k"}, "": _S}}, EMPTY_NAME),
    ("put_item", {"Item": {"pk": {"S": "k"}, "m": {"M": {"a": {"M": {"": _S}}}}}}, EMPTY_NAME),
    ("put_item", {"Item": {"pk": {"S": "k"}, "l": {"L": [{"M": {"": _S}}]}}}, EMPTY_NAME),
    ("put_item", {"Item": {"pk": {"S": "k"}}, "Expected": {"": {"Exists": False}}}, EMPTY_NAME),
    ("update_item", {"Key": {"pk": {"S": "k"}}, "UpdateExpression": "SET a = :v",
                     "ExpressionAttributeValues": {":v": {"M": {"": _S}}}},
     f"ExpressionAttributeValues contains invalid value: {EMPTY_NAME} for key :v"),
    ("update_item", {"Key": {"pk": {"S": "k"}}, "AttributeUpdates": {"": {"Value": _S}}},
     EMPTY_NAME),
    ("get_item", {"Key": {"pk": {"S": "k"}}, "AttributesToGet": [""]}, EMPTY_NAME),
    ("scan", {"ScanFilter": {"": {"ComparisonOperator": "NULL"}}}, EMPTY_NAME),
    ("get_item", {"Key": {"pk": {"S": "k"}}, "ProjectionExpression": "#a",
                  "ExpressionAttributeNames": {"#a": ""}},
     "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"),
])
def test_an_empty_attribute_name_anywhere(ddb, table, operation, params, message):
    assert fails(getattr(ddb, operation), TableName=table, **params) == (
        "ValidationException", message)


def test_an_empty_attribute_name_in_batches_and_transactions(ddb, table):
    item = {"pk": {"S": "k"}, "": _S}
    assert fails(ddb.batch_write_item, RequestItems={table: [{"PutRequest": {"Item": item}}]}) \
        == ("ValidationException", EMPTY_NAME)
    code, message = fails(ddb.transact_write_items,
                          TransactItems=[{"Put": {"TableName": table, "Item": item}}])
    assert code == "ValidationException" and EMPTY_NAME in message
    assert ddb.scan(TableName=table)["Count"] == 0
