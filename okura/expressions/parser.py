"""One Pratt parser for every expression kind.

Conditions (ConditionExpression, FilterExpression, KeyConditionExpression) and
the operands of an update's SET values are parsed by the same `expression` loop;
only the infix table differs. A SET value is one operand or two joined by + or -
(`value`): DynamoDB's grammar chains no arithmetic, and a function's operands
are operands, never arithmetic.
Update clauses and projection lists are thin loops around it.

The parser rejects only what DynamoDB's grammar rejects, with its
"Syntax error; token: ..., near: ..." message; rules about names, functions and
limits are checked afterwards by checks.py, so a syntax error always wins.
"""
from __future__ import annotations

from okura.errors import DynamoError
from okura.expressions import messages
from okura.expressions.ast import (BOOLEAN, And, Arith, Between, Call, Compare, In, Name, Not,
                                   Or, Path, UpdateExpression, Value)
from okura.expressions.lexer import EOF, NAME, NAME_REF, NUMBER, PUNCT, VALUE_REF, Token, tokenize

MAX_BYTES = 4096
MAX_INDEX = 2**31 - 1  # a list index is a 32-bit int (unverified bound)

_OR, _AND, _NOT, _COMPARE, _ARITH = 10, 20, 30, 40, 50
_CONDITION_INFIX = {"OR": _OR, "AND": _AND, "BETWEEN": _COMPARE, "IN": _COMPARE,
                    "=": _COMPARE, "<>": _COMPARE, "<": _COMPARE, "<=": _COMPARE,
                    ">": _COMPARE, ">=": _COMPARE}
_ARITH_INFIX = {"+": _ARITH, "-": _ARITH}
# Words the grammar owns: never an attribute name, in any case.
_KEYWORDS = frozenset({"AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE"})
CLAUSES = ("SET", "REMOVE", "ADD", "DELETE")


def _infix_key(tok: Token) -> str | None:
    if tok.kind == PUNCT:
        return tok.text
    if tok.kind == NAME:
        return tok.text.upper()
    return None


def _is_condition(node) -> bool:
    return isinstance(node, BOOLEAN) or type(node) is Call


class _Parser:
    __slots__ = ("text", "tokens", "i", "param", "infix", "spans", "redundant")

    def __init__(self, text: str, param: str, infix: dict):
        if not text.strip():
            raise messages.empty(param)
        size = len(text) if text.isascii() else len(text.encode())
        if size > MAX_BYTES:
            raise messages.too_long(param, size)
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.param = param
        self.infix = infix
        self.spans: set[tuple[int, int]] = set()  # token indexes of each "(" and its ")"
        self.redundant = False

    def fail(self, index: int) -> DynamoError:
        """DynamoDB's syntax error at token `index`: near spans its neighbours on both sides."""
        tokens = self.tokens
        bad = tokens[index]
        start = tokens[index - 1].start if index > 0 else bad.start
        end = tokens[index + 1].end if index + 1 < len(tokens) else bad.end
        return messages.syntax(self.param, bad.shown, self.text[start:end])

    def expect(self, text: str) -> None:
        if _infix_key(self.tokens[self.i]) != text:
            raise self.fail(self.i)
        self.i += 1

    def at(self, text: str) -> bool:
        tok = self.tokens[self.i]
        return tok.kind == PUNCT and tok.text == text

    def end(self) -> None:
        if self.tokens[self.i].kind != EOF:
            raise self.fail(self.i)

    # --- the Pratt loop -------------------------------------------------------------------
    def expression(self, rbp: int, condition: bool):
        """Parse while infix operators bind tighter than `rbp`.

        `condition` says whether a condition may start here (where NOT and a
        parenthesised condition are allowed) or only an operand.
        """
        left = self.prefix(condition)
        tokens, infix = self.tokens, self.infix
        while True:
            tok = tokens[self.i]
            bp = infix.get(_infix_key(tok), 0)
            if bp <= rbp:
                return left
            self.i += 1
            left = self.infix_op(tok, bp, left)

    def prefix(self, condition: bool):
        index = self.i
        tok = self.tokens[index]
        self.i += 1
        kind = tok.kind
        if kind == NAME:
            if condition and tok.text.upper() == "NOT" and self.infix is _CONDITION_INFIX:
                operand = self.expression(_NOT, True)
                self.require_condition(operand)
                return Not(operand)
            if self.at("("):
                self.i += 1
                return self.call(tok.text)
            return self.path_from(index)
        if kind == NAME_REF:
            return self.path_from(index)
        if kind == VALUE_REF:
            return Value(tok.text)
        if kind == PUNCT and tok.text == "(" and (condition or self.infix is _ARITH_INFIX):
            inner = self.expression(0, condition) if condition else self.value()
            if condition:
                self.require_condition(inner)
            self.expect(")")
            close = self.i - 1
            if (index + 1, close - 1) in self.spans:
                self.redundant = True
            self.spans.add((index, close))
            return inner
        raise self.fail(index)

    def infix_op(self, tok: Token, bp: int, left):
        op = _infix_key(tok)
        assert op is not None  # only a key of the infix table gets here
        if op == "AND" or op == "OR":
            if not _is_condition(left):
                raise self.fail(self.i - 1)
            right = self.expression(bp, True)
            self.require_condition(right)
            return And(left, right) if op == "AND" else Or(left, right)
        if isinstance(left, BOOLEAN):  # comparisons, BETWEEN and IN do not chain
            raise self.fail(self.i - 1)
        if op == "BETWEEN":
            low = self.expression(_COMPARE, False)
            self.expect("AND")
            return Between(left, low, self.expression(_COMPARE, False))
        if op == "IN":
            self.expect("(")
            return In(left, self.operands())
        return Compare(op, left, self.expression(_COMPARE, False))

    def require_condition(self, node) -> None:
        if not _is_condition(node):
            raise self.fail(self.i)

    def value(self):
        """An update's value: one operand, or two joined by + or - (which do not chain)."""
        left = self.expression(_ARITH, False)
        if self.at("+") or self.at("-"):
            op = self.tokens[self.i].text
            self.i += 1
            return Arith(op, left, self.expression(_ARITH, False))
        return left

    def operands(self) -> tuple:
        """Comma-separated operands (never arithmetic) up to and including the closing parenthesis."""
        items = []
        while True:
            items.append(self.expression(_ARITH, False))
            if self.at(","):
                self.i += 1
                continue
            self.expect(")")
            return tuple(items)

    def call(self, name: str) -> Call:
        if self.at(")"):
            self.i += 1
            return Call(name, ())
        return Call(name, self.operands())

    # --- document paths ---------------------------------------------------------------------
    def path(self) -> Path:
        self.i += 1
        return self.path_from(self.i - 1)

    def path_from(self, index: int) -> Path:
        elements = [self.attribute(index)]
        tokens = self.tokens
        while True:
            tok = tokens[self.i]
            if tok.kind != PUNCT:
                break
            if tok.text == ".":
                self.i += 2
                elements.append(self.attribute(self.i - 1))
            elif tok.text == "[":
                number = tokens[self.i + 1]
                if number.kind != NUMBER:
                    raise self.fail(self.i + 1)
                self.i += 2
                self.expect("]")
                index = int(number.text)
                if index > MAX_INDEX:
                    raise messages.index_range(self.param, number.text)
                elements.append(index)
            else:
                break
        return Path(tuple(elements))

    def attribute(self, index: int):
        tok = self.tokens[index]
        if tok.kind == NAME_REF:
            return Name(tok.text)
        if tok.kind == NAME and tok.text.upper() not in _KEYWORDS:
            return tok.text
        raise self.fail(index)


def parse_condition(text: str, param: str):
    p = _Parser(text, param, _CONDITION_INFIX)
    node = p.expression(0, True)
    p.require_condition(node)
    p.end()
    if p.redundant:
        raise messages.redundant_parentheses(param)
    return node


def parse_update(text: str) -> tuple[UpdateExpression, str | None]:
    """The update and the first clause keyword that was repeated (reported after syntax)."""
    p = _Parser(text, "UpdateExpression", _ARITH_INFIX)
    clauses: dict[str, list] = {}
    repeated = None
    tokens = p.tokens
    while True:
        tok = tokens[p.i]
        word = tok.text.upper() if tok.kind == NAME else None
        if word not in CLAUSES:
            raise p.fail(p.i)
        p.i += 1
        if word in clauses and repeated is None:
            repeated = word
        actions = clauses.setdefault(word, [])
        while True:
            actions.append(_action(p, word))
            if not p.at(","):
                break
            p.i += 1
        if tokens[p.i].kind == EOF:
            break
    sets, removes, adds, deletes = (tuple(clauses.get(word, ())) for word in CLAUSES)
    update = UpdateExpression(sets, removes, adds, deletes)
    return update, repeated


def _action(p: _Parser, word: str):
    path = p.path()
    if word == "REMOVE":
        return path
    if word == "SET":
        p.expect("=")
        return path, p.value()
    tok = p.tokens[p.i]
    if tok.kind != VALUE_REF:
        raise p.fail(p.i)
    p.i += 1
    return path, Value(tok.text)


def parse_projection(text: str) -> tuple[Path, ...]:
    p = _Parser(text, "ProjectionExpression", _ARITH_INFIX)
    paths = [p.path()]
    while p.at(","):
        p.i += 1
        paths.append(p.path())
    p.end()
    return tuple(paths)
