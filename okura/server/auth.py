"""SigV4 Authorization header: parsed for access key and region, not yet verified."""
from __future__ import annotations

import re

from okura import errors

_SEPARATORS = re.compile(r"[,\s]+")
_REQUIRED = ("Credential", "Signature", "SignedHeaders")


_FAST_PREFIX = "AWS4-HMAC-SHA256 Credential="
SERVICE = "dynamodb"  # the signing name of DynamoDB and of DynamoDB Streams alike
# (region, access key id) of each credential scope seen in the form every SDK sends
# (bounded).
_SCOPES: dict[str, tuple[str, str]] = {}
_MAX_SCOPES = 1024


def scope_of(authorization: str | None, has_date: bool) -> tuple[str, str]:
    """(region, access key id) a request is signed with; raises DynamoDB's
    authentication errors."""
    if not authorization:
        raise errors.missing_authentication_token()
    if (has_date and ", SignedHeaders=" in authorization and ", Signature=" in authorization
            and authorization.startswith(_FAST_PREFIX)):
        # What every SDK sends: read the scope without the general parse below.
        credential = authorization[len(_FAST_PREFIX):authorization.find(",")]
        known = _SCOPES.get(credential)
        if known is not None:
            return known
        scope = credential.split("/")
        if len(scope) == 5 and scope[2] and scope[3] == SERVICE and " " not in credential:
            if len(_SCOPES) >= _MAX_SCOPES:
                _SCOPES.clear()
            known = _SCOPES[credential] = (scope[2], scope[0])
            return known
    _algorithm, _, rest = authorization.partition(" ")
    params = {}
    for part in _SEPARATORS.split(rest):
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep:
            raise errors.incomplete_signature(
                f"'{part}' not a valid key=value pair (missing equal-sign) in Authorization"
                f" header: '{authorization}'.")
        params[name] = value
    problems = [f"Authorization header requires '{name}' parameter."
                for name in _REQUIRED if name not in params]
    if not has_date:
        problems.append(
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
    if problems:
        raise errors.incomplete_signature(" ".join(problems) + f" Authorization={authorization}")
    credential = params["Credential"]
    scope = credential.split("/")
    # Coral's texts, as users quote them (the first from other services behind it)
    if len(scope) != 5:
        raise errors.incomplete_signature(
            "Credential must have exactly 5 slash-delimited elements, e.g. "
            f"keyid/date/region/service/term, got '{credential}'")
    if scope[3] != SERVICE:
        raise errors.invalid_signature(f"Credential should be scoped to correct service: '{SERVICE}'. ")
    if not scope[2]:
        raise errors.incomplete_signature(
            f"Credential should be scoped to a valid region. Authorization={authorization}")  # unverified
    return scope[2], scope[0]
