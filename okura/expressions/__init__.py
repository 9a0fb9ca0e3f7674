"""DynamoDB's expression language: parse once per text, resolve per request, evaluate per item.

    r = Resolver(request.get("ExpressionAttributeNames"), request.get("ExpressionAttributeValues"))
    cond = condition(text, r)            # or update(...), projection(...), key_condition(...)
    r.finish()                           # unused placeholders
    evaluate(cond, item, values)         # values: the request's ExpressionAttributeValues

Parsing, and the checks that depend on the text alone, are cached by text
(bounded LRU); failures are not cached. So is the resolution of names, by text
and the request's names: a request resolves only its values. Every error is
DynamoDB's ValidationException with DynamoDB's message.
"""
from __future__ import annotations

import sys
from functools import lru_cache

from okura.errors import DynamoError
from okura.expressions import checks, messages, parser, placeholders
from okura.expressions.ast import Path, UpdateExpression, unparse
from okura.expressions.evaluate import constant, evaluate, get
from okura.expressions.projection import Projection, project
from okura.expressions.placeholders import Resolver
from okura.expressions.update import apply_update

__all__ = ["Path", "Projection", "Resolver", "UpdateExpression", "apply_update", "condition", "constant",
           "evaluate", "get", "key_condition", "project", "projection", "unparse", "update"]

_CACHE_SIZE = 4096

# The parser and the checks recurse once or twice per nesting level, and 4 KB of
# parentheses or NOTs nest far past Python's default limit of 1000 frames. The size
# limit bounds the depth, so a limit above it turns every such text into DynamoDB's
# error (syntax, redundant parentheses, too many operators) instead of a crash.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 5 * parser.MAX_BYTES))


@lru_cache(maxsize=_CACHE_SIZE)
def _condition(text: str, param: str):
    node = parser.parse_condition(text, param)
    checks.condition(node, param)
    return node


@lru_cache(maxsize=_CACHE_SIZE)
def _update(text: str) -> UpdateExpression:
    upd, repeated = parser.parse_update(text)
    if repeated is not None:
        raise messages.clause_repeated(repeated)
    checks.update(upd)
    return upd


@lru_cache(maxsize=_CACHE_SIZE)
def _projection(text: str) -> tuple:
    paths = parser.parse_projection(text)
    checks.projection(paths)
    return paths


def condition(text: str, resolver: Resolver, param: str = "ConditionExpression"):
    """A ConditionExpression (or, with param="FilterExpression", a filter), resolved."""
    named = _named_condition(text, param, resolver.names_key())
    if named is None:
        return placeholders.condition(_condition(text, param), resolver, param)
    return placeholders.condition(_with_names(named, resolver), resolver, param, names=False)


def key_condition(text: str, resolver: Resolver):
    """A KeyConditionExpression, parsed and resolved; Query checks its key structure."""
    return condition(text, resolver, "KeyConditionExpression")


def update(text: str, resolver: Resolver) -> UpdateExpression:
    named = _named_update(text, resolver.names_key())
    if named is None:
        return placeholders.update(_update(text), resolver)
    return placeholders.update(_with_names(named, resolver), resolver, names=False)


def projection(text: str, resolver: Resolver) -> Projection:
    named = _named_projection(text, resolver.names_key())
    if named is None:
        return Projection(placeholders.projection(_projection(text), resolver))
    return _with_names(named, resolver)


@lru_cache(maxsize=_CACHE_SIZE)
def _named_condition(text: str, param: str, names: tuple):
    return _names_resolved(names, lambda r: placeholders.condition(
        _condition(text, param), r, param, values=False))


@lru_cache(maxsize=_CACHE_SIZE)
def _named_update(text: str, names: tuple):
    return _names_resolved(names, lambda r: placeholders.update(_update(text), r, values=False))


@lru_cache(maxsize=_CACHE_SIZE)
def _named_projection(text: str, names: tuple):
    return _names_resolved(names, lambda r: Projection(placeholders.projection(_projection(text), r)))


def _names_resolved(names: tuple, resolve_names):
    """(tree with its names resolved, the names it used); None if anything is amiss,
    and the request's own resolution in one pass then reports the first fault in
    DynamoDB's order (a value's fault may come before a name's)."""
    resolver = Resolver.of_names(names)
    try:
        node = resolve_names(resolver)
    except DynamoError:
        return None
    return node, frozenset(resolver.used_names)


def _with_names(named: tuple, resolver: Resolver):
    node, used = named
    resolver.used_names.update(used)
    return node
