"""okura's modules that are compiled with mypyc where the machine has a C compiler
(setup.py; docs/decisions.md, "A compiled hot core"): what every GetItem, PutItem,
UpdateItem and Query runs through, the requests whose cost the issues bound. Without a
compiler okura installs as pure Python, the same code.

An editable install builds each compiled module beside its source, and Python imports
the compiled one: `stale` tells which sources changed since (run `pip install -e .`
again)."""
from __future__ import annotations

import importlib
import os

# each stays mypyc-compatible: its classes are neither subclassed nor monkeypatched from
# Python, and its annotations hold at run time (mypyc checks them)
MODULES = (
    # the HTTP front and dispatch, and the request context
    "okura.server.http", "okura.server.guarded", "okura.server.auth", "okura.server.app",
    "okura.core.context", "okura.core.clock",
    # the operations bench/ measures, and what they share
    "okura.operations.get_item", "okura.operations.put_item", "okura.operations.update_item",
    "okura.operations.query", "okura.operations.shared.single_item",
    "okura.operations.shared.write_actions", "okura.operations.shared.paged_reads",
    "okura.operations.shared.key_condition", "okura.values.plain", "okura.values.numbers",
    "okura.values.sizes",
    # validation and expressions: every request checks its shape and resolves names
    "okura.shapes.nodes", "okura.shapes.checker", "okura.expressions.resolve",
    "okura.expressions.legacy", "okura.expressions.update",
    "okura.expressions.projection", "okura.expressions.evaluate",
    # core: the throttling gate, the metrics sink, the ledger, the item write loop, the reads
    "okura.core.throughput", "okura.core.metrics", "okura.core.capacity", "okura.core.items",
    "okura.core.reads", "okura.core.resolve", "okura.core.catalog", "okura.core.indexes",
    # the memory engine and key encoding
    "okura.storage.memory", "okura.storage.keys")


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
