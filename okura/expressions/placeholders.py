"""Resolution: a parsed tree plus one request's ExpressionAttributeNames/Values.

Replaces `#name` placeholders by attribute names, reports undefined placeholders,
then applies the rules that depend on what the placeholders stand for (operand
types of constants, BETWEEN bounds, overlapping paths). `:value` placeholders are
checked but stay in the tree: the evaluator reads them from the request's values,
so a tree whose names are resolved serves every request unchanged, and a request
builds no nodes. A Resolver serves every expression of one request and, at
`finish()`, reports the placeholders none of them used.
"""
from __future__ import annotations

import re

from okura.expressions import messages
from okura.expressions.ast import (And, Arith, Between, Call, Compare, In, Name, Not, Or, Path,
                                   UpdateExpression, Value)
from okura.expressions.evaluate import constant
from okura.values.ordering import compare

_NAME_KEY = re.compile(r"#[A-Za-z0-9_]+")
_VALUE_KEY = re.compile(r":[A-Za-z0-9_]+")
_TYPE_NAMES = frozenset({"S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"})
_SETS = frozenset({"SS", "NS", "BS"})
_ADDABLE = _SETS | {"N"}
_ORDERED = ("S", "N", "B")
_SIZED = ("S", "B", "SS", "NS", "BS", "L", "M")


class Resolver:
    """The placeholders of one request, and which of them its expressions used."""
    __slots__ = ("names", "values", "used_names", "used_values", "_names_key")

    def __init__(self, names: dict | None, values: dict | None):
        if names is not None:
            _check_keys(names, "ExpressionAttributeNames", _NAME_KEY)
            for key, name in names.items():
                if not name:
                    raise messages.empty_name(key)
        if values is not None:
            _check_keys(values, "ExpressionAttributeValues", _VALUE_KEY)
        self.names = names or {}
        self.values = values or {}
        self.used_names: set[str] = set()
        self.used_values: set[str] = set()
        self._names_key: tuple | None = None

    @classmethod
    def of_names(cls, names_key: tuple) -> "Resolver":
        """A resolver of names alone (already checked), for resolving them once per
        (expression, names) rather than per request: see `names_key`."""
        resolver = cls(None, None)
        resolver.names = dict(names_key)
        resolver._names_key = names_key
        return resolver

    def names_key(self) -> tuple:
        """The request's names, hashable: with an expression's text, what fixes its paths."""
        if self._names_key is None:
            self._names_key = tuple(self.names.items())
        return self._names_key

    def name(self, placeholder: str, param: str) -> str:
        name = self.names.get(placeholder)
        if name is None:
            raise messages.undefined_name(param, placeholder)
        self.used_names.add(placeholder)
        return name

    def value(self, placeholder: str, param: str) -> dict:
        value = self.values.get(placeholder)
        if value is None:
            raise messages.undefined_value(param, placeholder)
        self.used_values.add(placeholder)
        return value

    def finish(self) -> None:
        """Reject placeholders that no expression of the request used (names first)."""
        if len(self.used_names) != len(self.names):
            unused = sorted(set(self.names) - self.used_names)
            raise messages.unused("ExpressionAttributeNames", unused)
        if len(self.used_values) != len(self.values):
            unused = sorted(set(self.values) - self.used_values)
            raise messages.unused("ExpressionAttributeValues", unused)


# The placeholders that matched each pattern: requests repeat the same few (bounded).
_MATCHED: dict[re.Pattern, set[str]] = {_NAME_KEY: set(), _VALUE_KEY: set()}
_MAX_MATCHED = 4096


def _check_keys(mapping: dict, parameter: str, pattern: re.Pattern) -> None:
    if not mapping:
        raise messages.empty_map(parameter)
    matched = _MATCHED[pattern]
    if mapping.keys() <= matched:
        return
    for key in mapping:
        if pattern.fullmatch(key) is None:
            raise messages.invalid_key(parameter, key)
    if len(matched) >= _MAX_MATCHED:
        matched.clear()
    matched.update(mapping)


class _Resolution:
    """One pass over a tree: `names` resolves the paths' placeholders, `values` checks the
    values' (a tree whose names were resolved before takes the second pass alone, and
    comes back as it is). A node is rebuilt only where a name in it was resolved."""
    __slots__ = ("resolver", "param", "names", "values")

    def __init__(self, resolver: Resolver, param: str, names: bool = True, values: bool = True):
        self.resolver = resolver
        self.param = param
        self.names = names
        self.values = values

    def path(self, path: Path) -> Path:
        if not self.names:
            return path
        elements = path.elements
        for e in elements:
            if type(e) is Name:
                break
        else:
            return path
        name = self.resolver.name
        return Path(tuple(name(e.placeholder, self.param) if type(e) is Name else e for e in elements))

    def constant(self, node) -> dict | None:
        """The value a constant node stands for, once checked; None for other nodes (and
        for placeholders in a pass that leaves values alone)."""
        if type(node) is Value and not self.values:
            return None
        return constant(node, self.resolver.values)

    def node(self, node):
        t = type(node)
        if t is Path:
            return self.path(node)
        if t is Value:
            if self.values:
                self.resolver.value(node.placeholder, self.param)
            return node
        if t is Compare:
            left, right = self.node(node.left), self.node(node.right)
            self.distinct(node.op, left, (right,))
            if node.op != "=" and node.op != "<>":  # only S, N and B are ordered
                self.operand_type(node.op, left, _ORDERED)
                self.operand_type(node.op, right, _ORDERED)
            return node if left is node.left and right is node.right else Compare(node.op, left, right)
        if t is And or t is Or:
            left, right = self.node(node.left), self.node(node.right)
            return node if left is node.left and right is node.right else t(left, right)
        if t is Not:
            operand = self.node(node.operand)
            return node if operand is node.operand else Not(operand)
        if t is Between:
            return self.between(node)
        if t is In:
            operand = self.node(node.operand)
            choices = _same(tuple(map(self.node, node.choices)), node.choices)
            self.distinct("IN", operand, choices)
            return node if operand is node.operand and choices is node.choices else In(operand, choices)
        if t is Call:
            return self.call(node)
        if t is Arith:
            left, right = self.node(node.left), self.node(node.right)
            self.operand_type(node.op, left, ("N",))
            self.operand_type(node.op, right, ("N",))
            return node if left is node.left and right is node.right else Arith(node.op, left, right)
        return node  # a Const

    def between(self, node: Between) -> Between:
        operand, low, high = self.node(node.operand), self.node(node.low), self.node(node.high)
        self.distinct("BETWEEN", operand, (low, high))
        low_value, high_value = self.constant(low), self.constant(high)
        if low_value is not None and high_value is not None:
            kinds = next(iter(low_value)), next(iter(high_value))
            for kind in kinds:
                if kind not in _ORDERED:  # no order among BOOL, NULL, sets, lists, maps
                    raise messages.operand_type(self.param, "BETWEEN", kind)
            if kinds[0] != kinds[1]:
                raise messages.between_types(self.param, low_value, high_value)
            if compare(low_value, high_value) > 0:
                raise messages.between_bounds(self.param, low_value, high_value)
        if operand is node.operand and low is node.low and high is node.high:
            return node
        return Between(operand, low, high)

    def call(self, node: Call) -> Call:
        name = node.name
        args = _same(tuple(map(self.node, node.args)), node.args)
        if name == "attribute_type":
            kind = self.constant(args[1])
            if kind is not None:
                self.operand_type(name, args[1], ("S",))
                if kind["S"] not in _TYPE_NAMES:
                    raise messages.attribute_type_name(self.param, kind["S"])
        elif name == "begins_with":
            for arg in args:
                self.operand_type(name, arg, ("S", "B"))
            self.distinct(name, args[0], args[1:])
        elif name == "contains":
            self.distinct(name, args[0], args[1:])
        elif name == "size":
            self.operand_type(name, args[0], _SIZED)
        elif name == "list_append":
            for arg in args:
                self.operand_type(name, arg, ("L",))
        return node if args is node.args else Call(name, args)

    def operand_type(self, operator: str, node, allowed: tuple) -> None:
        value = self.constant(node)
        if value is not None:
            kind = next(iter(value))
            if kind not in allowed:
                raise messages.operand_type(self.param, operator, kind)

    def action_operands(self, action: str, actions: tuple, allowed) -> None:
        """ADD and DELETE take sets (ADD also numbers) as their values."""
        if self.values:
            for _, node in actions:
                value = self.constant(node)
                assert value is not None  # ADD's and DELETE's values are Values (or Consts)
                kind = next(iter(value))
                if kind not in allowed:
                    raise messages.action_operand_type(action, kind)

    def distinct(self, operator: str, first, rest: tuple) -> None:
        if type(first) is Path and first in rest:
            raise messages.not_distinct(self.param, operator, str(first))


def _same(resolved: tuple, original: tuple) -> tuple:
    """The original tuple when resolution changed none of its nodes."""
    for a, b in zip(resolved, original):
        if a is not b:
            return resolved
    return original


def condition(node, resolver: Resolver, param: str, names: bool = True, values: bool = True):
    return _Resolution(resolver, param, names, values).node(node)


def update(upd: UpdateExpression, resolver: Resolver, names: bool = True,
           values: bool = True) -> UpdateExpression:
    """With `names`, the written paths are also checked for overlaps (they are final);
    without, the update comes back as it is, its values checked."""
    r = _Resolution(resolver, "UpdateExpression", names, values)
    sets = _actions(r, upd.sets)
    removes = tuple(map(r.path, upd.removes)) if names else upd.removes
    adds = _actions(r, upd.adds)
    r.action_operands("ADD", adds, _ADDABLE)
    deletes = _actions(r, upd.deletes)
    r.action_operands("DELETE", deletes, _SETS)
    if not names:
        return upd
    resolved = UpdateExpression(sets, removes, adds, deletes)
    check_overlaps(resolved.paths, "UpdateExpression")
    return resolved


def _actions(r: _Resolution, actions: tuple) -> tuple:
    """A clause's (path, value) actions resolved: as they are when their names were
    resolved before (the values are checked, never replaced)."""
    if not r.names:
        for _, value in actions:
            r.node(value)
        return actions
    return tuple((r.path(path), r.node(value)) for path, value in actions)


def projection(paths: tuple, resolver: Resolver) -> tuple:
    r = _Resolution(resolver, "ProjectionExpression")
    resolved = tuple(map(r.path, paths))
    check_overlaps(resolved, "ProjectionExpression")
    return resolved


def check_overlaps(paths, param: str) -> None:
    """Reject two paths where one contains the other, or that use one attribute as both map and list.

    A trie of the paths: each entry is [path ending here, children, first path through here].
    """
    root: dict = {}
    for path in paths:
        children, entry = root, None
        for e in path.elements:
            if children:
                other_key = next(iter(children))
                if type(other_key) is not type(e):
                    raise messages.paths_conflict(param, str(children[other_key][2]), str(path))
            entry = children.get(e)
            if entry is None:
                entry = children[e] = [None, {}, path]
            elif entry[0] is not None:
                raise messages.paths_overlap(param, str(entry[0]), str(path))
            children = entry[1]
        assert entry is not None  # a path has at least one element
        if children:
            raise messages.paths_overlap(param, str(entry[2]), str(path))
        entry[0] = path
