"""Rules checked on a parsed expression before any name or value is looked at.

Reserved words, path depth, function names, their arity and where each may
stand, and the operator limits: all depend on the text alone, so they run once
per distinct expression (the parse cache keeps only trees that passed).
"""
from __future__ import annotations

from okura.expressions import messages
from okura.expressions.ast import And, Arith, Between, Call, Compare, In, Not, Or, Path, UpdateExpression
from okura.expressions.reserved import RESERVED

MAX_DEPTH = 32
MAX_IN_OPERANDS = 100
MAX_OPERATORS = 300

# name -> number of operands
CONDITION_FUNCTIONS = {"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
                       "begins_with": 2, "contains": 2}
CONDITION_OPERAND_FUNCTIONS = {"size": 1}
UPDATE_FUNCTIONS = {"if_not_exists": 2, "list_append": 2}
_ARITY = {**CONDITION_FUNCTIONS, **CONDITION_OPERAND_FUNCTIONS, **UPDATE_FUNCTIONS}
# functions whose first operand must be a document path (size() and attribute_type()
# also take a value: recorded from DynamoDB for attribute_type)
_PATH_FIRST = frozenset({"attribute_exists", "attribute_not_exists", "if_not_exists"})


class _Checker:
    __slots__ = ("param", "update", "operators")

    def __init__(self, param: str, update: bool):
        self.param = param
        self.update = update
        self.operators = 0

    def path(self, path: Path) -> None:
        elements = path.elements
        if len(elements) > MAX_DEPTH:
            raise messages.too_deep(self.param, len(elements))
        for e in elements:
            if type(e) is str and e.upper() in RESERVED:
                raise messages.reserved(self.param, e)

    def node(self, node, condition: bool) -> None:
        """Check `node`, which stands where a condition (or else an operand) belongs."""
        t = type(node)
        if t is Path:
            self.path(node)
            return
        if t is Call:
            self.call(node, condition)
            return
        if t is And or t is Or:
            self.operators += 1
            self.node(node.left, True)
            self.node(node.right, True)
        elif t is Not:
            self.operators += 1
            self.node(node.operand, True)
        elif t is Compare or t is Arith:
            self.operators += 1
            self.node(node.left, False)
            self.node(node.right, False)
        elif t is Between:
            self.operators += 1
            for operand in (node.operand, node.low, node.high):
                self.node(operand, False)
        elif t is In:
            self.operators += 1
            if len(node.choices) > MAX_IN_OPERANDS:
                raise messages.too_many_in_operands(self.param, len(node.choices))
            self.node(node.operand, False)
            for choice in node.choices:
                self.node(choice, False)

    def call(self, call: Call, condition: bool) -> None:
        name, args, param = call.name, call.args, self.param
        arity = _ARITY.get(name)
        if arity is None:
            raise messages.unknown_function(param, name)
        if self.update:
            if name not in UPDATE_FUNCTIONS:
                raise messages.function_not_in_update(name)
        elif name in UPDATE_FUNCTIONS:
            raise messages.function_not_in_condition(param, name)
        if (name in CONDITION_FUNCTIONS) != condition:
            raise messages.misused_function(param, name)
        if len(args) != arity:
            raise messages.operand_count(param, name, len(args))
        if name in _PATH_FIRST and type(args[0]) is not Path:
            raise messages.needs_path(param, name)
        if name == "attribute_type" and type(args[1]) in (Path, Call):
            raise messages.needs_value(param, name)  # recorded: refused, however used
        if name == "size" and type(args[0]) is Call and args[0].name == name:
            raise messages.operand_type(param, name, "N")  # recorded: a size is a number
        if name == "list_append" and any(type(a) is Call and a.name == name for a in args):
            raise messages.misused_function(param, name)  # recorded: no list_append in list_append
        self.operators += 1
        for arg in args:
            self.node(arg, False)

    def limit(self) -> None:
        if self.operators > MAX_OPERATORS:
            raise messages.too_many_operators(self.param, self.operators)


def condition(node, param: str) -> None:
    checker = _Checker(param, update=False)
    checker.node(node, True)
    checker.limit()


def update(upd: UpdateExpression) -> None:
    checker = _Checker("UpdateExpression", update=True)
    for path, value in upd.sets:
        checker.path(path)
        checker.node(value, False)
    for path in upd.removes:
        checker.path(path)
    for path, _ in upd.adds + upd.deletes:
        checker.path(path)
    checker.limit()


def projection(paths: tuple) -> None:
    checker = _Checker("ProjectionExpression", update=False)
    for path in paths:
        checker.path(path)
