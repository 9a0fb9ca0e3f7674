import base64

import pytest

from okura.errors import DynamoError
from okura.values.key_rules import KEY_MISMATCH, check_index_keys, check_item_keys, check_key, key_of

INVALID = "One or more parameter values were invalid: "
NOT_VALID = "One or more parameter values are not valid. "
HASH_ONLY = [("id", "S")]
COMPOSITE = [("id", "S"), ("at", "N")]
BINARY_SORT = [("id", "S"), ("blob", "B")]
HASH_TOO_LARGE = INVALID + "Size of hashkey has exceeded the maximum size limit of2048 bytes"
RANGE_TOO_LARGE = INVALID + "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"


def message(check, *args) -> str:
    with pytest.raises(DynamoError) as caught:
        check(*args)
    assert caught.value.name == "ValidationException"
    return caught.value.message


@pytest.mark.parametrize("item, schema, expected", [
    ({"other": {"S": "x"}}, HASH_ONLY, INVALID + "Missing the key id in the item"),
    ({"id": {"S": "x"}}, COMPOSITE, INVALID + "Missing the key at in the item"),
    ({"id": {"N": "1"}}, HASH_ONLY, INVALID + "Type mismatch for key id expected: S actual: N"),
    ({"id": {"S": "x"}, "at": {"SS": ["1"]}}, COMPOSITE, INVALID + "Type mismatch for key at expected: N actual: SS"),
    ({"id": {"S": ""}}, HASH_ONLY,
     NOT_VALID + "The AttributeValue for a key attribute cannot contain an empty string value. Key: id"),
    ({"id": {"S": "x"}, "blob": {"B": ""}}, BINARY_SORT,
     NOT_VALID + "The AttributeValue for a key attribute cannot contain an empty binary value. Key: blob"),
    ({"id": {"S": "x" * 2049}}, HASH_ONLY, HASH_TOO_LARGE),
    ({"id": {"S": "é" * 1025}}, HASH_ONLY, HASH_TOO_LARGE),
    ({"id": {"S": "x"}, "blob": {"B": base64.b64encode(bytes(1025)).decode()}}, BINARY_SORT, RANGE_TOO_LARGE),
])
def test_item_key_faults(item, schema, expected):
    assert message(check_item_keys, item, schema) == expected


def test_item_keys_at_their_limits_pass():
    check_item_keys({"id": {"S": "x" * 2048}, "blob": {"B": base64.b64encode(bytes(1024)).decode()},
                     "extra": {"S": ""}}, BINARY_SORT)


@pytest.mark.parametrize("key", [
    {},
    {"id": {"S": "x"}},
    {"id": {"S": "x"}, "at": {"S": "1"}},
    {"id": {"S": "x"}, "at": {"N": "1"}, "extra": {"S": "y"}},
    {"id": {"S": "x"}, "other": {"N": "1"}},
])
def test_key_not_matching_schema(key):
    assert message(check_key, key, COMPOSITE) == KEY_MISMATCH


def test_key_values_obey_the_key_value_rules():
    assert message(check_key, {"id": {"S": ""}, "at": {"N": "1"}}, COMPOSITE) == (
        NOT_VALID + "The AttributeValue for a key attribute cannot contain an empty string value. Key: id")
    assert message(check_key, {"id": {"S": "x" * 2049}}, HASH_ONLY) == HASH_TOO_LARGE
    check_key({"id": {"S": "x"}, "at": {"N": "1"}}, COMPOSITE)


def test_index_keys():
    schema = [("gpk", "S"), ("gsk", "N")]
    check_index_keys({"id": {"S": "x"}}, "byG", schema)
    assert message(check_index_keys, {"gpk": {"N": "1"}}, "byG", schema) == (
        INVALID + "Type mismatch for Index Key gpk Expected: S Actual: N IndexName: byG")
    assert message(check_index_keys, {"gpk": {"S": ""}}, "byG", schema) == (
        NOT_VALID + "A value specified for a secondary index key is not supported. The AttributeValue for a key "
        "attribute cannot contain an empty string value. IndexName: byG, IndexKey: gpk")
    assert message(check_index_keys, {"gpk": {"S": "x" * 3000}}, "byG", schema) == (
        INVALID + "Size limit exceeded for Index Key gpk Actual Size: 3000 bytes Max Size: 2048 bytes IndexName: byG")


def test_key_of_takes_schema_attributes():
    item = {"id": {"S": "x"}, "at": {"N": "2"}, "data": {"S": "y"}}
    assert key_of(item, COMPOSITE) == {"id": {"S": "x"}, "at": {"N": "2"}}
