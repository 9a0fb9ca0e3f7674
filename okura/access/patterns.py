"""IAM's wildcards: `*` any run of characters, `?` any one, in actions (case-insensitive),
StringLike values and ARNs. An ARN pattern is matched part by part (arn:partition:
service:region:account:resource): a wildcard in the first five parts stays within its
part, one in the resource part may span slashes and colons."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

from okura import arns


# ${*} and ${?} in a policy stand for the characters themselves, not wildcards:
# substitution leaves these in their place, which match the plain characters.
LITERAL_STAR, LITERAL_QUESTION = "\ue000", "\ue001"
_LITERALS = {LITERAL_STAR: re.escape("*"), LITERAL_QUESTION: re.escape("?")}


def _regex(pattern: str, star: str = ".*") -> str:
    return "".join(star if c == "*" else "." if c == "?" else _LITERALS.get(c) or re.escape(c)
                   for c in pattern)


def plain(text: str) -> str:
    """A substituted policy value for an operator without wildcards."""
    if LITERAL_STAR in text or LITERAL_QUESTION in text:
        return text.replace(LITERAL_STAR, "*").replace(LITERAL_QUESTION, "?")
    return text


@lru_cache(maxsize=4096)
def glob(pattern: str) -> re.Pattern:
    return re.compile(_regex(pattern), re.DOTALL)


@lru_cache(maxsize=4096)
def action_glob(pattern: str) -> re.Pattern:
    return re.compile(_regex(pattern), re.DOTALL | re.IGNORECASE)


@lru_cache(maxsize=4096)
def arn_matcher(pattern: str) -> Callable[[str], bool]:
    """Whether an ARN (or "*"-like resource) matches the pattern."""
    if pattern == "*":
        return lambda arn: True
    parts = arns.parts(pattern)
    if parts is None:  # not an ARN: names nothing but itself
        return lambda arn: arn == pattern
    regex = re.compile(":".join([_regex(part, "[^:]*") for part in parts[:5]]
                                + [_regex(parts[5])]), re.DOTALL)
    return lambda arn: regex.fullmatch(arn) is not None
