"""DynamoDB's PartiQL: parse once per text, bind `?` parameters per request.

    stmt = partiql.statement(text, parameters)   # Select | Insert | Update | Delete | Exists

Predicates and values are expressions-AST nodes, evaluated by expressions.evaluate.
"""
from __future__ import annotations

from dataclasses import fields, is_dataclass
from functools import lru_cache

from okura.expressions.ast import Const
from okura.partiql import messages
from okura.partiql.ast import Composite, Delete, Exists, Insert, Param, Select, Update
from okura.partiql.parser import parse, wire

__all__ = ["Delete", "Exists", "Insert", "Select", "Update", "statement"]

_parse = lru_cache(maxsize=1024)(parse)


def statement(text: str, parameters: list | None):
    node, count = _parse(text)
    if count != len(parameters or ()):
        raise messages.parameter_count()
    return _bind(node, parameters) if parameters else node  # count == len(parameters)


def _bind(node, parameters: list):
    t = type(node)
    if t is Param:
        return Const(parameters[node.index])
    if t is Composite:
        return Const(wire(node.tag, node.members, lambda m: _bind(m, parameters).value))
    if t is tuple:
        return tuple(_bind(member, parameters) for member in node)
    if t is Const or not is_dataclass(node):
        return node
    return t(*(_bind(getattr(node, f.name), parameters) for f in fields(node)))
