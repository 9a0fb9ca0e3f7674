"""okura's modules that are compiled with mypyc where the machine has a C compiler
(setup.py; docs/decisions.md, "A compiled hot core"): the throttling gate, the metrics
sink, the one item write loop, the plain-request checks and GetItem's fast path, which
run for every request whose cost the issues bound. Without a compiler okura installs
as pure Python, the same code.

An editable install builds each compiled module beside its source, and Python imports
the compiled one: `stale` tells which sources changed since (run `pip install -e .`
again)."""
from __future__ import annotations

import importlib
import os

# each stays mypyc-compatible: its classes are neither subclassed nor monkeypatched from
# Python, and its annotations hold at run time (mypyc checks them)
MODULES = ("okura.core.throughput", "okura.core.metrics", "okura.core.items",
           "okura.values.plain", "okura.operations.get_item",
           "okura.operations.shared.single_item")


def sources() -> list[str]:
    """The compiled modules' source files, relative to the project's root (setup.py)."""
    return [name.replace(".", "/") + ".py" for name in MODULES]


def stale() -> list[str]:
    """Sources changed since the compiled module this process runs was built from them."""
    changed = []
    for name in MODULES:
        built = importlib.import_module(name).__file__ or ""
        if built.endswith(".py"):  # runs as pure Python
            continue
        source = os.path.join(os.path.dirname(built), name.rsplit(".", 1)[1] + ".py")
        if os.path.exists(source) and os.path.getmtime(source) > os.path.getmtime(built):
            changed.append(source)
    return changed
