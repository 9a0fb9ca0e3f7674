"""IAM's wildcards: `*` any run of characters, `?` any one, in actions (case-insensitive),
StringLike values and ARNs. An ARN pattern is matched part by part (arn:partition:
service:region:account:resource): a wildcard in the first five parts stays within its
part, one in the resource part may span slashes and colons."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable


def _regex(pattern: str, star: str = ".*") -> str:
    return "".join(star if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)


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
    parts = pattern.split(":", 5)
    if len(parts) < 6:
        exact = glob(pattern)
        return lambda arn: exact.fullmatch(arn) is not None
    regex = re.compile(":".join([_regex(part, "[^:]*") for part in parts[:5]]
                                + [_regex(parts[5])]), re.DOTALL)
    return lambda arn: regex.fullmatch(arn) is not None
