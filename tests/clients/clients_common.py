"""Real clients against okura (issue 25): each test drives one tool as its users do, and
is skipped, saying why, only when that tool is not installed (a failure with
OKURA_REQUIRE_TOOLS=1, as .ci/run sets it; but aioboto3, left out of the test extra on
purpose, is only ever skipped). Each module imports the `endpoint` fixture: an okura
server embedded in this process (okura.running), started in milliseconds; the tools are
the slow part. (Not a conftest.py: tests/api's modules import
tests/conftest.py as `conftest`.)"""
from __future__ import annotations

import pytest

import okura


@pytest.fixture(scope="module")
def endpoint():
    with okura.running(memory=True) as url:
        yield url
