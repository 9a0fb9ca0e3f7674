"""Table status delays: with none configured, a status change has ended at once, even
for a wall clock that steps back (a created table was briefly "not found" then)."""
from __future__ import annotations

import time

import pytest

from okura.core.catalog import ACTIVE, CREATING, DELETING, UPDATING, Table
from okura.core.clock import Clock
from okura.core.context import Context
from okura.core.database import Database
from okura.core.table_lookup import _serves

DOC = {"TableName": "t", "TableStatus": CREATING,
       "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}


class _Engine:
    shared = False  # one process's storage (storage/engine.py)

    def watch_catalog(self, callback):
        pass


def test_no_delay_ends_at_once_whatever_the_clock_does():
    now = time.time()
    table = Table(1, 1, "r", "0", dict(DOC, StatusUntil=Database(_Engine(), "0").status_until(now)))
    assert table.status(now) == ACTIVE
    assert table.status(now - 5) == ACTIVE  # the wall clock stepped back


def test_a_delay_ends_when_it_has_passed():
    now = time.time()
    table = Table(1, 1, "r", "0", dict(DOC, StatusUntil=Database(_Engine(), "0", 2.0).status_until(now)))
    assert table.status(now + 1) == CREATING
    assert table.status(now + 2) == ACTIVE


@pytest.mark.parametrize("status", [ACTIVE, CREATING, UPDATING, DELETING])
@pytest.mark.parametrize("until", [0.0, 1000.0])
def test_serves_data_exactly_while_active_or_updating(status, until):
    """What the hot path decides from serves_from (without a clock when it can) is what
    status() says: DynamoDB serves data while a table is ACTIVE or UPDATING."""
    table = Table(1, 1, "r", "0", dict(DOC, TableStatus=status, StatusUntil=until))
    for now in (until / 2, until, until + 1):
        # okura's clock set to read `now` (a millisecond past it, which is on the same
        # side of every boundary here, whatever the time the call takes)
        ctx = Context(Database(_Engine(), "0", clock=Clock(now + 0.001 - time.time())))
        assert _serves(ctx, table) == (table.status(now) in (ACTIVE, UPDATING))
