"""An operation's request shape (`of(name)`), and its check of a request as DynamoDB's
front end does it: the server's one gate (server/router.py) runs it before the handler.

Wrongly typed JSON raises SerializationException at once. Constraint violations
are gathered over the whole request, in DynamoDB's order, into one
ValidationException: "N validation error(s) detected: Value ... at '<path>'
failed to satisfy constraint: ...; ...". Members DynamoDB does not know are
ignored, and a JSON null counts as an absent member.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from okura import arns, errors
from okura.shapes.nodes import Node, StructureNode, Violation, compile_shape, mismatch
from okura.shapes.render import render

MAX_LISTED = 10  # the count covers every error; the list stops after ten (unverified)

_MODEL = json.loads((Path(__file__).with_name("model.json")).read_text())

# A table-name member that also takes an ARN: a name must follow these rules,
# reported after the model's own checks pass, length before pattern (recorded responses);
# an operation marked name_first (CreateTable) reports a bad name alone, whatever else
# is wrong (issue 39, recorded).
_NAME_PATTERN = "[a-zA-Z0-9_.-]+"
_NAME_RE = re.compile(_NAME_PATTERN)


class Shape:
    """One operation's input shape, compiled."""

    __slots__ = ("name", "root", "shapes", "names", "name_first")

    def __init__(self, name: str, root: StructureNode, shapes: dict, names: tuple[str, ...],
                 name_first: bool = False):
        self.name = name  # the operation's ("PutItem")
        self.root = root
        self.shapes = shapes
        self.names = names  # table-name members that also take an ARN
        self.name_first = name_first  # a bad name is reported alone

    def check(self, body: Any) -> None:
        """Validate `body` (any JSON value: not a dict is a SerializationException);
        raises a DynamoError or returns None."""
        if self.root.valid(body) and (not self.names or _names_valid(self, body)):
            return
        if type(body) is not dict:
            raise mismatch(body, None)
        errs: list[Violation] = []
        self.root.check_inner(body, "", errs)  # raises at once for a wrongly typed member
        if self.names and (self.name_first or not errs):
            named: list[Violation] = []
            _check_names(self, body, named)
            if named:
                errs = named
        if errs:
            raise _aggregate(errs, self.shapes)


def _compile(name: str, entry: dict, shapes: dict, memo: dict[str, Node]) -> Shape:
    root = compile_shape(entry["input"], shapes, memo) if entry["input"] else StructureNode("")
    assert isinstance(root, StructureNode)  # an operation's input shape is a structure
    drop = entry.get("drop")
    if drop:
        root = _without(root, drop, shapes)
    return Shape(name, root, shapes, tuple(entry.get("name_or_arn", ())),
                 entry.get("name_first", False))


def _without(root: StructureNode, drop: dict, shapes: dict) -> StructureNode:
    """A copy of `root` whose members in `drop` lose the named constraints
    ("required": the member becomes optional)."""
    members = []
    for wire, camel, node, required in root.members:
        dropped = drop.get(wire, ())
        if "required" in dropped:
            required = False
        if any(key != "required" for key in dropped):
            spec = {k: v for k, v in shapes[node.name].items() if k not in dropped}
            # members with constraints to drop are scalars or collections: built from a
            # spec, sharing the original's element nodes
            copy = type(node)(node.name, spec)  # type: ignore[call-arg]
            for part in ("member", "key", "value"):
                if hasattr(node, part):
                    setattr(copy, part, getattr(node, part))
            node = copy
        members.append((wire, camel, node, required))
    return StructureNode(root.name, members)


def _build() -> dict[str, Shape]:
    operations = {}
    for service in _MODEL["services"].values():
        shapes = service["shapes"]
        memo: dict[str, Node] = {}
        for name, entry in service["operations"].items():
            operations[name] = _compile(name, entry, shapes, memo)
    return operations


_SHAPES = _build()
OPERATIONS = frozenset(_SHAPES)


def of(operation: str) -> Shape:
    """The input shape of a DynamoDB or DynamoDB Streams operation ("PutItem"); KeyError
    for a name the model does not know."""
    return _SHAPES[operation]


def members(shape: str) -> frozenset[str]:
    """The wire names of a structure shape's members (e.g. "Put": a TransactWriteItems
    action's), as DynamoDB's model declares them."""
    for service in _MODEL["services"].values():
        spec = service["shapes"].get(shape)
        if spec is not None and spec["type"] == "structure":
            return frozenset(wire for wire, *_ in spec["members"])
    raise KeyError(shape)


def _names_valid(op: Shape, body: dict) -> bool:
    for wire in op.names:
        name = body.get(wire)
        if not (name is None or name.startswith(arns.PREFIX)
                or (3 <= len(name) <= 255 and _NAME_RE.fullmatch(name) is not None)):
            return False
    return True


def _check_names(op: Shape, body: dict, errs: list[Violation]) -> None:
    for wire in op.names:
        name = body.get(wire)
        if name is None or name.startswith(arns.PREFIX):
            continue
        path = wire[0].lower() + wire[1:]
        if len(name) < 3:
            errs.append((path, name, None, "Member must have length greater than or equal to 3"))
        elif len(name) > 255:
            errs.append((path, name, None, "Member must have length less than or equal to 255"))
        if _NAME_RE.fullmatch(name) is None:
            errs.append((path, name, None, f"Member must satisfy regular expression pattern: {_NAME_PATTERN}"))


def _aggregate(errs: list[Violation], shapes: dict) -> errors.DynamoError:
    listed = "; ".join(
        f"Value {_value(value, shape, shapes)} at '{path}' failed to satisfy constraint: {text}"
        for path, value, shape, text in errs[:MAX_LISTED])
    count = len(errs)
    return errors.validation(f"{count} validation error{'' if count == 1 else 's'} detected: {listed}")


def _value(value, shape: str | None, shapes: dict) -> str:
    if value is None:
        return "null"
    return f"'{render(value, shape, shapes) if shape else value}'"
