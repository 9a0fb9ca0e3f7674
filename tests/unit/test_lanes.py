"""The fast lane (`python -m pytest -m "not slow"`, README.md, Tests): a test that starts
a browser, Terraform, npm/node or mypy without the `slow` mark fails (tests/conftest.py)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import slow_program


def test_a_test_not_marked_slow_cannot_start_a_slow_tool():
    # refused before anything starts: whether node is installed here does not matter
    with pytest.raises(RuntimeError, match=r"^tests/unit/test_lanes\.py::"
                       r"test_a_test_not_marked_slow_cannot_start_a_slow_tool starts node: "
                       r"mark it @pytest.mark.slow \(README.md, Tests\)$"):
        subprocess.run(["/usr/bin/node", "--version"], capture_output=True)


def test_which_programs_are_slow():
    assert slow_program(["npm", "ci"]) == "npm"
    assert slow_program(["/opt/x/playwright/driver/node", "cli.js"]) == "node"
    assert slow_program("terraform apply -auto-approve") == "terraform"
    assert slow_program([sys.executable, "-m", "mypy"]) == "mypy"
    assert slow_program([sys.executable, "-m", "okura", "serve"]) is None
    assert slow_program(["aws", "dynamodb", "list-tables"]) is None
