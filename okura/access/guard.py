"""Access control of one server: --auth warn or enforce (with --auth off there is no
Guard and the server's path is unchanged).

`authenticate` verifies a request's signature (sigv4.py) and finds its identity
(identities.py); `authorize` checks every demand of the request (actions.py) against
the caller's identity-based policies and the resource's policy (policies.py), as AWS
decides. In `enforce` a failure is DynamoDB's error; in `warn` the request goes on as
with `off`, and the would-be denial is logged and counted (`denials`, by action,
resource and reason: GET /metrics shows them)."""
from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any, NamedTuple

from okura import errors
from okura.access import sigv4
from okura.access.actions import demands_of
from okura.access.conditions import Facts, PolicyError
from okura.access.demands import Demand
from okura.access.identities import Identity
from okura.access.policies import NOTHING, Policy, judge
from okura.core.context import Context
from okura.core.database import Database

log = logging.getLogger("okura.access")
RAW = ":exchange"  # the headers' member a guarded connection keeps the Exchange in
POLICIES = "ResourcePolicies"  # catalog-document member: {resource ARN: {Policy, RevisionId}}


class Exchange(NamedTuple):
    """What the signature covers and policies read, beyond the headers okura keeps."""
    method: bytes
    url: bytes
    headers: dict[bytes, bytes]  # every header, by lower-case name
    peer: str  # the client's address (aws:SourceIp)
    secure: bool  # over TLS (aws:SecureTransport)


@lru_cache(maxsize=1024)
def compiled(text: str) -> Policy | None:
    """A stored resource policy, parsed once (None: unusable, which allows nothing)."""
    try:
        return Policy(text, resource_policy=True)
    except PolicyError:
        return None


def resource_policy(table: Any, resource: str) -> Policy | None:
    """The policy deciding for a resource with the table's: a stream's own, else the
    table's (which covers its indexes)."""
    stored = table.doc.get(POLICIES)
    if not stored:
        return None
    entry = stored.get(resource if "/stream/" in resource else table.arn)
    return None if entry is None else compiled(entry["Policy"])


class Guard:
    def __init__(self, db: Database, mode: str, identities: dict[str, Identity]) -> None:
        self.db = db
        self.enforcing = mode == "enforce"
        self.identities = identities
        self.verifier = sigv4.Verifier(self._secret)
        self.denials = db.metrics.access_denials  # warn mode's would-be denials, counted

    def _secret(self, access_key: str) -> str | None:
        identity = self.identities.get(access_key)
        return None if identity is None else identity.secret

    def verified(self, exchange: Exchange, body: bytes) -> tuple[Identity, str]:
        """The identity and region a request is signed by; raises DynamoDB's errors."""
        signed = self.verifier.verify(exchange.method, exchange.url, exchange.headers, body,
                                      self.db.clock.now())
        identity = self.identities[signed.access_key]  # the verifier knew its secret
        if signed.token != identity.token:
            raise errors.unrecognized_client()
        if identity.expires is not None and self.db.clock.now() >= identity.expires:
            raise errors.expired_token()
        return identity, signed.region

    def authenticate(self, request: Any, body: bytes) -> None:
        """Set the request's identity, region and access key from its verified signature."""
        exchange: Exchange = request.headers[RAW]
        try:
            identity, region = self.verified(exchange, body)
        except errors.DynamoError as error:
            if self.enforcing:
                raise
            self._unverified(request, exchange)
            self.refused("dynamodb:" + request.operation, "*", error.name, error.message or "")
            request.identity = None
            return
        request.identity = identity
        request.region = region
        request.access_key = identity.access_key

    @staticmethod
    def _unverified(request: Any, exchange: Exchange) -> None:
        """Region and access key as --auth off reads them (warn mode, bad signature)."""
        authorization = exchange.headers.get(b"authorization")
        if not authorization:
            raise errors.missing_authentication_token()
        header = authorization.decode("latin-1")
        has_date = b"x-amz-date" in exchange.headers or b"date" in exchange.headers
        params = sigv4.authorization_params(header, has_date)
        scope = sigv4.credential_scope(params["Credential"], header)
        request.region, request.access_key = scope[2], scope[0]

    async def authorize(self, ctx: Context, body: dict) -> None:
        """Every demand of the request is allowed, or (enforce) AccessDenied."""
        identity: Identity | None = ctx.identity
        if identity is None:  # warn mode: its failed authentication is counted already
            return
        exchange: Exchange = ctx.headers[RAW]  # type: ignore[attr-defined]
        request_facts = {"aws:sourceip": [exchange.peer],
                         "aws:securetransport": ["true" if exchange.secure else "false"],
                         "aws:requestedregion": [ctx.region]}
        now = self.db.clock.now()
        for demand in await demands_of(ctx, ctx.operation, body):
            reason = self.decide(identity, demand, Facts(demand.facts, request_facts,
                                                         identity.facts, now))
            if reason is not None:
                message = (f"User: {identity.arn} is not authorized to perform: {demand.action} "
                           f"on resource: {demand.resource} {reason}")
                if self.enforcing:
                    raise errors.access_denied(message)
                self.refused(demand.action, demand.resource, "AccessDeniedException", message)

    def decide(self, identity: Identity, demand: Demand, facts: Facts) -> str | None:
        """None if allowed, else why not, in AWS's words."""
        action, resource = demand.action, demand.resource
        mine = judge(identity.statements, action, resource, facts)
        if mine.denied:
            return "with an explicit deny in an identity-based policy"
        theirs = NOTHING
        policy = None if demand.table is None else resource_policy(demand.table, resource)
        if policy is not None:
            theirs = judge(policy.statements, action, resource, facts,
                           lambda principals: principals.naming(identity.arns, identity.account))
            if theirs.denied:
                return "with an explicit deny in a resource-based policy"
        if identity.account == self.db.account:
            if mine.allowed or theirs.allowed:
                return None
            return f"because no identity-based policy allows the {action} action"
        if not (theirs.allowed or theirs.account_allowed):
            return f"because no resource-based policy allows the {action} action"
        return None if mine.allowed else \
            f"because no identity-based policy allows the {action} action"

    def refused(self, action: str, resource: str, reason: str, message: str) -> None:
        """warn mode: count and log a would-be denial."""
        key = (action, resource, reason)
        self.denials[key] = self.denials.get(key, 0) + 1
        log.warning("auth warn: would deny %s on %s: %s: %s", action, resource, reason, message)

    def admin_refusal(self, exchange: Exchange, body: bytes) -> str | None:
        """Why an admin request is refused (enforce: an admin key's signature is needed)."""
        if not self.enforcing:
            return None
        try:
            identity, _region = self.verified(exchange, body)
        except errors.DynamoError as error:
            return f"{error.name}: {error.message}"
        if not identity.admin:
            return f"{identity.arn} is not an admin (admin_access_key_ids)"
        return None
