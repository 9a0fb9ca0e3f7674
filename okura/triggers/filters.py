"""Lambda's event-filtering grammar (FilterCriteria), checked when a mapping is made
and matched against each record before it is batched.

A pattern is a JSON object whose keys name fields of the record; a nested object
descends, an array lists what the field may be (any one matches):
- a string, number, boolean or null: exactly that value;
- {"prefix": s}, {"suffix": s} (each also as {"equals-ignore-case": s} inside),
  {"equals-ignore-case": s}, {"wildcard": "a*b"};
- {"anything-but": value or [values] or {"prefix"|"suffix"|"equals-ignore-case": ...}};
- {"numeric": [op, n] or [op, n, op, n]} with op one of = < <= > >=; a DynamoDB
  number (its "N" string) compares as the number it spells (okura's reading: the
  documentation shows ranges only over JSON numbers);
- {"exists": true/false}: whether the field is there (an absent field matches only
  exists false).
"$or": [pattern, ...] at any level matches when one of its patterns does. A field
whose value in the record is an array matches when one of its elements does. A
record passes when it matches any of the mapping's filters (up to 5).
"""
from __future__ import annotations

import fnmatch
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

MAX_FILTERS = 5
_OPS = {"=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_ABSENT = object()


class InvalidPattern(ValueError):
    pass


def parse(criteria: dict) -> list[dict]:
    """The patterns of a FilterCriteria; raises InvalidPattern."""
    filters = criteria.get("Filters", [])
    if not isinstance(filters, list) or len(filters) > MAX_FILTERS:
        raise InvalidPattern(f"at most {MAX_FILTERS} filters")
    patterns = []
    for entry in filters:
        if not isinstance(entry, dict) or not isinstance(entry.get("Pattern"), str):
            raise InvalidPattern("each filter needs a Pattern string")
        try:
            pattern = orjson.loads(entry["Pattern"])
        except orjson.JSONDecodeError:
            raise InvalidPattern("a pattern must be JSON") from None
        _check(pattern)
        patterns.append(pattern)
    return patterns


def _check(pattern: Any) -> None:
    if not isinstance(pattern, dict) or not pattern:
        raise InvalidPattern("a pattern must be a non-empty JSON object")
    for key, value in pattern.items():
        if key == "$or":
            if not isinstance(value, list) or len(value) < 2:
                raise InvalidPattern("$or needs a list of at least two patterns")
            for each in value:
                _check(each)
        elif isinstance(value, dict):
            _check(value)
        elif isinstance(value, list):
            for matcher in value:
                _check_matcher(matcher)
        else:
            raise InvalidPattern(f"the value of {key!r} must be an object or an array")


def _text_or_ignore_case(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, dict) and list(value) == [
        "equals-ignore-case"] and isinstance(value["equals-ignore-case"], str))


def _check_matcher(matcher: Any) -> None:
    if not isinstance(matcher, dict):
        if isinstance(matcher, (list,)):
            raise InvalidPattern("a matcher cannot be an array")
        return  # a literal
    if len(matcher) != 1:
        raise InvalidPattern("a matcher object has exactly one operator")
    (op, arg), = matcher.items()
    ok = {
        "prefix": lambda: _text_or_ignore_case(arg),
        "suffix": lambda: _text_or_ignore_case(arg),
        "equals-ignore-case": lambda: isinstance(arg, str),
        "wildcard": lambda: isinstance(arg, str),
        "exists": lambda: isinstance(arg, bool),
        "numeric": lambda: _numeric_ok(arg),
        "anything-but": lambda: _anything_but_ok(arg),
    }.get(op)
    if ok is None or not ok():
        raise InvalidPattern(f"invalid {op!r} matcher")


def _numeric_ok(arg: Any) -> bool:
    if not isinstance(arg, list) or len(arg) not in (2, 4):
        return False
    pairs = [(arg[i], arg[i + 1]) for i in range(0, len(arg), 2)]
    return all(op in _OPS and type(n) in (int, float) for op, n in pairs) and (
        len(pairs) == 1 or (pairs[0][0] in (">", ">=") and pairs[1][0] in ("<", "<=")))


def _anything_but_ok(arg: Any) -> bool:
    if isinstance(arg, dict):
        return len(arg) == 1 and next(iter(arg)) in (
            "prefix", "suffix", "equals-ignore-case") and (
            isinstance(next(iter(arg.values())), (str, list)))
    if isinstance(arg, list):
        return bool(arg) and all(not isinstance(v, (dict, list)) for v in arg)
    return True


def passes(patterns: list[dict], record: dict) -> bool:
    """Whether a record is delivered: no filters, or one of them matches."""
    return not patterns or any(_matches(pattern, record) for pattern in patterns)


def _matches(pattern: dict, event: Any) -> bool:
    for key, value in pattern.items():
        if key == "$or":
            if not any(_matches(each, event) for each in value):
                return False
            continue
        field = event.get(key, _ABSENT) if isinstance(event, dict) else _ABSENT
        if isinstance(value, dict):
            fields = field if isinstance(field, list) else [field]
            if not any(f is not _ABSENT and _matches(value, f) for f in fields):
                return False
        elif not _field_matches(value, field):
            return False
    return True


def _field_matches(matchers: list, field: Any) -> bool:
    if field is _ABSENT:
        return any(isinstance(m, dict) and m.get("exists") is False for m in matchers)
    values = field if isinstance(field, list) else [field]
    return any(_matcher(m, v) for m in matchers for v in values)


def _number(value: Any) -> Decimal | None:
    if type(value) in (int, float):
        return Decimal(str(value))
    if isinstance(value, str):
        try:
            number = Decimal(value)
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    return None


def _text_test(arg: Any, value: str, test) -> bool:
    if isinstance(arg, dict):
        return test(value.lower(), arg["equals-ignore-case"].lower())
    return test(value, arg)


def _matcher(matcher: Any, value: Any) -> bool:
    if not isinstance(matcher, dict):
        if matcher is None or isinstance(matcher, (bool, str)):
            return value == matcher and type(value) is type(matcher)
        # a number: 5 and 5.0 are one value
        return type(value) in (int, float) and _number(value) == _number(matcher)
    (op, arg), = matcher.items()
    if op == "exists":
        return arg is True and not isinstance(value, dict)
    if op == "numeric":
        number = _number(value)
        if number is None or isinstance(value, bool):
            return False
        return all(_OPS[arg[i]](number, Decimal(str(arg[i + 1])))
                   for i in range(0, len(arg), 2))
    if not isinstance(value, str):
        return op == "anything-but" and _anything_but(arg, value)
    if op == "prefix":
        return _text_test(arg, value, str.startswith)
    if op == "suffix":
        return _text_test(arg, value, str.endswith)
    if op == "equals-ignore-case":
        return value.lower() == arg.lower()
    if op == "wildcard":
        return fnmatch.fnmatchcase(value, arg.replace("[", "[[]"))
    return _anything_but(arg, value)


def _anything_but(arg: Any, value: Any) -> bool:
    if isinstance(arg, dict):
        (op, text), = arg.items()
        texts = text if isinstance(text, list) else [text]
        if not isinstance(value, str):
            return True
        if op == "prefix":
            return not any(value.startswith(t) for t in texts)
        if op == "suffix":
            return not any(value.endswith(t) for t in texts)
        return not any(value.lower() == t.lower() for t in texts)
    excluded = arg if isinstance(arg, list) else [arg]
    return not any(_matcher(each, value) for each in excluded)
