"""okura's pytest plugin (registered through the `pytest11` entry point; docs/testing.md).

A test that asks for the `okura` fixture gets a server started once per session in this
process (okura.Server), with boto3 clients pointed at it; after the test every table it
made is dropped. Nothing runs and nothing is imported beyond this module until a test
asks for the fixture, so the plugin costs other test suites nothing."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import pytest

if TYPE_CHECKING:
    from okura.embedded import Server


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("okura", "okura (a DynamoDB-compatible server) for tests")
    group.addoption("--okura-memory", action="store_true",
                    help="keep the okura fixture's data in memory (the default)")
    group.addoption("--okura-data-dir", metavar="DIR",
                    help="keep the okura fixture's data in a SQLite file in DIR instead")
    group.addoption("--okura-consistency", choices=("strong", "eventual"), default="strong",
                    help="the okura fixture's consistency (docs/consistency.md): run a suite "
                         "once strong and once eventual")
    group.addoption("--okura-consistency-seed", type=int, default=-1, metavar="N",
                    help="seed the eventual delays (default: a fresh one, logged)")
    group.addoption("--okura-consistency-max-delay", type=float, default=2.0,
                    metavar="SECONDS", help="the longest a write stays out of sight (2)")
    group.addoption("--okura-keep-tables", action="store_true",
                    help="do not drop the tables a test made once it ends")


@pytest.fixture(scope="session")
def okura_server(request: pytest.FixtureRequest) -> Iterator[Server]:
    """The session's okura server (okura.Server)."""
    from okura.embedded import Server

    data_dir = request.config.getoption("okura_data_dir")
    if data_dir and request.config.getoption("okura_memory"):
        raise pytest.UsageError("--okura-memory and --okura-data-dir exclude each other")
    where = {"data_dir": data_dir} if data_dir else {"memory": True}
    option = request.config.getoption
    with Server(consistency=option("okura_consistency"),
                consistency_seed=option("okura_consistency_seed"),
                consistency_max_delay=option("okura_consistency_max_delay"), **where) as server:
        yield server


@pytest.fixture
def okura(okura_server: Server, request: pytest.FixtureRequest) -> Iterator[Server]:
    """The session's okura server for one test: `.endpoint_url`, `.client()`,
    `.resource()`, `.streams_client()`, `.clock.advance(seconds)`, `.settle()`, `.reset()`;
    the tables the test made are dropped when it ends (unless --okura-keep-tables)."""
    yield okura_server
    if not request.config.getoption("okura_keep_tables"):
        okura_server.reset()
