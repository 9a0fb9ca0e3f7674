"""okura builds on a machine without a C compiler, as pure Python (setup.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_c_compiler_the_build_is_pure_python(tmp_path):
    source = tmp_path / "okura-src"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(ROOT / "okura", source / "okura",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    # the compiler the build finds fails at once, as a missing one does
    env = dict(os.environ, CC="false", LDSHARED="false")
    built = subprocess.run([sys.executable, "setup.py", "build"], cwd=source, env=env,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "okura: not compiled" in built.stdout  # it tried, and said why it gave up
    [lib] = (source / "build").glob("lib*")
    assert (lib / "okura" / "core" / "throughput.py").exists()
    assert (lib / "okura" / "compiled.py").exists()
    assert not list(lib.rglob("*.so"))
