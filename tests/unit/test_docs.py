"""docs/design.md names only paths that exist.

A path is a word with a slash or a file name (.py, .md, .json). Outside the Layout block
it is read from the repository's root or from okura/ (the prose says `core/items.py`); a
bare file name must exist somewhere in the repository. Inside the Layout block each entry
is relative to the directory above it, and the names in its description to its own
directory or any directory above that (`triggers/`'s text may name `server/lambda_api.py`).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
DESIGN = ROOT / "docs" / "design.md"
TOP = {"okura", "tests", "bench", "tools", "docs"}
PACKAGES = {p.name for p in (ROOT / "okura").iterdir() if p.is_dir()}
# A word that starts a path: not inside a URL path (`/okura/reset`) or a longer word.
NAME = re.compile(r"(?<![\w/.<>-])\w[\w.-]*(?:/[\w.-]+)*/?")
FILE = re.compile(r"\.(py|md|json)$")
ENTRY = re.compile(r"^( {0,8})(\w[\w.-]*(?:/[\w.-]+)*/?)(?=\s|$)")


def file_names() -> set[str]:
    """Every file name in the repository, outside hidden and installed directories."""
    names: set[str] = set()
    for _, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "node_modules"]
        names.update(files)
    return names


def named(text: str, layout: bool = False) -> list[str]:
    """The words of text that name a path: a file name, or a word with a slash that starts
    with a directory of the repository or okura/ (in the layout, any word ending in one)."""
    words = (w.rstrip(".") for w in NAME.findall(text))
    return [w for w in words if FILE.search(w) or (
        "/" in w and (layout and w.endswith("/") or w.split("/")[0] in TOP | PACKAGES))]


def layout_and_prose() -> tuple[list[str], str]:
    text = DESIGN.read_text(encoding="utf-8")
    match = re.search(r"^## Layout\n```\n(.*?)^```", text, re.S | re.M)
    assert match, "design.md has no Layout block"
    return match.group(1).splitlines(), text[: match.start()] + text[match.end():]


def test_layout_names_existing_paths():
    missing: list[str] = []
    stack: list[tuple[int, Path]] = []  # (indent, directory) of the entries above
    here = ROOT
    for line in layout_and_prose()[0]:
        entry = ENTRY.match(line)
        rest = line
        if entry:
            indent, name = len(entry.group(1)), entry.group(2)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            parent = stack[-1][1] if stack else ROOT
            path = parent / name
            if not path.exists():
                missing.append(f"{name} (under {parent.relative_to(ROOT)})")
            here = path if name.endswith("/") else parent
            if name.endswith("/"):
                stack.append((indent, path))
            rest = line[entry.end():]
        bases = [here, *here.parents]
        for word in named(rest, layout=True):
            if not any((base / word).exists() for base in bases if ROOT in (base, *base.parents)):
                missing.append(f"{word} (in the text of {here.relative_to(ROOT)})")
    assert not missing, missing


def test_prose_names_existing_paths():
    files = file_names()
    missing = [word for word in named(layout_and_prose()[1]) if not (
        (ROOT / word).exists() or (ROOT / "okura" / word).exists()
        if "/" in word else word in files)]
    assert not missing, missing
