"""PartiQL tokens: keywords and bare names (case-insensitive keywords), "quoted"
names, 'single-quoted' strings ('' escapes a quote), numbers and punctuation."""
from __future__ import annotations

import re
from typing import NamedTuple

from okura.partiql import messages

KEYWORDS = frozenset({
    "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "INSERT", "INTO", "VALUE", "UPDATE",
    "SET", "REMOVE", "DELETE", "BETWEEN", "IN", "IS", "MISSING", "NULL", "TRUE", "FALSE",
    "EXISTS"})


class Token(NamedTuple):
    kind: str  # KEYWORD NAME QUOTED STRING NUMBER PUNCT END
    text: str
    position: int


_PATTERN = re.compile(r"""
    (?P<space>\s+)
  | (?P<NUMBER>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<NAME>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<QUOTED>"(?:[^"]|"")*")
  | (?P<STRING>'(?:[^']|'')*')
  | (?P<PUNCT><<|>>|<=|>=|<>|!=|[()\[\]{},.:?=<>+\-*])
""", re.VERBOSE)


def tokens(text: str) -> list[Token]:
    out, at = [], 0
    while at < len(text):
        match = _PATTERN.match(text, at)
        if match is None:
            raise messages.malformed(f"Unexpected character: {text[at]}")  # unverified
        kind = match.lastgroup
        assert kind is not None  # every alternative is a named group
        value = match.group()
        if kind == "NAME" and value.upper() in KEYWORDS:
            out.append(Token("KEYWORD", value.upper(), at))
        elif kind == "QUOTED":
            out.append(Token(kind, value[1:-1].replace('""', '"'), at))
        elif kind == "STRING":
            out.append(Token(kind, value[1:-1].replace("''", "'"), at))
        elif kind != "space":
            out.append(Token(kind, value, at))
        at = match.end()
    out.append(Token("END", "", len(text)))
    return out
