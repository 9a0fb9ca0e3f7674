"""The expression AST: small frozen dataclasses shared by every expression kind.

The parser produces trees whose paths may hold `Name` placeholders and whose
values are `Value` placeholders; resolution (placeholders.py) turns the names into plain
attribute names and checks the values, which stay placeholders: the evaluator and
the update code read them from the request's ExpressionAttributeValues. Legacy
request parameters and PartiQL are translated into these same nodes, their values
as `Const`.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Name:
    """An ExpressionAttributeNames placeholder (`#a`) inside a path."""
    placeholder: str


@dataclass(frozen=True, slots=True)
class Path:
    """A document path: attribute names (str, or Name before resolution) and list indexes (int)."""
    elements: tuple

    def __str__(self) -> str:
        # DynamoDB's rendering in overlap/conflict messages: [a, b, [0]]
        return "[" + ", ".join(f"[{e}]" if type(e) is int else str(e) for e in self.elements) + "]"


@dataclass(frozen=True, slots=True)
class Value:
    """An ExpressionAttributeValues placeholder (`:v`)."""
    placeholder: str


@dataclass(frozen=True, slots=True)
class Const:
    """A resolved attribute value in wire form ({"S": "x"})."""
    value: dict = field(hash=False)


@dataclass(frozen=True, slots=True)
class Call:
    """A function call; which names exist and where they may stand is checked after parsing."""
    name: str
    args: tuple


@dataclass(frozen=True, slots=True)
class Arith:
    """`+` or `-` in an update's SET value."""
    op: str
    left: object
    right: object


@dataclass(frozen=True, slots=True)
class Compare:
    op: str  # = <> < <= > >=
    left: object
    right: object


@dataclass(frozen=True, slots=True)
class Between:
    operand: object
    low: object
    high: object


@dataclass(frozen=True, slots=True)
class In:
    operand: object
    choices: tuple


@dataclass(frozen=True, slots=True)
class And:
    left: object
    right: object


@dataclass(frozen=True, slots=True)
class Or:
    left: object
    right: object


@dataclass(frozen=True, slots=True)
class Not:
    operand: object


# Nodes that are conditions by their form; a Call may be either (decided by its name).
BOOLEAN = (Compare, Between, In, And, Or, Not)


@dataclass(frozen=True, slots=True)
class UpdateExpression:
    """An UpdateExpression: one tuple of actions per clause, in expression order.

    sets: (Path, value node); removes: Path; adds/deletes: (Path, Value or Const).
    `paths`: every path the update writes, in clause then action order.
    """
    sets: tuple = ()
    removes: tuple = ()
    adds: tuple = ()
    deletes: tuple = ()
    legacy: bool = False  # from AttributeUpdates, whose type errors DynamoDB words its own way
    paths: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        # once per tree: a resolved tree is cached and serves many requests
        object.__setattr__(self, "paths", (
            *(p for p, _ in self.sets), *self.removes, *(p for p, _ in self.adds),
            *(p for p, _ in self.deletes)))


def unparse(node) -> str:
    """Expression text for a tree (fully parenthesised, so parsing it gives the tree back)."""
    t = type(node)
    if t is Path:
        out = []
        for e in node.elements:
            if type(e) is int:
                out.append(f"[{e}]")
            else:
                text = e.placeholder if type(e) is Name else e
                out.append("." + text if out else text)
        return "".join(out)
    if t is Value:
        return node.placeholder
    if t is Call:
        return f"{node.name}({', '.join(unparse(a) for a in node.args)})"
    if t is Arith:
        return f"{unparse(node.left)} {node.op} {_operand_text(node.right)}"
    if t is Compare:
        return f"{unparse(node.left)} {node.op} {unparse(node.right)}"
    if t is Between:
        return f"{unparse(node.operand)} BETWEEN {unparse(node.low)} AND {unparse(node.high)}"
    if t is In:
        return f"{unparse(node.operand)} IN ({', '.join(unparse(c) for c in node.choices)})"
    if t is And or t is Or:
        word = " AND " if t is And else " OR "
        return f"({unparse(node.left)}){word}({unparse(node.right)})"
    if t is Not:
        return f"NOT ({unparse(node.operand)})"
    if t is UpdateExpression:
        clauses = []
        for word, actions in (("SET", node.sets), ("REMOVE", node.removes),
                              ("ADD", node.adds), ("DELETE", node.deletes)):
            if not actions:
                continue
            if word == "SET":
                parts = [f"{unparse(p)} = {unparse(v)}" for p, v in actions]
            elif word == "REMOVE":
                parts = [unparse(p) for p in actions]
            else:
                parts = [f"{unparse(p)} {unparse(v)}" for p, v in actions]
            clauses.append(word + " " + ", ".join(parts))
        return " ".join(clauses)
    raise TypeError(f"not an expression node: {node!r}")


def _operand_text(node) -> str:
    # a - (b - c) differs from a - b - c: keep right-nested arithmetic in parentheses
    return f"({unparse(node)})" if type(node) is Arith else unparse(node)
