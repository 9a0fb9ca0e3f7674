"""Names say what they hold (issue 38): no two public classes of okura share a name, and
no two modules share a basename unless they are the same kind of thing."""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "okura"

# Basenames several modules may share, because each is the same kind of thing in its
# own package.
SAME_KIND_MODULES = {
    "__init__.py": "packages",
    "engine.py": "storage engines: the protocol (storage/) and the PostgreSQL one",
    # expressions/ and partiql/ are two languages, each with its own front end
    "lexer.py": "a language's lexer",
    "parser.py": "a language's parser",
    "ast.py": "a language's syntax tree",
    "messages.py": "a language's error texts",
}
SAME_KIND_CLASSES = {
    "Token": "a lexer's token, in expressions/ and partiql/",
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_module_basenames_are_not_shared():
    found: dict[str, list[str]] = defaultdict(list)
    for module in _modules():
        found[module.name].append(str(module.relative_to(PACKAGE)))
    shared = {name: paths for name, paths in found.items()
              if len(paths) > 1 and name not in SAME_KIND_MODULES}
    assert not shared, shared


def test_public_class_names_are_not_shared():
    found: dict[str, list[str]] = defaultdict(list)
    for module in _modules():
        for node in ast.parse(module.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found[node.name].append(str(module.relative_to(PACKAGE)))
    shared = {name: paths for name, paths in found.items()
              if len(paths) > 1 and name not in SAME_KIND_CLASSES}
    assert not shared, shared


def test_allowlists_hold_only_shared_names():
    """An entry whose name is no longer shared is stale: remove it."""
    names = [module.name for module in _modules()]
    classes = [node.name for module in _modules()
               for node in ast.parse(module.read_text(encoding="utf-8")).body
               if isinstance(node, ast.ClassDef)]
    assert [name for name in SAME_KIND_MODULES if names.count(name) < 2] == []
    assert [name for name in SAME_KIND_CLASSES if classes.count(name) < 2] == []
