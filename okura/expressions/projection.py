"""ProjectionExpression semantics: keep only the listed document paths of an item.

Paths are merged into a tree once per expression, so projecting each item of a
Query or Scan walks the tree, not the path list. Selected list elements keep
their order and close up ([a[3], a[1]] of a list gives its elements 1 and 3);
a map or list from which nothing is selected is left out.
"""
from __future__ import annotations


class Projection:
    __slots__ = ("paths", "tree")

    def __init__(self, paths):
        self.paths = tuple(paths)
        tree: dict = {}
        for path in self.paths:
            node = tree
            *parents, last = path.elements
            for e in parents:
                child = node.get(e)
                if child is None:
                    child = node[e] = {}
                node = child
            node[last] = None  # the whole value; overlap rules keep nothing beneath it
        self.tree = tree

    def __repr__(self) -> str:
        return f"Projection({list(map(str, self.paths))})"


def project(projection: Projection, item: dict) -> dict:
    return _members(item, projection.tree)


def _members(members: dict, tree: dict) -> dict:
    out = {}
    for name, subtree in tree.items():
        value = members.get(name)
        if value is None:
            continue
        if subtree is not None:
            value = _value(value, subtree)
            if value is None:
                continue
        out[name] = value
    return out


def _value(value: dict, tree: dict) -> dict | None:
    if type(next(iter(tree))) is int:
        items = value.get("L")
        if items is None:
            return None
        picked = []
        for index in sorted(tree):
            if index < len(items):
                subtree = tree[index]
                element = items[index] if subtree is None else _value(items[index], subtree)
                if element is not None:
                    picked.append(element)
        return {"L": picked} if picked else None
    members = value.get("M")
    if members is None:
        return None
    kept = _members(members, tree)
    return {"M": kept} if kept else None
