"""Trigger delivery survives its server: a kill -9 and a restart lose no record (the
checkpoint is in storage), and on PostgreSQL exactly one node delivers a mapping while
another takes over when that node dies."""
from __future__ import annotations

import signal

import pytest
from conftest import Server, new_database
from test_clock import advance
from test_streams import stream_table
from triggers_common import config, keys_delivered, put_many, wait_for

DELIVERED = "collect (mapping "  # the log line of each invocation


def items(prefix: str, count: int) -> list[dict]:
    return [{"pk": {"S": f"{prefix}{i}"}} for i in range(count)]


def test_kill_9_and_restart_loses_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    path = config(tmp_path, str(out))
    data = str(tmp_path / "data")
    node = Server("--config", path, "--trigger-interval", "0.05", data_dir=data)
    try:
        ddb = node.client()
        table, arn = stream_table(ddb)
        node.client("lambda").create_event_source_mapping(
            FunctionName="gated", EventSourceArn=arn, StartingPosition="TRIM_HORIZON",
            BatchSize=10)
        put_many(ddb, table, items("a", 100))
        # the first batch is delivered, and its call held until the gate opens ...
        wait_for(lambda: keys_delivered(str(out), table))
    finally:
        assert node.stop(signal.SIGKILL) == -signal.SIGKILL  # ... when the server dies
    (out / "open").touch()  # (the orphaned call ends; calls after the restart pass)
    assert 1 <= len(keys_delivered(str(out), table)) <= 10
    node = Server("--config", path, "--trigger-interval", "0.05", data_dir=data)
    try:
        put_many(node.client(), table, items("b", 20))
        expected = {f"a{i}" for i in range(100)} | {f"b{i}" for i in range(20)}
        wait_for(lambda: set(keys_delivered(str(out), table)) >= expected)
        assert set(keys_delivered(str(out), table)) == expected
    finally:
        node.stop()


@pytest.fixture
def database():
    with new_database() as url:
        yield url


def test_one_node_delivers_and_another_takes_over(tmp_path, database):
    out = tmp_path / "out"
    out.mkdir()
    path = config(tmp_path, str(out))
    flags = ("--postgres", database, "--config", path, "--trigger-interval", "0.05",
             "--log-level", "info")
    nodes = [Server(*flags), Server(*flags)]
    try:
        ddb = nodes[0].client()
        table, arn = stream_table(ddb)
        nodes[1].client("lambda").create_event_source_mapping(
            FunctionName="collect", EventSourceArn=arn, StartingPosition="TRIM_HORIZON",
            BatchSize=5)
        put_many(ddb, table, items("a", 40))
        wait_for(lambda: len(set(keys_delivered(str(out), table))) == 40)
        delivering = [node for node in nodes if DELIVERED in node.log_text()]
        assert len(delivering) == 1
        dead = delivering[0]
        survivor = nodes[1 - nodes.index(dead)]
        dead.stop(signal.SIGKILL)
        survivor_ddb = survivor.client()
        put_many(survivor_ddb, table, items("b", 10))
        advance(survivor, 31)  # the dead node's lease runs out
        wait_for(lambda: len(set(keys_delivered(str(out), table))) == 50)
        assert DELIVERED in survivor.log_text()
    finally:
        for node in nodes:
            node.stop()
