"""Shared fixtures: a real okura server per backend, boto3 clients and raw HTTP."""
from __future__ import annotations

import asyncio
import contextlib
import functools
import http.client
import importlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import asyncpg
import boto3
import pytest
from botocore.config import Config
from hypothesis import HealthCheck, settings

# Where PYTHONDONTWRITEBYTECODE is set (this machine, CI), every okura process a test
# starts would compile okura anew (0.4 s of CPU each), and each run would rewrite every
# test module's asserts again (9 s of CPU per process collecting them). Their bytecode goes to a cache outside the
# tree instead; the processes started from here inherit it (pytest-xdist's workers too).
if sys.dont_write_bytecode:
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"] = (
        sys.pycache_prefix or os.path.join(tempfile.gettempdir(), f"okura-pycache-{os.getuid()}"))
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# Generated inputs are judged by what they find, not by how fast a busy machine makes
# them: no deadline and no "input generation is slow" failure (seen on a loaded CI host).
# The fast lane (-m "not slow", README.md, Tests) tries a fifth of each test's examples:
# generating them is nearly all of those tests' time, and the whole suite tries them all.
FAST_LANE_SHARE = 5
settings.register_profile("okura", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("okura-fast", settings.get_profile("okura"),
                          max_examples=100 // FAST_LANE_SHARE)  # of Hypothesis's default 100
settings.load_profile("okura")
_fast_lane = False


def examples(thorough: int) -> int:
    """A generated-input test's max_examples: `thorough` in the whole suite, a fifth of it
    in the fast lane."""
    return max(thorough // FAST_LANE_SHARE, 1) if _fast_lane else thorough

BACKENDS = ["memory", "sqlite", "postgres"]
POSTGRES_HOST = "127.0.0.1:5432"
POSTGRES_USERS = ("postgres", "root")
NO_POSTGRES = (f"no PostgreSQL server accepts user {' or '.join(POSTGRES_USERS)} without a "
               f"password on {POSTGRES_HOST}")


def unavailable(reason: str, requirement: str = "OKURA_REQUIRE_TOOLS"):
    """A test cannot run for want of a server or tool: it is skipped, saying why, or
    fails where the environment variable `requirement` is 1 (`.ci/run` sets
    OKURA_REQUIRE_POSTGRES and OKURA_REQUIRE_TOOLS: CI runs everything it has)."""
    __tracebackhide__ = True  # the report names the test's line, not this one
    if os.environ.get(requirement) == "1":
        pytest.fail(f"{reason}, and {requirement}=1 makes that a failure")
    pytest.skip(reason, allow_module_level=True)


def imported(module: str, reason: str):
    """The module, else the test unavailable for `reason` (at a test module's top level
    too)."""
    __tracebackhide__ = True
    try:
        return importlib.import_module(module)
    except ImportError:
        unavailable(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """An okura server in its own process, on a port the system picks: two started at
    once (pytest-xdist's workers) never race for one. Its log must say where it listens
    (log level info, the default here, or debug)."""

    def __init__(self, *args: str, data_dir: str | None = None,
                 program: tuple[str, ...] = (sys.executable, "-m", "okura")):
        self.port = 0
        self.url = ""
        self.data_dir = data_dir
        command = [*program, "serve", "--port", "0", "--log-level", "info", *args]
        command += ["--data-dir", data_dir] if data_dir else ["--memory"]
        # A file, not a pipe: a pipe nobody reads fills up and blocks the server's logging.
        self.log = tempfile.NamedTemporaryFile(prefix="okura-", suffix=".log", delete=False)
        self.process = subprocess.Popen(command, stderr=self.log)
        try:
            self.wait_ready()
        except RuntimeError:  # not left running behind the failed test
            self.stop()
            raise

    def log_text(self) -> str:
        with open(self.log.name, encoding="utf-8", errors="replace") as handle:
            return handle.read()

    # A loaded machine (load 12 on 2 cores here) takes 8 s and more to start one: a wait
    # of 10 s failed whole modules' fixtures. It only ever ends sooner.
    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"okura exited: {self.log_text()}")
            # logged once the socket listens (okura/server/app.py, serve)
            listening = re.search(r"okura listening on [^ ]+:(\d+) ", self.log_text())
            if listening:
                self.port = int(listening[1])
                self.url = f"http://127.0.0.1:{self.port}"
                return
            time.sleep(0.01)
        raise RuntimeError("okura did not start listening")

    def stop(self, sig=None) -> int:
        if self.process.poll() is None:
            if sig is None:
                self.process.terminate()
            else:
                self.process.send_signal(sig)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self.log.closed:
            self.log.close()
            os.unlink(self.log.name)
        return self.process.returncode

    def client(self, service: str = "dynamodb", region: str = "us-east-1",
               key: str = "AKIDEXAMPLE"):
        return boto3.client(service, endpoint_url=self.url, region_name=region,
                            aws_access_key_id=key, aws_secret_access_key="secret",
                            config=Config(retries={"max_attempts": 0}))

    def admin(self, method: str, name: str, body=None) -> tuple[int, dict]:
        """(status, JSON reply) of one of okura's admin endpoints (docs/admin.md)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, f"/okura/{name}",
                               None if body is None else json.dumps(body),
                               {"Content-Type": "application/json"})
            reply = connection.getresponse()
            return reply.status, json.loads(reply.read())
        finally:
            connection.close()

    def post(self, target: str | None, body, headers: dict | None = None,
             region: str = "us-east-1") -> "Reply":
        """A raw DynamoDB request; `body` is sent as JSON unless it is bytes."""
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = {"Content-Type": "application/x-amz-json-1.0",
                "X-Amz-Date": "20260101T000000Z",
                "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/"
                                 f"{region}/dynamodb/aws4_request, SignedHeaders=host;x-amz-date,"
                                 " Signature=abc"}
        if target is not None:
            sent["X-Amz-Target"] = target if "." in target else f"DynamoDB_20120810.{target}"
        sent.update(headers or {})
        sent = {k: v for k, v in sent.items() if v is not None}
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("POST", "/", data, sent)
            response = connection.getresponse()
            return Reply(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()


class Reply:
    def __init__(self, status: int, headers: dict, raw: bytes):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.raw = raw

    @property
    def json(self):
        return json.loads(self.raw)


async def _admin() -> tuple[asyncpg.Connection, str] | tuple[None, None]:
    """A connection to the PostgreSQL server as a superuser and that user's name."""
    for user in POSTGRES_USERS:
        try:
            return await asyncpg.connect(f"postgresql://{user}@{POSTGRES_HOST}/postgres",
                                         timeout=3), user
        except (OSError, asyncio.TimeoutError, asyncpg.PostgresError):
            continue
    return None, None


async def _create_database(name: str) -> str | None:
    """The URL of a new database, or None if no PostgreSQL server answers."""
    admin, user = await _admin()
    if admin is None:
        return None
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return f"postgresql://{user}@{POSTGRES_HOST}/{name}"


async def _drop_database(name: str) -> None:
    admin, _ = await _admin()
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@contextlib.contextmanager
def new_database():
    """The URL of a new PostgreSQL database, dropped after; without a PostgreSQL server
    the test is unavailable."""
    name = f"okura_test_{uuid.uuid4().hex[:12]}"
    url = asyncio.run(_create_database(name))
    if url is None:
        unavailable(NO_POSTGRES, "OKURA_REQUIRE_POSTGRES")
    try:
        yield url
    finally:
        asyncio.run(_drop_database(name))


@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL database of this test session's own, dropped at its end."""
    with new_database() as url:
        yield url


@pytest.fixture(scope="session", params=BACKENDS)
def server(request, tmp_path_factory):
    if request.param == "postgres":
        instance = Server("--postgres", request.getfixturevalue("postgres_url"))
    elif request.param == "memory":
        instance = Server()
    else:
        instance = Server(data_dir=str(tmp_path_factory.mktemp(f"okura-{request.param}")))
    yield instance
    instance.stop()


@pytest.fixture(scope="session")
def ddb(server):
    return server.client()


def unique_name(prefix: str = "t") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def new_table(ddb, range_type: str | None = None, hash_type: str = "S", **extra) -> str:
    """A new table with a unique name (hash key `pk` S, optional sort key `sk`)."""
    name = unique_name()
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attributes = [{"AttributeName": "pk", "AttributeType": hash_type}]
    if range_type:
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attributes.append({"AttributeName": "sk", "AttributeType": range_type})
    ddb.create_table(TableName=name, KeySchema=schema, AttributeDefinitions=attributes,
                     BillingMode="PAY_PER_REQUEST", **extra)
    return name


@pytest.fixture
def make_table(ddb):
    """Create tables with unique names (`new_table`)."""
    return functools.partial(new_table, ddb)


@pytest.fixture
def table(make_table) -> str:
    """A fresh table with hash key `pk` (S)."""
    return make_table()


@pytest.fixture
def sorted_table(make_table) -> str:
    """A fresh table with hash key `pk` (S) and sort key `sk` (S)."""
    return make_table("S")


def error_of(excinfo) -> tuple[str, str]:
    """(code, message) of a botocore ClientError."""
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


# The fast lane, `python -m pytest -m "not slow"` (README.md, Tests), leaves out the tests
# that need a browser, Terraform, npm/node or mypy. A test that starts one of them
# without the `slow` mark fails, rather than slowing the fast lane unnoticed. (Playwright
# drives the browser from a node of its own.)
SLOW_PROGRAMS = {"node", "npm", "npx", "terraform", "chromium", "chromium-browser",
                 "google-chrome"}
_unmarked: pytest.Item | None = None  # the test running now, unless it is marked slow


def slow_program(argv) -> str | None:
    """The slow tool a command line starts, if any."""
    argv = [str(arg) for arg in argv] if isinstance(argv, (list, tuple)) else [str(argv)]
    program = os.path.basename(argv[0].split()[0]) if argv and argv[0] else ""
    if program in SLOW_PROGRAMS:
        return program
    if argv[1:3] == ["-m", "mypy"]:
        return "mypy"
    return None


def _refuse_slow_programs(event: str, args: tuple) -> None:
    if event == "subprocess.Popen" and _unmarked is not None:
        program = slow_program(args[1])
        if program is not None:
            raise RuntimeError(f"{_unmarked.nodeid} starts {program}: mark it "
                               f"@pytest.mark.slow (README.md, Tests)")


def pytest_configure(config):
    global _fast_lane
    sys.addaudithook(_refuse_slow_programs)
    if "not slow" in (config.getoption("markexpr") or ""):
        _fast_lane = True
        settings.load_profile("okura-fast")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    global _unmarked
    _unmarked = None if item.get_closest_marker("slow") else item
    try:
        return (yield)
    finally:
        _unmarked = None


def pytest_terminal_summary(terminalreporter):
    """`-q` hides skips: say when the PostgreSQL cases were skipped for want of a server
    (README.md, Tests, says what they need)."""
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if NO_POSTGRES in str(report.longrepr)]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} PostgreSQL tests skipped: no PostgreSQL server on "
            f"{POSTGRES_HOST} (README.md, Tests)", yellow=True)


