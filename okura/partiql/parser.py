"""A recursive-descent parser for DynamoDB's PartiQL: SELECT, INSERT, UPDATE,
DELETE and EXISTS(SELECT ...), with WHERE predicates built as expressions-AST nodes.

Literals become wire AttributeValues at parse time (numbers normalised); a literal
holding a `?` stays a Composite until its parameters are bound.
"""
from __future__ import annotations

from okura.expressions.ast import And, Arith, Between, Call, Compare, Const, In, Not, Or, Path
from okura.partiql import messages
from okura.partiql.ast import Composite, Delete, Exists, Insert, Param, Select, Update
from okura.partiql.lexer import Token, tokens
from okura.values import numbers

_COMPARATORS = {"=", "<>", "!=", "<", "<=", ">", ">="}
_FUNCTIONS = {"begins_with": 2, "contains": 2, "attribute_type": 2}  # predicates
# every function's number of arguments; those marked take a path first
_ARITY = {**_FUNCTIONS, "size": 1, "list_append": 2, "set_add": 2, "set_delete": 2}
_PATH_FIRST = frozenset(_FUNCTIONS) | {"size", "set_add", "set_delete"}
_SET_FUNCTIONS = frozenset({"set_add", "set_delete"})  # a SET's whole value, never part of one
# the most values an IN lists (developer guide, "PartiQL operators"; 50 for a partition key)
MAX_IN = 100
_SET_TAGS = {"S": "SS", "N": "NS", "B": "BS"}
# The functions that compute a value: in a condition, in SET, and inside either
_CONDITION_VALUES = frozenset({"size"})
_SET_VALUES = frozenset({"list_append"}) | _SET_FUNCTIONS
# RETURNING's choices, as the ReturnValues of UpdateItem and DeleteItem name them
_RETURNING: dict[tuple[str, ...], str] = {
    ("ALL", "OLD"): "ALL_OLD", ("MODIFIED", "OLD"): "UPDATED_OLD",
    ("ALL", "NEW"): "ALL_NEW", ("MODIFIED", "NEW"): "UPDATED_NEW"}


class _Parser:
    def __init__(self, text: str):
        self.tokens = tokens(text)
        self.at = 0
        self.params = 0

    @property
    def token(self) -> Token:
        return self.tokens[self.at]

    def take(self) -> Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def accept(self, text: str) -> bool:
        token = self.token
        if token.kind in ("KEYWORD", "PUNCT") and token.text == text:
            self.at += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise messages.unexpected(self.token)

    def accept_word(self, word: str) -> bool:
        """A word that is a keyword only where it stands (RETURNING, ORDER BY...), so
        it stays usable as an attribute name elsewhere."""
        token = self.token
        if token.kind == "NAME" and token.text.upper() == word:
            self.at += 1
            return True
        return False

    def expect_word(self, word: str) -> None:
        if not self.accept_word(word):
            raise messages.unexpected(self.token)

    # statements
    def statement(self):
        token = self.token
        if token.kind != "KEYWORD" or token.text not in (
                "SELECT", "INSERT", "UPDATE", "DELETE", "EXISTS"):
            raise messages.not_dml()
        self.at += 1
        node = getattr(self, token.text.lower())()
        if self.token.kind != "END":
            raise messages.unexpected(self.token)
        return node

    def select(self) -> Select:
        projection: tuple[Path, ...] | None = None
        if not self.accept("*"):
            paths = [self.path()]
            while self.accept(","):
                paths.append(self.path())
            projection = tuple(paths)
        self.expect("FROM")
        table = self.name()
        index = self.name() if self.accept(".") else None
        where = self.where()
        return Select(table, index, projection, where, self.order_by())

    def order_by(self) -> tuple:
        """ORDER BY path [ASC | DESC], ...: (Path, descending) pairs."""
        if not self.accept_word("ORDER"):
            return ()
        self.expect_word("BY")
        terms = []
        while True:
            path = self.path()
            descending = self.accept_word("DESC")
            if not descending:
                self.accept_word("ASC")
            terms.append((path, descending))
            if not self.accept(","):
                return tuple(terms)

    def insert(self) -> Insert:
        self.expect("INTO")
        table = self.name()
        self.expect("VALUE")
        if self.token.text != "{":
            raise messages.unexpected(self.token)
        return Insert(table, self.value())

    def update(self) -> Update:
        table = self.name()
        sets: list[tuple[Path, object]] = []
        removes: list[Path] = []
        adds: list[tuple[Path, object]] = []
        deletes: list[tuple[Path, object]] = []
        into = {"set_add": adds, "set_delete": deletes}
        while True:
            if self.accept("SET"):
                while True:
                    path, value = self.assignment()
                    if type(value) is Call and value.name in into:
                        if value.args[0] != path:
                            raise messages.set_function(value.name)
                        into[value.name].append((path, value.args[1]))
                    else:
                        sets.append((path, value))
                    if not self.accept(","):
                        break
            elif self.accept("REMOVE"):
                removes.append(self.path())
                while self.accept(","):
                    removes.append(self.path())
            else:
                break
        if not (sets or removes or adds or deletes):
            raise messages.unexpected(self.token)
        where = self.where()
        return Update(table, tuple(sets), tuple(removes), where, self.returning(),
                      tuple(adds), tuple(deletes))

    def delete(self) -> Delete:
        self.expect("FROM")
        table = self.name()
        where = self.where()
        returning = self.returning()
        if returning not in (None, "ALL_OLD"):
            raise messages.delete_returning()
        return Delete(table, where, returning)

    def returning(self) -> str | None:
        """RETURNING (ALL | MODIFIED) (OLD | NEW) *, as a ReturnValues name."""
        if not self.accept_word("RETURNING"):
            return None
        words = []
        for choices in (("ALL", "MODIFIED"), ("OLD", "NEW")):
            token = self.take()
            if token.kind != "NAME" or token.text.upper() not in choices:
                raise messages.unexpected(token)
            words.append(token.text.upper())
        self.expect("*")
        return _RETURNING[tuple(words)]

    def exists(self) -> Exists:
        self.expect("(")
        self.expect("SELECT")
        select = self.select()
        self.expect(")")
        return Exists(select)

    def where(self):
        return self.condition() if self.accept("WHERE") else None

    def assignment(self) -> tuple:
        path = self.path()
        self.expect("=")
        value = self.operand(_SET_VALUES)
        while self.token.text in ("+", "-") and self.token.kind == "PUNCT":
            if type(value) is Call and value.name in _SET_FUNCTIONS:
                raise messages.unexpected(self.token)
            value = Arith(self.take().text, value, self.operand(_SET_VALUES - _SET_FUNCTIONS))
        return path, value

    # names and paths
    def name(self) -> str:
        token = self.take()
        if token.kind in ("NAME", "QUOTED"):
            return token.text
        raise messages.unexpected(token)

    def path(self) -> Path:
        elements: list[str | int] = [self.name()]
        while True:
            if self.accept("."):
                elements.append(self.name())
            elif self.accept("["):
                token = self.take()
                if token.kind == "NUMBER" and token.text.isdigit():
                    elements.append(int(token.text))
                elif token.kind == "STRING":
                    elements.append(token.text)
                else:
                    raise messages.unexpected(token)
                self.expect("]")
            else:
                return Path(tuple(elements))

    # predicates
    def condition(self):
        node = self.conjunction()
        while self.accept("OR"):
            node = Or(node, self.conjunction())
        return node

    def conjunction(self):
        node = self.negation()
        while self.accept("AND"):
            node = And(node, self.negation())
        return node

    def negation(self):
        if self.accept("NOT"):
            return Not(self.negation())
        return self.predicate()

    def predicate(self):
        if self.accept("("):
            node = self.condition()
            self.expect(")")
            return node
        token = self.token
        if token.kind == "NAME" and token.text.lower() in _FUNCTIONS and \
                self.tokens[self.at + 1].text == "(":
            return self.call()
        left = self.operand()
        token = self.token
        if token.kind == "PUNCT" and token.text in _COMPARATORS:
            self.at += 1
            op = "<>" if token.text == "!=" else token.text
            return Compare(op, left, self.operand())
        if self.accept("BETWEEN"):
            low = self.operand()
            self.expect("AND")
            return Between(left, low, self.operand())
        if self.accept("IN"):
            close = "]" if self.accept("[") else ")"
            if close == ")":
                self.expect("(")
            choices = [self.operand()]
            while self.accept(","):
                choices.append(self.operand())
            self.expect(close)
            if len(choices) > MAX_IN:
                raise messages.too_many_in(MAX_IN)
            return In(left, tuple(choices))
        if self.accept("IS"):
            negated = self.accept("NOT")
            missing = self.accept("MISSING")
            if not missing and not self.accept("NULL"):
                raise messages.unexpected(self.token)
            if type(left) is not Path:
                raise messages.unexpected(token)
            if missing:
                return Call("attribute_exists" if negated else "attribute_not_exists", (left,))
            # PartiQL: a missing value IS NULL too (MISSING IS NULL is true)
            test = Or(Call("attribute_not_exists", (left,)),
                      Call("attribute_type", (left, Const({"S": "NULL"}))))
            return Not(test) if negated else test
        raise messages.unexpected(self.token)

    def call(self, functions: frozenset = _CONDITION_VALUES) -> Call:
        """name(arguments), its name's token next; `functions`: those its arguments may call."""
        name = self.take().text.lower()
        self.expect("(")
        args = [self.operand(functions)]
        while self.accept(","):
            args.append(self.operand(functions))
        self.expect(")")
        if len(args) != _ARITY[name] or (name in _PATH_FIRST and type(args[0]) is not Path):
            raise messages.malformed(f"Incorrect arguments to function {name}")  # unverified
        return Call(name, tuple(args))

    def operand(self, functions: frozenset = _CONDITION_VALUES):
        token = self.token
        if token.kind in ("NAME", "QUOTED"):
            if token.kind == "NAME" and token.text.lower() in functions and \
                    self.tokens[self.at + 1].text == "(":
                return self.call(functions - _SET_FUNCTIONS)
            return self.path()
        return self.value()

    # values
    def value(self):
        token = self.take()
        kind, text = token.kind, token.text
        if kind == "STRING":
            return Const({"S": text})
        if kind == "NUMBER":
            return Const({"N": numbers.normalize(text)})
        if kind == "PUNCT" and text == "-" and self.token.kind == "NUMBER":
            return Const({"N": numbers.normalize("-" + self.take().text)})
        if kind == "KEYWORD" and text in ("TRUE", "FALSE"):
            return Const({"BOOL": text == "TRUE"})
        if kind == "KEYWORD" and text == "NULL":
            return Const({"NULL": True})
        if kind == "PUNCT" and text == "?":
            self.params += 1
            return Param(self.params - 1)
        if kind == "PUNCT" and text == "[":
            return _literal("L", self.members("]", self.value))
        if kind == "PUNCT" and text == "<<":
            members = self.members(">>", self.value)
            if not members:
                raise messages.empty_set()
            return _literal(None, members)
        if kind == "PUNCT" and text == "{":
            return _literal("M", self.members("}", self.pair))
        raise messages.unexpected(token)

    def pair(self) -> tuple:
        token = self.take()
        if token.kind != "STRING":
            raise messages.unexpected(token)
        self.expect(":")
        return token.text, self.value()

    def members(self, close: str, member) -> tuple:
        out = []
        if not self.accept(close):
            out.append(member())
            while self.accept(","):
                out.append(member())
            self.expect(close)
        return tuple(out)


def _literal(tag: str | None, members: tuple):
    """A Const when every member is one, else a Composite to bind later."""
    values = [m[1] if tag == "M" else m for m in members]
    if all(type(v) is Const for v in values):
        return Const(wire(tag, members, lambda v: v.value))
    return Composite(tag, members)


def wire(tag: str | None, members: tuple, value_of) -> dict:
    """The AttributeValue of a list, map or set literal whose members `value_of` turns
    into AttributeValues."""
    if tag == "L":
        return {"L": [value_of(m) for m in members]}
    if tag == "M":
        return {"M": {name: value_of(m) for name, m in members}}
    values = [value_of(m) for m in members]
    kinds = {next(iter(v)) for v in values}
    if len(kinds) != 1 or next(iter(kinds)) not in _SET_TAGS:
        raise messages.mixed_set()
    kind = kinds.pop()
    return {_SET_TAGS[kind]: list(dict.fromkeys(v[kind] for v in values))}


def parse(text: str) -> tuple[object, int]:
    """The statement and its number of `?` parameters."""
    parser = _Parser(text)
    return parser.statement(), parser.params
