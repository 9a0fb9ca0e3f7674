"""Replies leave at the end of the event-loop iteration (server/http.py, Outbox), and a
connection's replies keep their order whether they wait for the outbox or for SQLite's
group commit."""
from __future__ import annotations

import asyncio

import orjson

from in_process import app_on
from okura.config import Settings
from okura.server.http import HttpProtocol

TABLE = {"TableName": "outbox", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
         "BillingMode": "PAY_PER_REQUEST"}


class Transport:
    def __init__(self):
        self.out: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        assert not self.closed
        if data:
            self.out.append(data)

    def get_extra_info(self, name):
        return ("127.0.0.1", 8000)

    def close(self) -> None:
        self.closed = True


def post(target: str, body: dict) -> bytes:
    data = orjson.dumps(body)
    return (f"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.{target}\r\n"
            "X-Amz-Date: 20260101T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/"
            "aws4_request, SignedHeaders=host, Signature=x\r\n"
            f"Content-Length: {len(data)}\r\n\r\n").encode() + data


HEALTH = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"


def connect(app) -> tuple[HttpProtocol, Transport]:
    protocol, transport = HttpProtocol(app), Transport()
    protocol.connection_made(transport)
    return protocol, transport


async def settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


def kinds(transport: Transport) -> list[str]:
    """'health', or the reply's top-level members, for each reply written."""
    out = []
    for reply in transport.out:
        body = reply.partition(b"\r\n\r\n")[2]
        out.append("health" if body.startswith(b"healthy") else ",".join(sorted(orjson.loads(body))))
    return out


def test_replies_are_held_to_the_end_of_the_iteration_in_order():
    async def run():
        async with app_on(Settings(memory=True)) as app:
            protocol, transport = connect(app)
            protocol.data_received(post("ListTables", {}) + HEALTH + post("ListTables", {}))
            assert transport.out == []  # all three were handled; none is written yet
            await settle()
            assert kinds(transport) == ["TableNames", "health", "TableNames"]

    asyncio.run(run())


def test_replies_waiting_for_a_group_commit_keep_their_order(tmp_path):
    """One connection's group commit opens first; another connection's health check
    and write then both wait for it, and leave in the order they were asked."""
    async def run():
        async with app_on(Settings(data_dir=str(tmp_path))) as app:
            setup, setup_out = connect(app)
            setup.data_received(post("CreateTable", TABLE))
            await settle()
            assert kinds(setup_out) == ["TableDescription"]
            first, first_out = connect(app)
            second, second_out = connect(app)
            first.data_received(post("PutItem", {"TableName": "outbox", "Item": {"pk": {"S": "a"}}}))
            second.data_received(HEALTH + post("PutItem", {"TableName": "outbox",
                                                          "Item": {"pk": {"S": "b"}}}))
            assert first_out.out == second_out.out == []
            await settle()
            assert kinds(first_out) == [""]
            assert kinds(second_out) == ["health", ""]

    asyncio.run(run())


def test_shutdown_runs_no_request_queued_behind_the_last_reply():
    """A request pipelined behind one still running is not run once the server shuts
    down: its writes would be stored and never acknowledged."""
    async def run():
        async with app_on(Settings(memory=True)) as app:
            protocol, transport = connect(app)
            protocol.data_received(b"GET /okura/clock HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                   + post("CreateTable", TABLE))
            assert protocol.busy  # the admin request runs in a task; CreateTable waits
            protocol.close_when_idle()
            for _ in range(10):
                await asyncio.sleep(0)
            assert len(transport.out) == 1 and b"Connection: close" in transport.out[0]
            other, other_out = connect(app)
            other.data_received(post("ListTables", {}))
            await settle()
            assert orjson.loads(other_out.out[0].partition(b"\r\n\r\n")[2]) == {"TableNames": []}

    asyncio.run(run())


def test_shutdown_keeps_the_order_of_replies_held_and_committed(tmp_path):
    """At shutdown the last group commit comes before the outbox's turn: the write's
    reply must still follow the read's, on a connection that pipelined both."""
    async def run():
        async with app_on(Settings(data_dir=str(tmp_path))) as app:
            setup, setup_out = connect(app)
            setup.data_received(post("CreateTable", TABLE))
            await settle()
            protocol, transport = connect(app)
            protocol.data_received(post("GetItem", {"TableName": "outbox", "Key": {"pk": {"S": "a"}}})
                                   + post("PutItem", {"TableName": "outbox",
                                                      "Item": {"pk": {"S": "a"}}}))
            protocol.close_when_idle()
            await app.db.close()  # commits the group now, as serve() does at shutdown
            await settle()
            assert kinds(transport) == ["", ""]
            ids = [reply.split(b"x-amzn-RequestId: ")[1][:52] for reply in transport.out]
            assert ids == sorted(ids)  # the GetItem's reply first
            assert transport.closed

    asyncio.run(run())


class ClosedTransport(Transport):
    """uvloop's transport once it has closed itself (the peer reset), before asyncio
    has told the protocol: a write raises."""

    def write(self, data: bytes) -> None:
        raise RuntimeError("unable to perform operation on <TCPTransport closed=True>; "
                           "the handler is closed")


def test_a_reply_that_cannot_be_written_holds_back_no_other(caplog):
    """The outbox, like a group commit, finishes several connections' replies in one
    loop: one connection's failed write (logged) must not lose the others'."""
    async def run():
        async with app_on(Settings(memory=True)) as app:
            closed, closed_out = HttpProtocol(app), ClosedTransport()
            closed.connection_made(closed_out)
            other, other_out = connect(app)
            closed.data_received(post("ListTables", {}))
            other.data_received(post("ListTables", {}))
            await settle()
            assert kinds(other_out) == ["TableNames"]
            assert closed_out.closed

    asyncio.run(run())
    assert "a reply could not be written" in caplog.text
