from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from okura.values import numbers

_wire_numbers = st.one_of(
    st.from_regex(r"-?[0-9]{1,40}(\.[0-9]{0,40})?", fullmatch=True),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=4, min_value=-10**36, max_value=10**36).map(str),
)


def _slow(text: str) -> str:
    try:
        return numbers.to_text(numbers.parse(text))
    except Exception as fault:  # the fault itself must match too
        return repr(fault)


def _fast(text: str) -> str:
    try:
        return numbers.normalize(text)
    except Exception as fault:
        return repr(fault)


@given(_wire_numbers)
@settings(max_examples=examples(3000))
def test_normalize_shortcut_agrees_with_full_parse(text):
    assert _fast(text) == _slow(text)


@given(_wire_numbers)
def test_normalized_text_is_a_fixed_point_with_the_same_value(text):
    normal = _fast(text)
    if not normal.startswith("DynamoError"):
        assert numbers.normalize(normal) == normal
        assert Decimal(normal) == Decimal(text)


_integers = st.one_of(st.integers(-10**38, 10**38), st.integers(-1000, 1000)).map(str)


@settings(max_examples=examples(500))
@given(_integers, _integers)
def test_integer_arithmetic_shortcut_agrees_with_decimal(a, b):
    for text in (a, b):
        if numbers._NORMAL.fullmatch(text) is None:
            return  # operands reach add/subtract normalised
    for shortcut, exact in ((numbers.add, numbers._EXACT.add),
                            (numbers.subtract, numbers._EXACT.subtract)):
        try:
            expected = numbers._result(exact(Decimal(a), Decimal(b)))
        except Exception as fault:  # noqa: BLE001 - the fault itself must match too
            expected = repr(fault)
        try:
            got = shortcut(a, b)
        except Exception as fault:  # noqa: BLE001
            got = repr(fault)
        assert got == expected
