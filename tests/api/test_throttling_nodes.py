"""Two okura nodes over one PostgreSQL database share each table's throughput budget
(docs/throttling.md): under a steady load through both, together they let through the
table's rate, within 10 %, not twice it; a node that first serves a table another node
has overdrawn is throttled too."""
from __future__ import annotations

import threading
import time

from botocore.exceptions import ClientError
from conftest import Server, unique_name
from test_clock import admin, advance
from test_multinode import database  # noqa: F401 - fixture: a PostgreSQL database of its own

RATE = 20  # write units a second
SECONDS = 8.0


def _put(ddb, table: str, key: str, value: str = "x" * 900) -> bool:
    """Whether a write of the item was admitted (False: throttled)."""
    try:
        ddb.put_item(TableName=table, Item={"pk": {"S": key}, "v": {"S": value}})
        return True
    except ClientError as error:
        if error.response["Error"]["Code"] != "ProvisionedThroughputExceededException":
            raise
        return False


def test_two_nodes_share_a_tables_write_budget(database):  # noqa: F811
    nodes = [Server("--postgres", database, "--throttling", "enforce") for _ in range(2)]
    try:
        a, b = (node.client() for node in nodes)
        table = unique_name("shared")
        a.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
        # node A overdraws the burst (300 units at first) by 90 units with one item
        assert _put(a, table, "big", "x" * 399_000)
        # node B, which has not served the table, learns it within a moment
        deadline = time.monotonic() + 5
        while _put(b, table, "probe"):
            assert time.monotonic() < deadline, "node B never saw the overdrawn budget"
        # the rate raised (the level is kept: about 90 units overdrawn), the clock moved
        # to where that is nearly paid back, and node A waited on until it admits again:
        # the budget is then barely below zero
        a.update_table(TableName=table, ProvisionedThroughput={
            "ReadCapacityUnits": 1, "WriteCapacityUnits": RATE})
        now = advance(nodes[0], 80 / RATE)
        while admin(nodes[1], "GET")[1]["now"] < now:  # node B follows the shared clock
            time.sleep(0.05)
        deadline = time.monotonic() + 10
        while not _put(a, table, "paid"):
            assert time.monotonic() < deadline, "the budget never refilled"
        admitted, tried = [0] * 4, [0] * 4

        def load(n: int, ddb) -> None:
            end = time.monotonic() + SECONDS
            i = 0
            while time.monotonic() < end:
                i += 1
                admitted[n] += _put(ddb, table, f"w{n}-{i}")
            tried[n] = i

        threads = [threading.Thread(target=load, args=(n, (a, b)[n % 2])) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(SECONDS + 30)
        expected = RATE * SECONDS
        assert admitted[0] + admitted[2] > 0 and admitted[1] + admitted[3] > 0  # both served
        assert sum(tried) > 1.5 * expected, tried  # a load well beyond the rate
        assert abs(sum(admitted) - expected) <= 0.1 * expected, (admitted, tried)
    finally:
        for node in nodes:
            node.stop()
