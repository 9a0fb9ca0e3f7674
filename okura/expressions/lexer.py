"""The expression lexer: text to tokens that remember where they stand.

One lexer serves every expression kind. Keywords (AND, SET, ...) are plain NAME
tokens; the parser recognises them, case-insensitively, where its grammar wants
them. A character that starts no token becomes a one-character ERROR token so the
parser can report it as DynamoDB does: as the token of a syntax error.
"""
from __future__ import annotations

from dataclasses import dataclass

NAME = "name"          # attribute name, keyword or function name
NAME_REF = "#"         # #placeholder
VALUE_REF = ":"        # :placeholder
NUMBER = "number"      # digits, valid only as a list index
PUNCT = "punct"        # = <> < <= > >= ( ) [ ] , . + -
ERROR = "error"        # a character that starts no token
EOF = "eof"

_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# '_' starts no name (users' reports: "_version" is token "_", near "_version")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_SPACE = frozenset(" \t\r\n")
_SINGLE = frozenset("=()[],.+-")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    start: int
    end: int

    @property
    def shown(self) -> str:
        """The token as DynamoDB names it in a syntax error."""
        return "<EOF>" if self.kind == EOF else self.text


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    append = tokens.append
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
            continue
        start = i
        if c in _NAME_START:
            i += 1
            while i < n and text[i] in _WORD:
                i += 1
            append(Token(NAME, text[start:i], start, i))
        elif c in _DIGITS:
            i += 1
            while i < n and text[i] in _DIGITS:
                i += 1
            append(Token(NUMBER, text[start:i], start, i))
        elif c == "#" or c == ":":
            i += 1
            while i < n and text[i] in _WORD:
                i += 1
            # a bare '#' or ':' is no placeholder: the parser rejects it as a token of its own
            kind = (NAME_REF if c == "#" else VALUE_REF) if i > start + 1 else ERROR
            append(Token(kind, text[start:i], start, i))
        elif c in _SINGLE:
            i += 1
            append(Token(PUNCT, c, start, i))
        elif c == "<" or c == ">":
            i += 1
            if i < n and (text[i] == "=" or (c == "<" and text[i] == ">")):
                i += 1
            append(Token(PUNCT, text[start:i], start, i))
        else:
            i += 1
            append(Token(ERROR, c, start, i))
    append(Token(EOF, "", n, n))
    return tokens
