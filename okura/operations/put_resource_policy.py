"""PutResourcePolicy: attach a resource-based policy to a table (covering its indexes) or
a stream. Putting the same document again changes nothing and gives the same RevisionId
(the API reference); a revision id is the clock's milliseconds, past the one it replaces."""
from __future__ import annotations

from okura import errors
from okura.access.conditions import Facts, PolicyError
from okura.access.policies import Policy, judge
from okura.core.context import Context
from okura.operations.shared.resource_policies import check_expected, current, resource, save

MAX_POLICY_BYTES = 20 * 1024  # whitespace counts (the API reference)


async def handle(ctx: Context, body: dict) -> dict:
    arn, text = body["ResourceArn"], body["Policy"]
    table, key = await resource(ctx, arn)
    if len(text.encode()) > MAX_POLICY_BYTES:
        raise errors.validation(  # unverified wording
            f"Resource-based policy document exceeds the maximum size of {MAX_POLICY_BYTES} bytes")
    try:
        policy = Policy(text, resource_policy=True)
    except PolicyError as error:
        raise errors.validation(f"Invalid policy document: {error}") from None  # unverified wording
    found = current(table, key)
    check_expected(body, found, arn)
    if found is not None and found["Policy"] == text:
        return {"RevisionId": found["RevisionId"]}
    _check_self_access(ctx, policy, key, body.get("ConfirmRemoveSelfResourceAccess") is True)
    revision = int(ctx.clock.now() * 1000)
    if found is not None:
        revision = max(revision, int(found["RevisionId"]) + 1)
    await save(ctx, table, key, {"Policy": text, "RevisionId": str(revision)})
    return {"RevisionId": str(revision)}


def _check_self_access(ctx: Context, policy: Policy, resource_arn: str, confirmed: bool) -> None:
    """A policy that explicitly denies its author the next PutResourcePolicy on the resource
    needs ConfirmRemoveSelfResourceAccess (with --auth warn or enforce: then the author is known)."""
    identity = ctx.identity
    if identity is None or confirmed:
        return
    verdict = judge(policy.statements, "dynamodb:PutResourcePolicy", resource_arn,
                    Facts({}, {}, identity.facts, ctx.clock.now()),
                    lambda principals: principals.naming(identity.arns, identity.account))
    if verdict.denied:
        raise errors.validation(  # unverified wording
            "The resource-based policy would remove your permission to change it. Set "
            "ConfirmRemoveSelfResourceAccess to true to confirm.")
