"""okura inside the calling process: okura.Server and okura.running start a server on a
thread in well under 0.3 s, from sync and async code, and stop it cleanly (issue 25)."""
from __future__ import annotations

import asyncio
import socket
import threading
import time

import boto3
import pytest

import okura
from okura.config import StartupError
from okura.server import app  # noqa: F401 - imported once here, so timings are of starting

KEY = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
       "BillingMode": "PAY_PER_REQUEST"}


def client(endpoint: str):
    return boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id="any", aws_secret_access_key="any")


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def okura_threads() -> set:
    return {t for t in threading.enumerate() if t.name == "okura"}


def test_running_starts_quickly_serves_and_stops():
    before = okura_threads()  # other tests' servers may be running
    started = time.perf_counter()
    with okura.running(memory=True) as endpoint:
        took = time.perf_counter() - started
        ddb = client(endpoint)
        ddb.create_table(TableName="embedded", **KEY)
        ddb.put_item(TableName="embedded", Item={"pk": {"S": "a"}})
        assert ddb.get_item(TableName="embedded", Key={"pk": {"S": "a"}})["Item"] == {
            "pk": {"S": "a"}}
        port = int(endpoint.rsplit(":", 1)[1])
    assert took < 0.3, took
    assert not listening(port)
    assert okura_threads() == before


def test_running_from_async_code():
    async def main():
        async with okura.running() as endpoint:
            # the caller's loop keeps running while okura serves on its own thread
            ticks = asyncio.create_task(asyncio.sleep(0.01))
            tables = await asyncio.to_thread(lambda: client(endpoint).list_tables())
            await ticks
            return endpoint, tables["TableNames"]

    endpoint, names = asyncio.run(main())
    assert names == []
    assert not listening(int(endpoint.rsplit(":", 1)[1]))


def test_server_conveniences_and_two_servers_apart(tmp_path):
    with okura.Server() as first, okura.Server(data_dir=str(tmp_path)) as second:
        assert first.port != second.port
        first.client().create_table(TableName="only-first", **KEY)
        assert second.client().list_tables()["TableNames"] == []
        table = first.resource().Table("only-first")
        table.put_item(Item={"pk": "a", "n": 1})
        assert table.get_item(Key={"pk": "a"})["Item"] == {"pk": "a", "n": 1}
        before = first.clock.now()
        assert first.clock.advance(3600) >= before + 3600
        assert first.streams_client().list_streams()["Streams"] == []
        assert first.reset() == 1
        assert first.client().list_tables()["TableNames"] == []


def test_a_failed_start_is_raised_to_the_caller(tmp_path):
    with okura.Server(data_dir=str(tmp_path)):
        with pytest.raises(StartupError) as caught:
            okura.Server(data_dir=str(tmp_path)).start()
        assert str(caught.value) == (f"the data directory {tmp_path} is in use by another "
                                     f"okura (pid {__import__('os').getpid()})")
    with okura.Server(data_dir=str(tmp_path)):  # released when the first stopped
        pass
