import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from okura.errors import DynamoError
from okura.values import numbers
from okura.values.validation import binary_length, check_base64, check_expression_values, check_item

INVALID = "One or more parameter values were invalid: "
EMPTY = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
MANY = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
TOO_DEEP = ("Nesting Levels have exceeded supported limits: "
            "Attributes in the item have nested levels beyond supported limit")


def fault(check, value) -> tuple[str, str]:
    with pytest.raises(DynamoError) as caught:
        check(value)
    return caught.value.name, caught.value.message


def nested(levels: int) -> dict:
    """An attribute value `levels` deep: levels-1 maps around a string."""
    av = {"S": "x"}
    for _ in range(levels - 1):
        av = {"M": {"m": av}}
    return av


@pytest.mark.parametrize("av, message", [
    ({}, EMPTY),
    ({"S": None}, EMPTY),
    ({"Unknown": "x"}, EMPTY),
    ({"S": "a", "N": "1"}, MANY),
    ({"NULL": True, "BOOL": False}, MANY),
    ({"NULL": False}, INVALID + "Null attribute value types must have the value of true"),
    ({"SS": []}, INVALID + "An string set  may not be empty"),
    ({"NS": []}, INVALID + "An number set  may not be empty"),
    ({"BS": []}, INVALID + "Binary sets should not be empty"),
    ({"SS": ["a", "b", "a"]}, INVALID + "Input collection [a, b, a] contains duplicates."),
    ({"NS": ["1", "1.0"]}, INVALID + "Input collection [1, 1.0] contains duplicates."),
    ({"BS": ["AAE=", "AAE="]}, INVALID + "Input collection [java.nio.HeapByteBuffer[pos=0 lim=2 cap=2], "
                                         "java.nio.HeapByteBuffer[pos=0 lim=2 cap=2]] contains duplicates."),
    ({"N": "abc"}, "The parameter cannot be converted to a numeric value: abc"),
    ({"NS": ["1", "1e200"]}, "Number overflow. Attempting to store a number with magnitude larger than "
                             "supported range"),
    ({"L": [{"S": "ok"}, {}]}, EMPTY),
    ({"M": {"inner": {"NULL": False}}}, INVALID + "Null attribute value types must have the value of true"),
    (nested(33), TOO_DEEP),
])
def test_validation_faults(av, message):
    assert fault(check_item, {"a": av}) == ("ValidationException", message)


@pytest.mark.parametrize("av, message", [
    ({"S": 5}, "NUMBER_VALUE cannot be converted to String"),
    ({"N": 5}, "NUMBER_VALUE cannot be converted to String"),
    ({"S": True}, "TRUE_VALUE cannot be converted to String"),
    ({"S": ["x"]}, "Start of list found where not expected"),
    ({"S": {"x": 1}}, "Start of structure or map found where not expected"),
    ({"SS": "x"}, "Unexpected field type"),
    ({"SS": ["x", 1]}, "NUMBER_VALUE cannot be converted to String"),
    ({"M": []}, "Start of list found where not expected"),
    ({"M": "x"}, "Unexpected field type"),
    ({"L": {}}, "Start of structure or map found where not expected"),
    ({"L": ["x"]}, "Unexpected field type"),
    ({"BOOL": "true"}, "STRING_VALUE cannot be converted to Boolean"),
    ({"NULL": 1}, "NUMBER_VALUE cannot be converted to Boolean"),
    ({"B": "AAE"}, "Base64 encoded length is expected a multiple of 4 bytes but found: 3"),
    ({"B": "AA!="}, "Invalid Base64 character: '!'"),
    ({"B": "AB=="}, "Invalid last non-pad Base64 character dectected"),
    ({"BS": ["AAE="]}, None),
    ("x", "Unexpected field type"),
    ([], "Start of list found where not expected"),
])
def test_wire_type_faults_are_serialization_errors(av, message):
    if message is None:
        check_item({"a": av})
    else:
        assert fault(check_item, {"a": av}) == ("SerializationException", message)


def test_a_type_fault_anywhere_beats_an_earlier_validation_fault():
    item = {"a": {"NULL": False}, "b": {"L": [{"S": "ok"}, {"M": {"c": {"S": 7}}}]}}
    assert fault(check_item, item) == ("SerializationException", "NUMBER_VALUE cannot be converted to String")
    same_value = {"a": {"L": [{"SS": []}, {"B": "AAE"}]}}
    assert fault(check_item, same_value) == (
        "SerializationException", "Base64 encoded length is expected a multiple of 4 bytes but found: 3")


def test_numbers_are_normalised_in_place():
    item = {"n": {"N": "01.50"}, "s": {"NS": ["1e2", "-0.0"]}, "deep": {"L": [{"M": {"x": {"N": "+7.0"}}}]}}
    check_item(item)
    assert item == {"n": {"N": "1.5"}, "s": {"NS": ["100", "0"]}, "deep": {"L": [{"M": {"x": {"N": "7"}}}]}}


def test_null_and_unknown_members_are_dropped():
    item = {"a": {"S": "x", "N": None, "Other": 1}}
    check_item(item)
    assert item == {"a": {"S": "x"}}


def test_empty_strings_binaries_and_containers_are_allowed():
    item = {"s": {"S": ""}, "b": {"B": ""}, "l": {"L": []}, "m": {"M": {}}, "ss": {"SS": [""]},
            "deep": nested(32)}
    check_item(item)


def test_expression_values_are_worded_with_their_key():
    assert fault(check_expression_values, {":ok": {"S": "x"}, ":v": {"SS": []}}) == (
        "ValidationException",
        f"ExpressionAttributeValues contains invalid value: {INVALID}An string set  may not be empty for key :v")
    assert fault(check_expression_values, {":v": {}}) == (
        "ValidationException", f"ExpressionAttributeValues contains invalid value: {EMPTY} for key :v")
    assert fault(check_expression_values, {":v": {"S": 1}}) == (
        "SerializationException", "NUMBER_VALUE cannot be converted to String")


@given(st.binary(max_size=64))
def test_canonical_base64_passes_and_length_is_raw_length(raw):
    text = base64.b64encode(raw).decode()
    check_base64(text)
    assert binary_length(text) == len(raw)


@given(st.binary(min_size=1, max_size=64))
def test_unpadded_base64_is_refused(raw):
    text = base64.b64encode(raw).decode().rstrip("=")
    if len(text) % 4:
        with pytest.raises(DynamoError):
            check_base64(text)


@given(st.lists(st.decimals(allow_nan=False, allow_infinity=False, places=3,
                            min_value=-10**6, max_value=10**6), min_size=1, max_size=8))
def test_number_sets_reject_numeric_duplicates_in_any_spelling(values):
    wire = [format(v, "f") for v in values]
    distinct = len({numbers.normalize(w) for w in wire}) == len(wire)
    item = {"ns": {"NS": wire}}
    if distinct:
        check_item(item)
        assert item["ns"]["NS"] == [numbers.normalize(w) for w in wire]
    else:
        assert fault(check_item, item)[1] == f"{INVALID}Input collection [{', '.join(wire)}] contains duplicates."
