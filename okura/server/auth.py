"""SigV4 Authorization header, parsed for access key and region (with --auth off; the
signature is verified by okura.access when auth is on)."""
from __future__ import annotations

from okura import errors
from okura.access import sigv4
from okura.access.sigv4 import SERVICE

_FAST_PREFIX = "AWS4-HMAC-SHA256 Credential="
_SIGNED_HEADERS, _SIGNATURE = ", SignedHeaders=", ", Signature="
# (region, access key id) of each credential scope seen in the form every SDK sends
# (bounded).
_SCOPES: dict[str, tuple[str, str]] = {}
_MAX_SCOPES = 1024


def scope_of(authorization: str | None, has_date: bool) -> tuple[str, str]:
    """(region, access key id) a request is signed with; raises DynamoDB's
    authentication errors."""
    if not authorization:
        raise errors.missing_authentication_token()
    if has_date and authorization.startswith(_FAST_PREFIX):
        # What every SDK sends: read the scope without the general parse below. Its
        # parts are found where SDKs put them (a scan of the whole header for each costs
        # more than the rest of this path).
        comma = authorization.find(",")
        if (authorization.startswith(_SIGNED_HEADERS, comma)
                and authorization.find(_SIGNATURE, comma) > 0):
            credential = authorization[len(_FAST_PREFIX):comma]
            known = _SCOPES.get(credential)
            if known is not None:
                return known
            scope = credential.split("/")
            if len(scope) == 5 and scope[2] and scope[3] == SERVICE and " " not in credential:
                if len(_SCOPES) >= _MAX_SCOPES:
                    _SCOPES.clear()
                known = _SCOPES[credential] = (scope[2], scope[0])
                return known
    params = sigv4.authorization_params(authorization, has_date)
    scope = sigv4.credential_scope(params["Credential"], authorization)
    return scope[2], scope[0]
