import pytest
from hypothesis import given
from hypothesis import strategies as st

from okura.errors import DynamoError
from okura.values.sizes import (
    ITEM_TOO_LARGE, MAX_ITEM_SIZE, UPDATE_TOO_LARGE, check_item_size, item_size, number_size,
    value_size,
)


# Each case follows one rule of the developer guide's "DynamoDB item sizes and formats".
@pytest.mark.parametrize("item, size", [
    ({"name": {"S": "héllo"}}, 4 + 6),                  # name bytes + UTF-8 bytes
    ({"n": {"N": "12345"}}, 1 + 3 + 1),                 # 1 byte per two significant digits, + 1
    ({"n": {"N": "1000"}}, 1 + 1 + 1),                  # trailing zeros do not count
    ({"n": {"N": "-0.00012"}}, 1 + 1 + 1),              # nor leading ones, nor the sign
    ({"n": {"N": "0"}}, 1 + 1),
    ({"b": {"B": "AAECAw=="}}, 1 + 4),                  # raw bytes, not base64 characters
    ({"t": {"BOOL": False}, "z": {"NULL": True}}, (1 + 1) * 2),
    ({"l": {"L": []}, "m": {"M": {}}}, (1 + 3) * 2),    # empty List or Map: 3 bytes
    ({"l": {"L": [{"S": "ab"}, {"N": "7"}]}}, 1 + 3 + (2 + 1) + (2 + 1)),  # + 1 byte per element
    ({"m": {"M": {"key": {"S": "v"}}}}, 1 + 3 + (3 + 1 + 1)),              # Map elements count their names
    ({"ss": {"SS": ["a", "bc"]}, "ns": {"NS": ["1", "22"]}, "bs": {"BS": ["AA==", "AAA="]}},
     (2 + 3) + (2 + 2 + 2) + (2 + 1 + 2)),
])
def test_item_size_rules(item, size):
    assert item_size(item) == size


@given(st.text(st.characters(blacklist_categories=("Cs",))))
def test_string_size_is_utf8_length(text):
    assert value_size({"S": text}) == len(text.encode())


@given(st.integers(min_value=1, max_value=10**38 - 1))
def test_number_size_follows_significant_digits(n):
    digits = len(str(n).rstrip("0"))
    assert number_size(str(n)) == number_size("-" + str(n)) == (digits + 1) // 2 + 1


def test_item_size_limit_is_400_kb():
    name_and_value = {"a": {"S": "x" * (MAX_ITEM_SIZE - 1)}}
    assert check_item_size(name_and_value) == MAX_ITEM_SIZE
    too_large = {"a": {"S": "x" * MAX_ITEM_SIZE}}
    with pytest.raises(DynamoError) as caught:
        check_item_size(too_large)
    assert (caught.value.name, caught.value.message) == ("ValidationException", ITEM_TOO_LARGE)
    with pytest.raises(DynamoError) as caught:
        check_item_size(too_large, UPDATE_TOO_LARGE)
    assert caught.value.message == "Item size to update has exceeded the maximum allowed size"
