import base64
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from okura.errors import DynamoError
from okura.storage import keys
from okura.values import numbers


@st.composite
def dynamo_numbers(draw) -> str:
    """Any number DynamoDB stores: up to 38 digits, magnitude 1E-130 to below 1E+126, or zero."""
    if draw(st.integers(0, 20)) == 0:
        return draw(st.sampled_from(["0", "-0", "0.000", "0e5"]))
    digits = draw(st.text("0123456789", min_size=0, max_size=37))
    coefficient = draw(st.sampled_from("123456789")) + digits
    adjusted = draw(st.integers(-130, 125))
    sign = draw(st.sampled_from(["", "-"]))
    return f"{sign}{coefficient[0]}.{coefficient[1:]}E{adjusted}" if len(coefficient) > 1 \
        else f"{sign}{coefficient}E{adjusted}"


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def _cmp(a, b) -> int:
    return _sign((a > b) - (a < b))


# Numbers near each other in every way the encoding distinguishes: sign, exponent, digits, length.
_NUMBER_LADDER = [
    "-9.9999999999999999999999999999999999999E+125", "-1E+125", "-100", "-12.5", "-12.05", "-12",
    "-1.05", "-1.0001", "-1", "-0.999", "-0.1", "-1E-130", "0", "1E-130", "0.1", "0.999", "1",
    "1.0001", "1.05", "12", "12.05", "12.5", "100", "1E+125",
    "9.9999999999999999999999999999999999999E+125",
]


def test_number_ladder_sorts_in_numeric_order():
    encoded = [keys.encode("N", n) for n in _NUMBER_LADDER]
    assert encoded == sorted(encoded)
    assert len(set(encoded)) == len(encoded)


@given(dynamo_numbers(), dynamo_numbers())
@settings(max_examples=examples(2000))
def test_number_bytes_compare_numerically(a, b):
    assert _cmp(keys.encode("N", a), keys.encode("N", b)) == _cmp(Decimal(a), Decimal(b))


@given(dynamo_numbers())
def test_equal_numbers_in_any_spelling_encode_alike(a):
    plain = numbers.normalize(a)
    padded = plain.replace("-", "-00") if plain.startswith("-") else "00" + plain
    padded += "" if "." in padded else "."
    for spelling in (plain, padded + "000", plain + "e0", f"{Decimal(a):E}"):
        assert keys.encode("N", spelling) == keys.encode("N", a)


# Code point order equals UTF-8 byte order for scalar values, so this checks the bytes
# against an order computed independently of UTF-8.
_scalar_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1)


@given(_scalar_text, _scalar_text)
@settings(max_examples=examples(1000))
def test_string_bytes_compare_in_utf8_order(a, b):
    assert _cmp(keys.encode("S", a), keys.encode("S", b)) == _cmp(a, b)


def test_string_order_is_utf8_not_utf16():
    # U+FF61 sorts before U+1F600 in UTF-8 byte order, after it in UTF-16 code unit order.
    assert keys.encode("S", "\uff61") < keys.encode("S", "\U0001f600")


@given(st.binary(min_size=1), st.binary(min_size=1))
@settings(max_examples=examples(1000))
def test_binary_bytes_compare_as_decoded_bytes(a, b):
    wire_a, wire_b = base64.b64encode(a).decode(), base64.b64encode(b).decode()
    assert _cmp(keys.encode("B", wire_a), keys.encode("B", wire_b)) == _cmp(a, b)


def test_prefix_of_string_or_binary_is_prefix_of_bytes():
    assert keys.encode("S", "ab") < keys.encode("S", "abc") < keys.encode("S", "ab\U0001f600")
    assert keys.encode("B", "AAE=") + b"\x02" == keys.encode("B", "AAEC")


def test_rejects_what_is_not_a_key_value():
    with pytest.raises(ValueError):
        keys.encode("B", "not base64!")
    with pytest.raises(ValueError):
        keys.encode("BOOL", "true")  # not a key attribute type
    with pytest.raises(DynamoError):
        keys.encode("N", "1E+126")


# On disk: these bytes must never change.
@pytest.mark.parametrize("type_, value, stored", [
    ("S", "id-1", "5aaebc19545226d269642d31"),
    ("S", "é", "cb1abf8beff3192fc3a9"),
    ("N", "0", "75090563d63ed9a202"),
    ("N", "-12.5", "c8ad6ce13226b7ca017c985f"),
    ("N", "1E+3", "d28b68eb482b7930038520"),
    ("N", "1000", "d28b68eb482b7930038520"),
    ("B", "AAEC", "e879c20168a0a436000102"),
])
def test_partition_bytes_are_stable(type_, value, stored):
    assert keys.partition(type_, value).hex() == stored


@given(dynamo_numbers())
def test_partition_is_hash_then_encoding(n):
    stored = keys.partition("N", n)
    assert stored[keys.HASH_BYTES:] == keys.encode("N", n)
    assert stored[:keys.HASH_BYTES] == keys.partition_hash(keys.encode("N", n))


def _segment_of(stored: bytes, total: int) -> list[int]:
    found = []
    for segment in range(total):
        lo, hi = keys.segment_bounds(segment, total)
        if lo <= stored and (hi is None or stored < hi):
            found.append(segment)
    return found


@given(st.integers(1, 1_000_000))
def test_segments_tile_the_hash_space(total):
    first_lo, _ = keys.segment_bounds(0, total)
    assert first_lo == bytes(keys.HASH_BYTES)
    assert keys.segment_bounds(total - 1, total)[1] is None
    for segment in {0, total // 3, total // 2, total - 2}:
        if 0 <= segment < total - 1:
            lo, hi = keys.segment_bounds(segment, total)
            assert lo < hi == keys.segment_bounds(segment + 1, total)[0]


@given(st.binary(min_size=1, max_size=12), st.integers(1, 40))
def test_every_partition_falls_in_exactly_one_segment(value, total):
    stored = keys.partition("B", base64.b64encode(value).decode())
    assert len(_segment_of(stored, total)) == 1


@pytest.mark.parametrize("stored", [bytes(8) + b"\x00", b"\xff" * 8 + b"\xff" * 50])
def test_extreme_partitions_fall_in_the_end_segments(stored):
    assert _segment_of(stored, 7) == ([0] if stored[0] == 0 else [6])


def test_segment_outside_total_is_refused():
    with pytest.raises(ValueError):
        keys.segment_bounds(3, 3)


@given(st.binary(), st.binary())
def test_split_terminated_undoes_terminated(value, rest):
    assert keys.split_terminated(keys.terminated(value) + rest) == (value, rest)
