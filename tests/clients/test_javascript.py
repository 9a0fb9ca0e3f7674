"""The JavaScript SDK v3 (client, paginators, waiters, DocumentClient, Streams) through
node, from tests/clients/js. Its packages are installed there with `npm ci` from the
committed package-lock.json on the first run (node_modules/ is git-ignored); skipped when
node or npm is missing or the registry cannot be reached, a failure with
OKURA_REQUIRE_TOOLS=1."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from clients_common import endpoint  # noqa: F401 - a fixture
from conftest import unavailable

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "js")
NODE = shutil.which("node")


def _installed() -> None:
    """The SDK's packages in js/node_modules, installed now if they are not."""
    if os.path.isdir(os.path.join(HERE, "node_modules", "@aws-sdk", "lib-dynamodb")):
        return
    npm = shutil.which("npm")
    if npm is None:
        unavailable("npm is not installed: the JavaScript SDK cannot be installed")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=HERE,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        unavailable(f"npm ci could not install the JavaScript SDK (registry unreachable?): "
                    f"{last}")


@pytest.mark.slow  # npm and node (README.md, Tests)
def test_the_javascript_sdk_v3(endpoint):
    if NODE is None:
        unavailable("node is not installed")
    _installed()
    done = subprocess.run([NODE, "dynamodb.mjs", endpoint, "js-orders"], cwd=HERE,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["updated"] == {"pk": "doc", "sk": 0, "team": "blue", "tags": {},
                               "nested": {"n": 0, "ok": True}, "count": 5, "score": 1}
    assert seen["got"] == {"pk": "doc", "sk": 1, "team": "red", "tags": ["a", "b"],
                           "nested": {"n": 1, "ok": True}}
    assert seen["queryPage"] == {"keys": [19, 18, 17, 16], "more": True}
    assert seen["redCount"] == 15
    assert seen["scan"] == {"pages": 5, "scanned": 31}
    assert seen["cancelled"] == {"name": "TransactionCanceledException",
                                 "reasons": ["None", "ConditionalCheckFailed"]}
    assert seen["conditionFailed"] == "ConditionalCheckFailedException"
    assert seen["records"] == {"count": 32, "first": "INSERT", "modify": 1}
    assert seen["deleted"] is True
