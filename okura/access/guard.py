"""Access control of one server: --auth warn or enforce (with --auth off there is no
Guard and the server's path is unchanged).

`authenticate` verifies a request's signature (sigv4.py) and finds its identity
(identities.py); `authorize` checks every demand of the request (actions.py) against
the caller's identity-based policies and the resource's policy (policies.py), as AWS
decides. In `enforce` a failure is DynamoDB's error; in `warn` the request goes on as
with `off`, and the would-be denial is logged and counted (`denials`, by action,
resource and reason: GET /metrics shows them). `granted` answers the commonest request
from notes `authorize` keeps; `record` writes the audit log."""
from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from okura import arns, errors
from okura.access import sigv4
from okura.access.actions import Asks, demands_of
from okura.access.audit import Audit
from okura.access.conditions import Facts, PolicyError
from okura.access.demands import Demand
from okura.access.identities import Identity
from okura.access.policies import NOTHING, Policy, judge, unconditional
from okura.core.catalog import POLICIES
from okura.core.context import Context
from okura.core.database import Database
from okura.core.metrics import Metrics

log = logging.getLogger("okura.access")
RAW = ":exchange"  # the headers' member a guarded connection keeps the Exchange in, till
# App.dispatch puts it in the request's context


# What the signature covers and policies read, beyond the headers okura keeps: method,
# URL, every header (by lower-case name, a repeated one's values joined by commas), the
# client's address (aws:SourceIp), whether over TLS (aws:SecureTransport). A plain
# tuple: built for every request, which the server puts in its context (ctx.exchange).
Exchange = tuple[bytes, bytes, dict[bytes, bytes], str, bool]


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
    entry = stored.get(resource if arns.is_stream(resource) else table.arn)
    return None if entry is None else compiled(entry["Policy"])


def _parsed(headers: dict[bytes, bytes]) -> sigv4.Parsed | None:
    """A request's Authorization header, parsed (None: it has none, as a presigned
    request); raises DynamoDB's errors for a malformed one."""
    header = headers.get(b"authorization")
    return None if header is None else sigv4.parse(
        header.decode("latin-1"), b"x-amz-date" in headers or b"date" in headers,
        algorithm_checked=True)


class Guard:
    def __init__(self, db: Database, mode: str, identities: dict[str, Identity],
                 audit: Audit | None = None) -> None:
        self.db = db
        self.audit = audit
        self.enforcing = mode == "enforce"
        self.identities = identities
        self.verifier = sigv4.Verifier(self._secret)
        self.denials = db.features[Metrics].access_denials  # warn mode's would-be denials, counted

    def _secret(self, access_key: str) -> str | None:
        identity = self.identities.get(access_key)
        return None if identity is None else identity.secret

    def verified(self, exchange: Exchange, authorization: sigv4.Parsed | None,
                 body: bytes) -> tuple[Identity, str]:
        """The identity and region a request is signed by; raises DynamoDB's errors."""
        method, url, headers, _peer, _secure = exchange
        now = self.db.clock.now()
        access_key, region, token = self.verifier.verify(method, url, headers, body, now,
                                                         authorization)
        identity = self.identities[access_key]  # the verifier knew its secret
        if token != identity.token:
            raise errors.unrecognized_client()
        if identity.expires is not None and now >= identity.expires:
            raise errors.expired_token()
        return identity, region

    def authenticate(self, ctx: Context, body: bytes) -> None:
        """Set the request's identity, authorization, region and access key from its
        exchange (ctx.exchange), its Authorization header parsed once and its signature
        verified from that."""
        exchange: Exchange = ctx.exchange
        authorization = None
        try:
            authorization = _parsed(exchange[2])
            if authorization is not None:
                parts = ctx.authorization = authorization[0]
                ctx.region, ctx.access_key = parts.region, parts.access_key
            identity, region = self.verified(exchange, authorization, body)
        except errors.DynamoError as error:
            ctx.identity = None  # (the key and region claimed, if parsed, stay for the record)
            if self.enforcing:
                if self.audit is not None and self.audit.wanted(ctx.operation):
                    self.record(ctx, None, error)
                raise
            if authorization is None:  # nothing to go on as --auth off would
                raise error if exchange[2].get(b"authorization") else \
                    errors.missing_authentication_token() from None
            # a scope --auth off refuses is refused (with auth on, judged after the time)
            sigv4.in_scope(authorization[0], exchange[2][b"authorization"].decode("latin-1"))
            self.refused("dynamodb:" + ctx.operation, "*", error.name, error.message or "")
            return
        ctx.identity = identity
        ctx.region = region
        ctx.access_key = identity.access_key

    @staticmethod
    def granted(ctx: Context, body: dict) -> bool:
        """Whether the request is one already found allowed whatever its details: the
        same operation on the same table (the same document: tags and resource policy
        unchanged) by the same caller, decided without a condition (`authorize` notes
        those). The hot path: a few dict lookups."""
        identity: Identity | None = ctx.identity
        if identity is None:  # warn mode: its failed authentication is counted already
            return True
        name, index = body.get("TableName"), body.get("IndexName")
        if type(name) is not str or (index is not None and type(index) is not str):
            return False
        table = ctx.db.catalog.cached(ctx.region, name)
        return table is not None and \
            identity.granted.get((ctx.operation, ctx.region, name, index)) is table

    async def authorize(self, ctx: Context, asks: Asks, body: dict) -> None:
        """Every demand of the request (what its operation `asks`) is allowed, or
        (enforce) AccessDenied."""
        identity: Identity | None = ctx.identity
        if identity is None:
            return
        exchange: Exchange = ctx.exchange
        request_facts = {"aws:sourceip": [exchange[3]],
                         "aws:securetransport": ["true" if exchange[4] else "false"],
                         "aws:requestedregion": [ctx.region]}
        now = self.db.clock.now()
        demands = await demands_of(ctx, asks, body)
        allowed = True
        for demand in demands:
            reason = self.decide(identity, demand, Facts(demand.facts, request_facts,
                                                         identity.facts, now))
            if reason is not None:
                message = (f"User: {identity.arn} is not authorized to perform: {demand.action} "
                           f"on resource: {demand.resource} {reason}")
                if self.enforcing:
                    raise errors.access_denied(message)
                self.refused(demand.action, demand.resource, "AccessDeniedException", message)
                allowed = False
        if allowed and len(demands) == 1 and asks.one_table:
            self._note_granted(identity, ctx, body, demands[0])

    def _note_granted(self, identity: Identity, ctx: Context, body: dict, demand: Demand) -> None:
        """Remember an allowed one-table request that no condition decided (`granted`)."""
        table = demand.table
        name, index = body.get("TableName"), body.get("IndexName")
        if table is None or type(name) is not str or table.name != name or \
                (index is not None and type(index) is not str) or table.doc.get(POLICIES) or \
                identity.account != self.db.account or not self._unconditional(identity, demand):
            return
        if len(identity.granted) > 4096:
            identity.granted.clear()
        identity.granted[(ctx.operation, ctx.region, name, index)] = table

    @staticmethod
    def _unconditional(identity: Identity, demand: Demand) -> bool:
        """policies.unconditional, remembered per caller (its policies never change)."""
        key = (demand.action, demand.resource)
        known = identity.unconditional.get(key)
        if known is None:
            if len(identity.unconditional) > 4096:
                identity.unconditional.clear()
            known = identity.unconditional[key] = unconditional(
                identity.statements, demand.action, demand.resource)
        return known

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

    def record(self, ctx: Any, body: Any, error: errors.DynamoError | None) -> None:
        """The request's audit record."""
        assert self.audit is not None
        _method, _url, headers, peer, _secure = ctx.exchange
        self.audit.record(ctx, body, error, peer, headers.get(b"user-agent", b"").decode("latin-1"))

    def refused(self, action: str, resource: str, reason: str, message: str) -> None:
        """warn mode: count and log a would-be denial."""
        key = (action, resource, reason)
        self.denials[key] = self.denials.get(key, 0) + 1
        log.warning("auth warn: would deny %s on %s: %s: %s", action, resource, reason, message)

    def admin_refusal(self, exchange: Exchange, body: bytes) -> str | None:
        """Why an admin request is refused: an admin key's signature is needed (warn: the
        refusal is counted, as action okura:admin on the path, and the request goes on)."""
        try:
            identity, _region = self.verified(exchange, _parsed(exchange[2]), body)
            refusal = None if identity.admin else \
                f"{identity.arn} is not an admin (admin_access_key_ids)"
        except errors.DynamoError as error:
            refusal = f"{error.name}: {error.message}"
        if refusal is None or self.enforcing:
            return refusal
        path = exchange[1].partition(b"?")[0].decode("latin-1")
        self.refused("okura:admin", path, "AccessDeniedException", refusal)
        return None
