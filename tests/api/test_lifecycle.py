"""Starting, stopping and durability of a real okura process."""
from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from tests.conftest import Server, free_port

KEY = [{"AttributeName": "pk", "KeyType": "HASH"}]
ATTRS = [{"AttributeName": "pk", "AttributeType": "S"}]


def _create(client, name="durable"):
    client.create_table(TableName=name, KeySchema=KEY, AttributeDefinitions=ATTRS,
                        BillingMode="PAY_PER_REQUEST")


def test_first_request_is_served_within_half_a_second(tmp_path):
    import http.client

    port = free_port()
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "okura", "serve", "--port", str(port),
                                "--data-dir", str(tmp_path), "--log-level", "error"])
    try:
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
                connection.request("GET", "/")
                assert connection.getresponse().status == 200
                break
            except OSError:
                assert time.monotonic() - started < 5, "okura did not start"
                time.sleep(0.005)
        elapsed = time.monotonic() - started
    finally:
        process.terminate()
        process.wait(10)
    assert elapsed < 0.5, f"first request served after {elapsed:.3f}s"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signals_stop_the_server_cleanly(tmp_path, sig):
    server = Server(data_dir=str(tmp_path))
    client = server.client()
    _create(client)
    client.put_item(TableName="durable", Item={"pk": {"S": "a"}})
    assert server.stop(sig) == 0
    restarted = Server(data_dir=str(tmp_path))
    try:
        item = restarted.client().get_item(TableName="durable", Key={"pk": {"S": "a"}})
        assert item["Item"] == {"pk": {"S": "a"}}
    finally:
        restarted.stop()


def test_console_script_serves(tmp_path):
    script = shutil.which("okura")
    if script is None:
        pytest.skip("the okura console script is not installed (pip install -e .)")
    server = Server(program=(script,))
    try:
        assert server.client().list_tables()["TableNames"] == []
    finally:
        assert server.stop() == 0


def test_acknowledged_writes_survive_kill_9(tmp_path):
    """Writers run flat out; the server is killed with SIGKILL mid-stream; every
    write that was acknowledged must be there after a restart."""
    server = Server(data_dir=str(tmp_path))
    _create(server.client())
    acknowledged: list[str] = []
    stop = threading.Event()

    def writer(worker: int):
        client = server.client()
        n = 0
        while not stop.is_set():
            key = f"w{worker}-{n}"
            try:
                client.put_item(TableName="durable", Item={"pk": {"S": key}, "v": {"N": str(n)}})
            except (BotoCoreError, ClientError):
                return
            acknowledged.append(key)
            n += 1

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.8)
    server.process.send_signal(signal.SIGKILL)
    server.process.wait()
    stop.set()
    for thread in threads:
        thread.join()
    assert len(acknowledged) > 50, "too few writes to make the test meaningful"
    restarted = Server(data_dir=str(tmp_path))
    try:
        client = restarted.client()
        missing = [key for key in acknowledged
                   if "Item" not in client.get_item(TableName="durable", Key={"pk": {"S": key}})]
        assert missing == []
    finally:
        restarted.stop()
