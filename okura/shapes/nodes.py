"""Compiled request shapes: one node per model shape, checking a parsed JSON value.

A node's `check(value, path, errs)` raises DynamoDB's SerializationException at
the first value of the wrong JSON type (Coral fails while deserialising, before
any constraint is looked at) and appends each violated constraint to `errs` as
(path, value, shape name, constraint text); the checker renders them at the end.
Scalar nodes also answer `violations(value)` and list every constraint in
`bracket`, for the "Member must satisfy constraint: [...]" form DynamoDB uses
for list members and map keys and values.

`valid(value)` is the fast path every request takes first: True when the value
has the right JSON types and meets every constraint, without building a path or
an error; only a False leads to `check`, which finds and words the errors.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from okura import errors

NOT_NULL = "Member must not be null"
_DICT_FOUND = "Start of structure or map found where not expected"
_LIST_FOUND = "Start of list found where not expected"
_SCALAR_FOUND = "Unexpected field type"
_TOKENS = {str: "STRING_VALUE", int: "NUMBER_VALUE", float: "NUMBER_VALUE",
           bool: "BOOLEAN_VALUE"}  # BOOLEAN_VALUE: unverified


def mismatch(value, expected: str | None) -> errors.DynamoError:
    """The SerializationException for `value` where a `expected` scalar (None: an aggregate) belongs."""
    if type(value) is dict:
        return errors.serialization(_DICT_FOUND)
    if type(value) is list:
        return errors.serialization(_LIST_FOUND)
    if expected is None:
        return errors.serialization(_SCALAR_FOUND)
    # "NUMBER_VALUE cannot be converted to String" is verified; the other pairs follow it (unverified).
    return errors.serialization(f"{_TOKENS[type(value)]} cannot be converted to {expected}")


# A constraint test: (fails on this value?, the constraint's text)
_Test = tuple[Callable[[Any], bool], str]
# One violated constraint: (path, value, shape name or None, constraint text)
Violation = tuple[str, Any, str | None, str]


def _length(min_: int | None, max_: int | None) -> list[_Test]:
    tests: list[_Test] = []
    if max_ is not None:
        tests.append((lambda n: n > max_, f"Member must have length less than or equal to {max_}"))
    if min_ is not None:
        tests.append((lambda n: n < min_, f"Member must have length greater than or equal to {min_}"))
    return tests


def _utf16_length(text: str) -> int:
    # Java measures strings in UTF-16 code units.
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


class Node:
    __slots__ = ("name", "bracket")
    inner = False  # whether check_inner has anything to do

    def __init__(self, name: str):
        self.name = name
        self.bracket: list[str] = []

    def typecheck(self, value) -> None:
        raise NotImplementedError

    def valid(self, value) -> bool:
        try:
            self.typecheck(value)
        except errors.DynamoError:
            return False
        return not self.violations(value)

    def violations(self, value) -> list[str]:
        return []

    def check_inner(self, value, path: str, errs: list[Violation]) -> None:
        pass

    def check(self, value, path: str, errs: list[Violation]) -> None:
        self.typecheck(value)
        for text in self.violations(value):
            errs.append((path, value, self.name, text))
        if self.inner:
            self.check_inner(value, path, errs)


class StringNode(Node):
    __slots__ = ("tests", "nested_tests", "low", "high", "regex", "allowed")

    def __init__(self, name: str, spec: dict):
        super().__init__(name)
        self.low, self.high = spec.get("min", 0), spec.get("max", 1 << 62)
        self.regex = re.compile(spec.get("py_pattern", spec["pattern"])) if "pattern" in spec else None
        self.allowed = frozenset(spec["enum"]) if "enum" in spec else None
        pattern = spec.get("pattern")
        # mypy infers no type for a lambda with a default argument
        lengths: list[_Test] = [(lambda s, fails=fails: fails(_utf16_length(s)), text)  # type: ignore[misc]
                                for fails, text in _length(spec.get("min"), spec.get("max"))]
        others: list[_Test] = []
        if pattern is not None:
            regex = re.compile(spec.get("py_pattern", pattern))
            others.append((lambda s: regex.fullmatch(s) is None,
                           f"Member must satisfy regular expression pattern: {pattern}"))
        if "enum" in spec:
            allowed = frozenset(spec["enum"])
            others.append((lambda s: s not in allowed,
                           f"Member must satisfy enum value set: [{', '.join(spec['enum'])}]"))
        # Recorded responses put the pattern before the length for a top-level member
        # ('backupName', 'exclusiveStartTableName') and after it for a nested one
        # ('globalSecondaryIndexes.1.member.indexName'); the bracketed form lists
        # the lengths first, maximum before minimum.
        self.tests = others + lengths
        self.nested_tests = lengths + others
        self.bracket = [text for _, text in self.nested_tests]

    def typecheck(self, value) -> None:
        if type(value) is not str:
            raise mismatch(value, "String")

    def valid(self, value) -> bool:
        """True when `value` is a string that meets every constraint: the common case,
        tested first (every string of every request: no call it can spare)."""
        return (type(value) is str
                and self.low <= (len(value) if value.isascii() else _utf16_length(value))
                <= self.high
                and (self.regex is None or self.regex.fullmatch(value) is not None)
                and (self.allowed is None or value in self.allowed))

    def violations(self, value) -> list[str]:
        return [] if self.valid(value) else [text for fails, text in self.nested_tests
                                              if fails(value)]

    def check(self, value, path: str, errs: list[Violation]) -> None:
        if type(value) is not str:
            raise mismatch(value, "String")
        if self.valid(value):
            return
        for fails, text in self.tests if "." not in path else self.nested_tests:
            if fails(value):
                errs.append((path, value, self.name, text))


class NumberNode(Node):
    """An Integer or Long member given as 1.5 is read as Java's JSON readers coerce it
    into an int, truncated (unverified against DynamoDB's front end: no reply recorded);
    StructureNode.check_inner rewrites it, so operations see only ints."""
    __slots__ = ("java_type", "tests", "integral")

    def __init__(self, name: str, spec: dict):
        super().__init__(name)
        self.java_type = {"integer": "Integer", "long": "Long", "double": "Double"}[spec["type"]]
        self.integral = self.java_type != "Double"
        low, high = spec.get("min"), spec.get("max")
        self.tests: list[_Test] = []
        if low is not None:
            self.tests.append((lambda n: n < low, f"Member must have value greater than or equal to {low}"))
        if high is not None:
            self.tests.append((lambda n: n > high, f"Member must have value less than or equal to {high}"))
        self.bracket = [text for _, text in self.tests]

    def typecheck(self, value) -> None:
        kind = type(value)
        if kind is not int and kind is not float:
            raise mismatch(value, self.java_type)

    def valid(self, value) -> bool:
        kind = type(value)
        return (kind is int or (kind is float and not self.integral)) and not self.violations(value)

    def violations(self, value) -> list[str]:
        return [text for fails, text in self.tests if fails(value)]


class BooleanNode(Node):
    __slots__ = ()

    def typecheck(self, value) -> None:
        if type(value) is not bool:
            raise mismatch(value, "Boolean")

    def valid(self, value) -> bool:
        return type(value) is bool


class TimestampNode(Node):
    """Epoch seconds, as every SDK sends them over the JSON protocol."""
    __slots__ = ()

    def typecheck(self, value) -> None:
        if type(value) is not int and type(value) is not float:
            raise mismatch(value, "Date")  # unverified


class AttributeValueNode(Node):
    """An AttributeValue: a JSON object; its content is checked by okura.values."""
    __slots__ = ()

    def typecheck(self, value) -> None:
        if type(value) is not dict:
            raise mismatch(value, None)

    def valid(self, value) -> bool:
        return type(value) is dict

    def check(self, value, path: str, errs: list[Violation]) -> None:
        if type(value) is not dict:
            raise mismatch(value, None)


class StructureNode(Node):
    __slots__ = ("members", "by_wire", "nodes", "required")
    inner = True

    def __init__(self, name: str, members: Iterable[tuple[str, str, Node, bool]] = ()):
        super().__init__(name)
        self.set_members(members)

    def set_members(self, members: Iterable[tuple[str, str, Node, bool]]) -> None:
        """members: (wire name, path name, node, required), in DynamoDB's reporting order."""
        self.members = list(members)
        self.by_wire = {wire: (camel, node) for wire, camel, node, _ in self.members}
        self.nodes = {wire: node for wire, _, node, _ in self.members}
        self.required = tuple(wire for wire, _, _, required in self.members if required)

    def typecheck(self, value) -> None:
        if type(value) is not dict:
            raise mismatch(value, None)

    def valid(self, value) -> bool:
        if type(value) is not dict:
            return False
        nodes = self.nodes
        for wire, item in value.items():
            node = nodes.get(wire)
            if node is not None and item is not None and not node.valid(item):
                return False
        for wire in self.required:
            if value.get(wire) is None:
                return False
        return True

    def check_inner(self, value, path: str, errs: list[Violation]) -> None:
        # Walk the request in document order, as Coral deserialises it, so the first
        # wrongly typed value is the one reported; only when a constraint fails walk
        # again in DynamoDB's reporting order to list the errors as it does.
        prefix = path + "." if path else ""
        before = len(errs)
        by_wire = self.by_wire
        for wire, item in value.items():
            entry = by_wire.get(wire)
            if entry is not None and item is not None:
                node = entry[1]
                node.check(item, prefix + entry[0], errs)
                if type(item) is float and type(node) is NumberNode and node.integral:
                    value[wire] = int(item)
        if len(errs) == before:
            for wire in self.required:
                if value.get(wire) is None:
                    break
            else:
                return
        del errs[before:]
        for wire, camel, node, required in self.members:
            item = value.get(wire)
            if item is None:
                if required:
                    errs.append((prefix + camel, None, None, NOT_NULL))
            else:
                node.check(item, prefix + camel, errs)

    def check(self, value, path: str, errs: list[Violation]) -> None:
        if type(value) is not dict:
            raise mismatch(value, None)
        self.check_inner(value, path, errs)


def _check_elements(node: Node, items, paths, whole, whole_path: str, whole_shape: str,
                    errs: list[Violation], form: str) -> None:
    """Check collection elements: scalars as one bracketed error on the whole, others each
    at its path; a null element is missing a member DynamoDB requires (unverified: what
    it answers is not recorded, but never a value an operation can use)."""
    if None in items:
        paths = list(paths)
        errs.extend((path, None, None, NOT_NULL) for item, path in zip(items, paths) if item is None)
    if node.bracket:
        for item in items:
            if item is not None:
                node.typecheck(item)
        if any(item is not None and node.violations(item) for item in items):
            errs.append((whole_path, whole, whole_shape, f"{form} must satisfy constraint: [{', '.join(node.bracket)}]"))
    if node.inner:
        for item, path in zip(items, paths):
            if item is not None:
                node.typecheck(item)
                node.check_inner(item, path, errs)
    elif not node.bracket:
        for item in items:
            if item is not None:
                node.typecheck(item)


class _Collection(Node):
    __slots__ = ("tests", "low", "high")
    inner = True

    def __init__(self, name: str, spec: dict):
        super().__init__(name)
        self.low, self.high = spec.get("min", 0), spec.get("max", 1 << 62)  # for `valid`
        self.tests = _length(spec.get("min"), spec.get("max"))
        self.bracket = [text for _, text in self.tests]

    def violations(self, value) -> list[str]:
        return [text for fails, text in self.tests if fails(len(value))]


class ListNode(_Collection):
    __slots__ = ("member",)
    member: Node  # set by compile_shape once the member's node exists

    def typecheck(self, value) -> None:
        if type(value) is not list:
            raise mismatch(value, None)

    def valid(self, value) -> bool:
        # loops, not all() over a generator: a generator and its function are made per call
        if type(value) is not list or not self.low <= len(value) <= self.high:
            return False
        member = self.member
        for item in value:
            if item is None or not member.valid(item):
                return False
        return True

    def check_inner(self, value, path: str, errs: list[Violation]) -> None:
        paths = (f"{path}.{i}.member" for i in range(1, len(value) + 1))
        _check_elements(self.member, value, paths, value, path, self.name, errs, "Member")


class MapNode(_Collection):
    __slots__ = ("key", "value")
    key: Node  # both set by compile_shape
    value: Node

    def typecheck(self, value) -> None:
        if type(value) is not dict:
            raise mismatch(value, None)

    def valid(self, value) -> bool:
        if type(value) is not dict or not self.low <= len(value) <= self.high:
            return False
        key, member = self.key, self.value
        for k, item in value.items():
            if item is None or not key.valid(k) or not member.valid(item):
                return False
        return True

    def check_inner(self, value, path: str, errs: list[Violation]) -> None:
        key = self.key
        if key.bracket and any(key.violations(k) for k in value):
            errs.append((path, value, self.name, f"Map keys must satisfy constraint: [{', '.join(key.bracket)}]"))
        paths = (f"{path}.{k}.member" for k in value)
        _check_elements(self.value, list(value.values()), paths, value, path, self.name, errs, "Map value")


_SCALARS = {"string": StringNode, "integer": NumberNode, "long": NumberNode, "double": NumberNode}
_PLAIN = {"boolean": BooleanNode, "timestamp": TimestampNode, "attributevalue": AttributeValueNode}


def compile_shape(name: str, shapes: dict, memo: dict[str, Node]) -> Node:
    """The node for shape `name`, built once per model and shared (`memo`)."""
    node = memo.get(name)
    if node is not None:
        return node
    spec = shapes[name]
    kind = spec["type"]
    if kind in _SCALARS:
        node = _SCALARS[kind](name, spec)
    elif kind in _PLAIN:
        node = _PLAIN[kind](name)
    elif kind == "structure":
        node = memo[name] = StructureNode(name)  # registered first: shapes may nest themselves
        node.set_members((wire, camel, compile_shape(shape, shapes, memo), required)
                         for wire, camel, shape, required in spec["members"])
    elif kind == "list":
        node = ListNode(name, spec)
        node.member = compile_shape(spec["member"], shapes, memo)
    elif kind == "map":
        node = MapNode(name, spec)
        node.key = compile_shape(spec["key"], shapes, memo)
        node.value = compile_shape(spec["value"], shapes, memo)
    else:
        raise ValueError(f"shape {name}: unknown type {kind}")
    memo[name] = node
    return node
