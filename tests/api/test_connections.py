"""Connections: an idle timeout, a maximum count, the open-file limit raised to its hard
limit at start; a flood of idle or slow connections never keeps a client that sends whole
requests from being served (server/connections.py)."""
from __future__ import annotations

import os
import resource
import socket
import sys
import time

import pytest

from conftest import Server
from test_http_limits import exchange, signed

LIST = signed(b"{}")


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes `sock` (which owes it nothing) within `within` seconds."""
    sock.settimeout(within)
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def _answer(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    received = b""
    while b"TableNames" not in received and b"__type" not in received:
        chunk = sock.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def test_quiet_connections_are_closed_after_the_idle_timeout():
    """A connection without a whole request for --idle-timeout is closed, whether it sends
    nothing or drips a request that never ends; one that keeps sending requests stays."""
    server = Server("--idle-timeout", "1")
    try:
        idle = socket.create_connection(("127.0.0.1", server.port))
        served = socket.create_connection(("127.0.0.1", server.port))
        served.sendall(LIST)
        assert _answer(served).startswith(b"HTTP/1.1 200 ")
        dripping = socket.create_connection(("127.0.0.1", server.port))
        dripping.sendall(b"GET / HTTP/1.1\r\nX-Slow: ")
        busy = socket.create_connection(("127.0.0.1", server.port))
        started = time.monotonic()
        dripped = True
        while time.monotonic() - started < 3:  # three timeouts: every quiet one is gone
            if dripped:
                try:
                    dripping.sendall(b"s")
                except (BrokenPipeError, ConnectionResetError):
                    dripped = False  # closed (and seen to be below)
            busy.sendall(LIST)
            assert _answer(busy).startswith(b"HTTP/1.1 200 ")
            time.sleep(0.05)
        for quiet in (idle, served, dripping):
            assert _closed_by_server(quiet, 10)
        busy.sendall(LIST)
        assert _answer(busy).startswith(b"HTTP/1.1 200 ")
    finally:
        server.stop()


@pytest.fixture(scope="module")
def small():
    """A server of 20 connections at most, whose idle sweep never runs in these tests."""
    server = Server("--max-connections", "20", "--idle-timeout", "3600")
    yield server
    server.stop()


def test_a_flood_of_quiet_connections_does_not_keep_clients_out(small):
    """500 connections that send nothing, or half a request, then a client: it is served
    at once, and the flood's oldest connections made room for the later ones."""
    flood = []
    try:
        for number in range(500):
            sock = socket.create_connection(("127.0.0.1", small.port))
            if number % 2:
                sock.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            flood.append(sock)
        quick, reply = exchange(small, LIST)
        assert reply.startswith(b"HTTP/1.1 200 ")
        typical, _ = min(exchange(small, LIST) for _ in range(3))
        assert quick < 20 * typical + 0.2, (quick, typical)
        assert _closed_by_server(flood[0], 10) and _closed_by_server(flood[1], 10)
    finally:
        for sock in flood:
            sock.close()


def test_past_the_maximum_of_connections_in_use_a_new_one_is_refused(small):
    """20 connections, each with a request answered since the last sweep, are all in use: a
    21st gets a 503 ServiceUnavailable and is closed; they keep being served."""
    users = [socket.create_connection(("127.0.0.1", small.port)) for _ in range(20)]
    try:
        for sock in users:
            sock.sendall(LIST)
            assert _answer(sock).startswith(b"HTTP/1.1 200 ")
        with socket.create_connection(("127.0.0.1", small.port)) as refused:
            reply = _answer(refused)
            assert reply.startswith(b"HTTP/1.1 503 ")
            assert b'"__type":"com.amazon.coral.service#ServiceUnavailable"' in reply
            assert _closed_by_server(refused, 10)
        for sock in users:
            sock.sendall(LIST)
            assert _answer(sock).startswith(b"HTTP/1.1 200 ")
    finally:
        for sock in users:
            sock.close()


@pytest.mark.skipif(not os.path.exists("/proc/self/limits"), reason="Linux's /proc")
def test_the_open_file_limit_is_raised_to_its_hard_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 256:
        pytest.skip("the hard limit of open files is too low to lower the soft one")

    server = Server(program=("/bin/sh", "-c", f'ulimit -Sn 128 && exec "{sys.executable}" '
                                              '-m okura "$@"', "okura"))
    try:
        with open(f"/proc/{server.process.pid}/limits") as limits:
            line = next(line for line in limits if line.startswith("Max open files"))
        assert line.split()[3:5] == [str(hard), str(hard)], line
    finally:
        server.stop()
