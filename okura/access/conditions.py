"""IAM policy conditions: the request's facts (condition keys and their values), policy
variables, and the condition operators as the IAM user guide defines them ("IAM JSON
policy elements: Condition operators", "Condition operators with multivalued context
keys", "Policy variables").

Facts are lists of strings by lower-case key (IAM keys are case-insensitive): a
single-valued key holds one. A request's facts come in three layers looked up in
turn: the check's (dynamodb:LeadingKeys, aws:ResourceTag/...), the request's
(aws:SourceIp, aws:CurrentTime, ...) and the caller's (aws:username,
aws:PrincipalTag/...)."""
from __future__ import annotations

import calendar
import ipaddress
import re
import time
from datetime import datetime
from functools import lru_cache
from typing import Callable

from okura.access.patterns import LITERAL_QUESTION, LITERAL_STAR, arn_matcher, glob, plain

Values = list[str]
_VARIABLE = re.compile(r"\$\{([^}]*)\}")
_DEFAULT = re.compile(r"\s*([^,\s]+)\s*,\s*'([^']*)'\s*")
_SPECIAL = {"*": LITERAL_STAR, "?": LITERAL_QUESTION, "$": "$"}


class Facts:
    """The condition keys of one check of one request."""

    __slots__ = ("check", "request", "caller", "now")

    def __init__(self, check: dict[str, Values], request: dict[str, Values],
                 caller: dict[str, Values], now: float) -> None:
        self.check = check
        self.request = request
        self.caller = caller
        self.now = now

    def get(self, key: str) -> Values | None:
        """The values of a lower-case key, None when the request has none."""
        found = self.check.get(key)
        if found is None:
            found = self.request.get(key)
            if found is None:
                found = self.caller.get(key)
                if found is None:
                    if key == "aws:currenttime":
                        return [time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.now))]
                    if key == "aws:epochtime":
                        return [str(int(self.now))]
        return found


@lru_cache(maxsize=4096)
def template(text: str) -> tuple:
    """A policy string split once into literal text and variables: (literal, key, default),
    key None after the last variable; a special variable (${*}) is literal text."""
    parts: list[tuple[str, str | None, str | None]] = []
    position = 0
    for match in _VARIABLE.finditer(text):
        inner, default = match.group(1), None
        literal = text[position:match.start()]
        position = match.end()
        if inner in _SPECIAL:
            parts.append((literal + _SPECIAL[inner], None, None))
            continue
        with_default = _DEFAULT.fullmatch(inner)
        if with_default is not None:
            inner, default = with_default.groups()
        parts.append((literal, inner.strip().lower(), default))
    parts.append((text[position:], None, None))
    return tuple(parts)


def substitute(text: str, facts: Facts) -> str | None:
    """A policy string with its ${...} variables replaced; None when one has no value
    and no default (the element then matches nothing)."""
    if "${" not in text:
        return text
    pieces = []
    for literal, key, default in template(text):
        pieces.append(literal)
        if key is None:
            continue
        found = facts.get(key)
        if found and len(found) == 1:
            pieces.append(found[0])
        elif default is not None:
            pieces.append(default)
        else:
            return None
    return "".join(pieces)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _date(text: str) -> float | None:
    """Epoch seconds of an ISO 8601 date or date-time, or of an epoch number."""
    number = _number(text)
    if number is not None:
        return number
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return float(calendar.timegm(moment.timetuple()))
    return moment.timestamp()


def _numeric(compare: Callable[[float, float], bool], parse=_number):
    def test(value: str, policy: str) -> bool:
        a, b = parse(value), parse(policy)
        return a is not None and b is not None and compare(a, b)
    return test


@lru_cache(maxsize=4096)
def _network(text: str):
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        return None


def _ip(value: str, policy: str) -> bool:
    network = _network(policy)
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    return network is not None and address.version == network.version and address in network


def _like(value: str, policy: str) -> bool:
    return glob(policy).fullmatch(value) is not None


def _arn_like(value: str, policy: str) -> bool:
    return arn_matcher(policy)(value)


# operator -> (its test of one request value against one policy value, negated)
_OPERATORS: dict[str, tuple[Callable[[str, str], bool], bool]] = {}
for _name, _test in (
        ("StringEquals", lambda a, b: a == b),
        ("StringEqualsIgnoreCase", lambda a, b: a.lower() == b.lower()),
        ("StringLike", _like),
        ("NumericEquals", _numeric(lambda a, b: a == b)),
        ("DateEquals", _numeric(lambda a, b: a == b, _date)),
        ("IpAddress", _ip),
        ("ArnEquals", _arn_like),
        ("ArnLike", _arn_like),
        ("BinaryEquals", lambda a, b: a == b)):
    _OPERATORS[_name] = (_test, False)
    _negated = (_name.replace("Equals", "NotEquals").replace("Like", "NotLike")
                .replace("IpAddress", "NotIpAddress"))
    if _negated != _name and _name != "BinaryEquals":
        _OPERATORS[_negated] = (_test, True)
for _kind, _parse in (("Numeric", _number), ("Date", _date)):
    for _suffix, _compare in (("LessThan", lambda a, b: a < b),
                              ("LessThanEquals", lambda a, b: a <= b),
                              ("GreaterThan", lambda a, b: a > b),
                              ("GreaterThanEquals", lambda a, b: a >= b)):
        _OPERATORS[_kind + _suffix] = (_numeric(_compare, _parse), False)
_OPERATORS["Bool"] = (lambda a, b: a.lower() == b.lower(), False)


class PolicyError(ValueError):
    """A policy document okura cannot evaluate (its message says why)."""


class Condition:
    """One key under one operator: `test(facts)`."""

    __slots__ = ("key", "values", "compare", "negated", "qualifier", "if_exists", "null",
                 "variable")

    def __init__(self, operator: str, key: str, values: object) -> None:
        qualifier, _, base = operator.rpartition(":")
        if qualifier not in ("", "ForAllValues", "ForAnyValue"):
            raise PolicyError(f"unknown condition qualifier {qualifier!r}")
        self.qualifier = qualifier
        self.if_exists = base.endswith("IfExists") and base != "IfExists"
        if self.if_exists:
            base = base[:-len("IfExists")]
        self.null = base == "Null"
        if not self.null and base not in _OPERATORS:
            raise PolicyError(f"unknown condition operator {operator!r}")
        self.compare, self.negated = _OPERATORS.get(base, (_OPERATORS["StringEquals"][0], False))
        self.key = key.lower()
        listed = values if isinstance(values, list) else [values]
        self.values = ["true" if v is True else "false" if v is False else str(v)
                       for v in listed]
        self.variable = any("${" in v for v in self.values)

    def test(self, facts: Facts) -> bool:
        found = facts.get(self.key)
        if self.null:
            absent = not found
            return any(absent == (v.lower() == "true") for v in self.values)
        if not found:
            if self.qualifier == "ForAllValues":
                return True
            if self.qualifier == "ForAnyValue":
                return False
            return self.if_exists or self.negated
        policy = self.values
        if self.variable:
            policy = [v for v in (substitute(p, facts) for p in policy) if v is not None]
            if self.compare is not _like and self.compare is not _arn_like:
                policy = [plain(v) for v in policy]
        compare = self.compare
        if self.qualifier == "ForAllValues":
            return all(any(compare(v, p) for p in policy) != self.negated for v in found)
        if self.qualifier == "ForAnyValue":
            return any(any(compare(v, p) for p in policy) != self.negated for v in found)
        matched = any(compare(v, p) for v in found for p in policy)
        return matched != self.negated


def conditions_of(block: object) -> list[Condition]:
    """The conditions of a statement's Condition block (all must hold)."""
    if block is None:
        return []
    if not isinstance(block, dict):
        raise PolicyError("Condition must be an object")
    found = []
    for operator, keys in block.items():
        if not isinstance(keys, dict):
            raise PolicyError(f"Condition {operator} must map keys to values")
        for key, values in keys.items():
            found.append(Condition(operator, key, values))
    return found
