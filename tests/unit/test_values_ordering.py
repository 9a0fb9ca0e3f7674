import base64
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from okura.values.ordering import compare, equal

_scalar_text = st.text(st.characters(blacklist_categories=("Cs",)))


def _cmp(a, b) -> int:
    return (a > b) - (a < b)


@given(_scalar_text, _scalar_text)
def test_strings_order_by_utf8_bytes(a, b):
    assert compare({"S": a}, {"S": b}) == _cmp(a.encode(), b.encode())


@given(st.decimals(allow_nan=False, allow_infinity=False), st.decimals(allow_nan=False, allow_infinity=False))
def test_numbers_order_numerically(a, b):
    assert compare({"N": str(a)}, {"N": str(b)}) == _cmp(a, b)


@given(st.binary(), st.binary())
def test_binaries_order_by_decoded_bytes(a, b):
    wire = {"B": base64.b64encode(a).decode()}, {"B": base64.b64encode(b).decode()}
    assert compare(*wire) == _cmp(a, b)


def test_examples_where_text_order_differs():
    assert compare({"N": "9"}, {"N": "10"}) == -1
    assert compare({"N": "-10"}, {"N": "-9"}) == -1
    assert compare({"B": "/w=="}, {"B": "AAA="}) == 1  # 0xff after 0x0000, though "/" < "A"
    assert compare({"S": "\uff61"}, {"S": "\U0001f600"}) == -1


@pytest.mark.parametrize("a, b", [({"S": "1"}, {"N": "1"}), ({"BOOL": True}, {"BOOL": True})])
def test_compare_refuses_what_has_no_order(a, b):
    with pytest.raises(TypeError):
        compare(a, b)


@pytest.mark.parametrize("a, b, same", [
    ({"N": "1"}, {"N": "1.0"}, True),
    ({"N": "1"}, {"S": "1"}, False),
    ({"SS": ["a", "b"]}, {"SS": ["b", "a"]}, True),
    ({"SS": ["a", "b"]}, {"SS": ["a"]}, False),
    ({"NS": ["1", "2.50"]}, {"NS": ["2.5", "1e0"]}, True),
    ({"BS": ["AA==", "AQ=="]}, {"BS": ["AQ==", "AA=="]}, True),
    ({"L": [{"N": "1"}, {"S": "x"}]}, {"L": [{"N": "1.0"}, {"S": "x"}]}, True),
    ({"L": [{"N": "1"}, {"S": "x"}]}, {"L": [{"S": "x"}, {"N": "1"}]}, False),
    ({"L": [{"N": "1"}]}, {"L": [{"N": "1"}, {"N": "1"}]}, False),
    ({"M": {"a": {"NS": ["1"]}, "b": {"NULL": True}}}, {"M": {"b": {"NULL": True}, "a": {"NS": ["1.0"]}}}, True),
    ({"M": {"a": {"S": "x"}}}, {"M": {"a": {"S": "x"}, "b": {"S": "x"}}}, False),
    ({"BOOL": True}, {"BOOL": False}, False),
    ({"NULL": True}, {"NULL": True}, True),
])
def test_equality(a, b, same):
    assert equal(a, b) is same
    assert equal(b, a) is same


@given(st.lists(st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-100, max_value=100),
                max_size=6, unique=True))
def test_number_sets_equal_in_any_order_and_spelling(values):
    a = {"NS": [str(v) for v in values]}
    b = {"NS": [str(Decimal(v).normalize()) for v in reversed(values)]}
    assert equal(a, b)
