"""Global tables on servers of their own: writes logged for another region survive
kill -9 and reach it exactly once after the restart, on SQLite and PostgreSQL; TTL
deletions replicate."""
from __future__ import annotations

import contextlib
import signal
import time

import pytest

from conftest import Server, new_database
from test_global_tables import AWAY, HOME, admin, global_table, item, wait_active


@pytest.fixture(params=["sqlite", "postgres"])
def restartable(request, tmp_path):
    """start() -> a server over the same storage each time (SQLite file or PostgreSQL
    database), all stopped at the end."""
    with contextlib.ExitStack() as stack:
        storage = (("--postgres", stack.enter_context(new_database())) if request.param ==
                   "postgres" else ())
        data_dir = None if storage else str(tmp_path / "data")
        started: list[Server] = []

        def start() -> Server:
            started.append(Server(*storage, data_dir=data_dir))
            return started[-1]
        yield start
        for server in started:
            server.stop()


def records(server, region: str, arn: str) -> list[dict]:
    streams = server.client("dynamodbstreams", region=region)
    found = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            found += page["Records"]
            iterator = page.get("NextShardIterator") if page["Records"] else None
    return found


def test_logged_writes_survive_kill_9_and_arrive_once(restartable):
    server = restartable()
    home, away = server.client(region=HOME), server.client(region=AWAY)
    name = global_table(home, away)
    admin(server, "POST", "/okura/replication", {"pause": AWAY})
    for i in range(50):
        home.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}})
    assert item(away, name, "k0") is None
    server.stop(signal.SIGKILL)
    server = restartable()  # not paused: the new process applies what the log holds
    home, away = server.client(region=HOME), server.client(region=AWAY)
    deadline = time.monotonic() + 60
    while away.scan(TableName=name, Select="COUNT", ConsistentRead=True)["Count"] < 50:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    admin(server, "POST", "/okura/settle")
    assert item(away, name, "k49") == {"pk": {"S": "k49"}, "n": {"N": "49"}}
    arn = wait_active(away, name)["LatestStreamArn"]
    inserted = [r["dynamodb"]["Keys"]["pk"]["S"] for r in records(server, AWAY, arn)
                if r["eventName"] == "INSERT"]
    assert sorted(inserted) == sorted(f"k{i}" for i in range(50))  # each exactly once


def test_ttl_deletions_replicate(restartable):
    server = restartable()
    home, away = server.client(region=HOME), server.client(region=AWAY)
    name = global_table(home, away)
    home.update_time_to_live(TableName=name, TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    expired = int(admin(server, "GET", "/okura/clock")["now"]) - 10
    home.put_item(TableName=name, Item={"pk": {"S": "old"}, "expires": {"N": str(expired)}})
    deadline = time.monotonic() + 30
    while item(home, name, "old") is not None or item(away, name, "old") is not None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
