"""The admin clock endpoint (docs/admin.md), and `clocked`: servers of a test
module's own whose clock the tests move (the shared server's clock stays put)."""
from __future__ import annotations

import contextlib
import http.client
import json

import pytest
from conftest import BACKENDS, Server, new_database


@pytest.fixture(scope="module", params=BACKENDS)
def clocked(request, tmp_path_factory):
    """start(*flags) -> a new server on this backend (own database), stopped at the end."""
    started, databases = [], contextlib.ExitStack()

    def start(*flags: str) -> Server:
        if request.param == "postgres":
            instance = Server("--postgres", databases.enter_context(new_database()), *flags)
        elif request.param == "memory":
            instance = Server(*flags)
        else:
            instance = Server(*flags, data_dir=str(tmp_path_factory.mktemp("okura-clock")))
        started.append(instance)
        return instance

    yield start
    for instance in started:
        instance.stop()
    databases.close()


def admin(server, method: str, body: bytes | None = None,
          path: str = "/okura/clock") -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request(method, path, body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def advance(server, seconds: float) -> float:
    """Move a server's clock forward; its new now."""
    status, reply = admin(server, "POST", json.dumps({"advance": seconds}).encode())
    assert status == 200, reply
    return reply["now"]


@pytest.fixture(scope="module")
def server_of_clock(clocked):
    return clocked()


def test_get_reads_the_clock(server_of_clock):
    status, reply = admin(server_of_clock, "GET")
    assert status == 200
    assert set(reply) == {"now", "offset"}


def test_advance_moves_now_and_creation_times(server_of_clock):
    before = admin(server_of_clock, "GET")[1]
    now = advance(server_of_clock, 3 * 3600)
    after = admin(server_of_clock, "GET")[1]
    assert after["offset"] == before["offset"] + 3 * 3600
    assert now - before["now"] >= 3 * 3600
    ddb = server_of_clock.client()
    ddb.create_table(TableName="clocked", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    created = ddb.describe_table(TableName="clocked")["Table"]["CreationDateTime"].timestamp()
    assert created >= now


_BAD_ADVANCE = '"advance" must be a non-negative number of seconds'


@pytest.mark.parametrize("body,message", [
    (b'{"advance": -1}', _BAD_ADVANCE), (b'{"advance": "60"}', _BAD_ADVANCE),
    (b"{}", _BAD_ADVANCE), (b"[1]", _BAD_ADVANCE), (b'{"advance": true}', _BAD_ADVANCE),
    (b"not json", "the body must be a JSON object")])
def test_bad_advance_is_refused_and_moves_nothing(server_of_clock, body, message):
    offset = admin(server_of_clock, "GET")[1]["offset"]
    assert admin(server_of_clock, "POST", body) == (400, {"error": message})
    assert admin(server_of_clock, "GET")[1]["offset"] == offset


def test_unknown_admin_path(server_of_clock):
    assert admin(server_of_clock, "GET", path="/okura/nothing") == (
        404, {"error": "no such admin endpoint"})


def test_not_reachable_through_x_amz_target(server_of_clock):
    offset = admin(server_of_clock, "GET")[1]["offset"]
    for target in ("Okura.Clock", "DynamoDB_20120810.Clock", "okura/clock"):
        reply = server_of_clock.post(target, {"advance": 60})
        assert reply.status == 400
        assert reply.json["__type"] == "com.amazon.coral.service#UnknownOperationException"
    assert admin(server_of_clock, "GET")[1]["offset"] == offset


def test_clock_offset_flag(clocked):
    ahead = clocked("--clock-offset", "86400")
    assert admin(ahead, "GET")[1]["offset"] == 86400
