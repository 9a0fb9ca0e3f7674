"""Applying a resolved UpdateExpression to an item, without touching the input.

`values` are the request's ExpressionAttributeValues, which the tree's `Value`
placeholders stand for (see evaluate.py).

Every SET value is computed from the item as it was before the update; then SET,
REMOVE, ADD and DELETE write into a copy. Containers on the way to a written
path are copied once (copy-on-write), so an update costs what it touches.
SET past the end of a list appends, in index order; REMOVE of list elements
takes the highest index first so the indexes all mean the original list.
"""
from __future__ import annotations

from typing import Any

from okura.values import numbers
from okura.expressions import messages
from okura.expressions.ast import Arith, Call, Path, UpdateExpression
from okura.expressions.evaluate import constant, get


def apply_update(upd: UpdateExpression, item: dict,
                 values: dict | None = None) -> tuple[dict, tuple[Path, ...]]:
    """The updated item and the paths the update wrote (for ReturnValues UPDATED_*)."""
    writer = _Writer(item, upd.legacy)
    if upd.sets:
        new = [_value(value, item, values) for _, value in upd.sets]
        for path, value in _in_order(zip((p for p, _ in upd.sets), new), _ascending):
            writer.set(path.elements, value)
    if upd.removes:
        for path in _in_order(upd.removes, _descending):
            writer.remove(path.elements)
    for path, node in upd.adds:
        value = constant(node, values)
        assert value is not None  # ADD's value is a Value or a Const
        writer.add(path.elements, value)
    for path, node in upd.deletes:
        value = constant(node, values)
        assert value is not None  # so is DELETE's
        writer.delete(path.elements, value)
    return writer.item, upd.paths


def _in_order(actions, key):
    """The actions in the order they apply (one action needs no sorting)."""
    actions = tuple(actions)
    return actions if len(actions) < 2 else sorted(actions, key=key)


def _ascending(action) -> tuple:
    return tuple((1, e) if type(e) is int else (0, e) for e in action[0].elements)


def _descending(path: Path) -> tuple:
    return tuple((1, -e) if type(e) is int else (0, e) for e in path.elements)


def _value(node, item: dict, values: dict | None) -> dict:
    """A SET action's value, computed against the item before the update."""
    t = type(node)
    if t is Path:
        value = get(item, node.elements)
        if value is None:
            raise messages.missing_attribute()
        return value
    if t is Arith:
        left, right = _value(node.left, item, values), _value(node.right, item, values)
        if "N" not in left or "N" not in right:
            raise messages.wrong_data_type()
        combine = numbers.add if node.op == "+" else numbers.subtract
        return {"N": combine(left["N"], right["N"])}
    if t is Call and node.name == "if_not_exists":
        current = get(item, node.args[0].elements)
        return current if current is not None else _value(node.args[1], item, values)
    if t is Call and node.name == "list_append":
        first, second = _value(node.args[0], item, values), _value(node.args[1], item, values)
        if "L" not in first or "L" not in second:
            raise messages.wrong_data_type()
        return {"L": first["L"] + second["L"]}
    value = constant(node, values)
    if value is None:
        raise TypeError(f"not an update value: {node!r}")
    return value


class _Writer:
    __slots__ = ("item", "fresh", "legacy")

    def __init__(self, item: dict, legacy: bool = False):
        self.item = dict(item)
        self.fresh: set[int] = set()  # ids of the maps and lists this update has copied
        self.legacy = legacy

    def wrong_type(self):
        # AttributeUpdates' ADD and DELETE word it as users quote it from DynamoDBMapper
        return messages.legacy_type_mismatch() if self.legacy else messages.wrong_data_type()

    def parent(self, elements: tuple):
        """The (copied) map members or list holding the path's last element; None if there is none."""
        container: Any = self.item  # a map's members or a list, level by level
        if len(elements) == 1:  # a top-level attribute: the commonest
            return container
        for depth in range(len(elements) - 1):
            e = elements[depth]
            if type(e) is int:
                if e >= len(container):
                    return None
                value = container[e]
            else:
                value = container.get(e)
                if value is None:
                    return None
            kind = "L" if type(elements[depth + 1]) is int else "M"
            inner = value.get(kind)
            if inner is None:
                return None
            if id(inner) not in self.fresh:
                inner = list(inner) if kind == "L" else dict(inner)
                self.fresh.add(id(inner))
                container[e] = {kind: inner}
            container = inner
        return container

    def writable_parent(self, elements: tuple):
        container = self.parent(elements)
        if container is None:
            raise messages.invalid_update_path()
        return container

    def set(self, elements: tuple, value: dict) -> None:
        _put(self.writable_parent(elements), elements[-1], value)

    def remove(self, elements: tuple) -> None:
        _drop(self.writable_parent(elements), elements[-1])

    def add(self, elements: tuple, value: dict) -> None:
        container = self.writable_parent(elements)
        last = elements[-1]
        existing = _current(container, last)
        kind = next(iter(value))
        if existing is None:
            result = value
        elif kind not in existing:
            raise self.wrong_type()
        elif kind == "N":
            result = {"N": numbers.add(existing["N"], value["N"])}
        elif kind == "L":  # AttributeUpdates' ADD of a list appends (recorded from DynamoDB)
            result = {"L": existing["L"] + value["L"]}
        else:
            # checked set members are normalised numbers and canonical base64, so equal
            # members have equal text
            members = existing[kind]
            known = set(members)
            result = {kind: members + [m for m in value[kind] if m not in known]}
        _put(container, last, result)

    def delete(self, elements: tuple, value: dict) -> None:
        container = self.writable_parent(elements)
        last = elements[-1]
        existing = _current(container, last)
        if existing is None:
            return
        kind = next(iter(value))
        if kind not in existing:
            raise self.wrong_type()
        gone = set(value[kind])
        kept = [m for m in existing[kind] if m not in gone]
        if kept:
            _put(container, last, {kind: kept})
        else:
            _drop(container, last)  # DynamoDB has no empty sets: the attribute goes


def _current(container, last) -> dict | None:
    if type(last) is int:
        return container[last] if last < len(container) else None
    return container.get(last)


def _put(container, last, value: dict) -> None:
    if type(last) is int and last >= len(container):
        container.append(value)
    else:
        container[last] = value


def _drop(container, last) -> None:
    if type(last) is int:
        if last < len(container):
            del container[last]
    else:
        container.pop(last, None)
