"""mypy over okura/, configured in pyproject.toml ([tool.mypy]): the storage backends
against the Engine protocol, and every module whose errors are not (yet) ignored."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # the type checker (README.md, Tests)
@pytest.mark.timeout(300)  # a cold run checks every module; .mypy_cache makes later ones quick
def test_mypy_finds_no_errors() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, f"mypy failed:\n{done.stdout}{done.stderr}"
