"""okura builds on a fresh machine: mypyc without okura's dependencies installed, and
pure Python without a C compiler (setup.py)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_fresh_machine_without_a_c_compiler_builds_pure_python(tmp_path):
    source = tmp_path / "okura-src"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(ROOT / "okura", source / "okura",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    # a Python with nothing installed, as on a fresh machine: pip's build environment
    # then holds only the build requirements, not okura's dependencies
    venv.create(tmp_path / "fresh", with_pip=False)
    # the compiler the build finds fails at once, as a missing one does
    env = dict(os.environ, CC="false", LDSHARED="false")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(tmp_path / "fresh" / "bin" / "python"),
         "wheel", "-v", "--no-deps", "-w", str(tmp_path / "dist"), str(source)],
        env=env, capture_output=True, text=True, timeout=300)
    output = built.stdout + built.stderr
    assert built.returncode == 0, output
    # mypyc compiled to C; only the C compiler failed, and the build said so
    assert "okura: not compiled (Command" in output, output
    [wheel] = (tmp_path / "dist").glob("okura-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "okura/core/throughput.py" in names and "okura/compiled.py" in names
    assert not [name for name in names if name.endswith(".so")]
