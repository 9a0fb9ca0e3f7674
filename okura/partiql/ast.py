"""PartiQL statements. Their predicates and values are expressions-AST nodes (Path,
Const, Compare, Between, In, And, Or, Not, Call, Arith), so the one evaluator and
update code serve them; `Param` is a `?` awaiting its value, `Composite` a list,
map or set literal holding one."""
from __future__ import annotations

from dataclasses import dataclass
from typing import final


@dataclass(frozen=True, slots=True)
class Param:
    index: int


@dataclass(frozen=True, slots=True)
class Composite:
    """A literal that holds parameters: tag L (members), M ((name, member) pairs) or
    a set (tag None until bound: SS, NS or BS by its members' type)."""
    tag: str | None
    members: tuple


# The statements are final: the operations tell them apart by `type(stmt) is ...`, which
# a type checker narrows on for final classes only.
@final
@dataclass(frozen=True, slots=True)
class Select:
    table: str
    index: str | None
    projection: tuple | None  # Paths; None for *
    where: object | None
    order: tuple = ()  # ORDER BY's (Path, descending) pairs


@final
@dataclass(frozen=True, slots=True)
class Insert:
    table: str
    item: object  # a Const or Composite of tag M


@final
@dataclass(frozen=True, slots=True)
class Update:
    """SET a = set_add(a, v) and set_delete(a, v) are an UpdateExpression's ADD a v and
    DELETE a v (the set grows, or shrinks and goes when empty): `adds`, `deletes`."""
    table: str
    sets: tuple  # (Path, value node)
    removes: tuple  # Paths
    where: object | None
    returning: str | None = None  # RETURNING as a ReturnValues name: ALL_OLD, UPDATED_NEW...
    adds: tuple = ()  # (Path, value node)
    deletes: tuple = ()


@final
@dataclass(frozen=True, slots=True)
class Delete:
    table: str
    where: object | None
    returning: str | None = None  # ALL_OLD or None


@final
@dataclass(frozen=True, slots=True)
class Exists:
    """EXISTS(SELECT ...): a transaction's condition check."""
    select: Select
