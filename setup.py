"""Compiles the modules okura/compiled.py names with mypyc where the machine has a C
compiler and Python's headers (docs/decisions.md, "A compiled hot core"); without them
okura installs as pure Python, the same code, only slower. OKURA_PURE_PYTHON=1 skips the
compiling. Everything else about the package is in pyproject.toml."""
from __future__ import annotations

import importlib.util
import os

from setuptools import setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    """The compiled modules if they build; pure Python if not."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler, no headers: distutils' errors
            print(f"okura: not compiled ({error}); installing pure Python")


def _extensions() -> list:
    if os.environ.get("OKURA_PURE_PYTHON"):
        return []
    from mypyc.build import mypycify  # pyproject.toml's build requirements hold mypy

    # okura/compiled.py by its path: the package's dependencies are not installed yet
    spec = importlib.util.spec_from_file_location("compiled", "okura/compiled.py")
    assert spec is not None and spec.loader is not None
    compiled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compiled)
    # pip builds in an environment of its own, without okura's dependencies: mypy takes
    # what they return as Any (which is what the compiled code checks at run time)
    try:
        return mypycify(["--ignore-missing-imports", *compiled.sources()],
                        opt_level="3", group_name="okura_compiled")
    except SystemExit as error:  # mypyc reports what it could not compile, then exits
        print(f"okura: not compiled (mypyc: {error}); installing pure Python")
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
