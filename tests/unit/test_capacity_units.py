"""The units rules of core/capacity.py, as the developer guide states them."""
import pytest

from okura.core.capacity import Ledger

TABLE = object()


def _read(size: int, consistent: bool, transactional: bool) -> float:
    ledger = Ledger()
    ledger.read(TABLE, b"hk", size, consistent, transactional=transactional)
    return ledger[0][3]


def _write(size: int, transactional: bool) -> float:
    ledger = Ledger()
    ledger.write(TABLE, b"hk", size, transactional)
    return ledger[0][3]


# Developer guide, read/write capacity mode: reads in 4 KB units, writes in 1 KB units, rounded up;
# eventually consistent reads cost half, transactional reads and writes double.
@pytest.mark.parametrize("size, consistent, transactional, units", [
    (0, True, False, 1.0),
    (3500, True, False, 1.0),
    (3500, False, False, 0.5),
    (4096, True, False, 1.0),
    (4097, True, False, 2.0),
    (8 * 1024, False, False, 1.0),
    (4096, False, True, 2.0),
])
def test_read_units(size, consistent, transactional, units):
    assert _read(size, consistent, transactional) == units


@pytest.mark.parametrize("size, transactional, units", [
    (0, False, 1.0), (1024, False, 1.0), (1025, False, 2.0), (1536, False, 2.0), (2048, True, 4.0),
])
def test_write_units(size, transactional, units):
    assert _write(size, transactional) == units
