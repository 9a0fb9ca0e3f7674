"""What PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy share: the resource
an ARN names (a table, whose policy also covers its indexes, or one of its streams)
and its policy, kept in the table's catalog document (core.catalog.POLICIES), so every
node sharing the database sees it."""
from __future__ import annotations

from okura import arns, errors
from okura.core import table_lookup
from okura.core.catalog import ACTIVE, POLICIES, Table
from okura.core.context import Context
from okura.operations.shared.table_rules import in_use
from okura.operations.streams import existing_stream

NO_POLICY = "NO_POLICY"  # ExpectedRevisionId: attach only where no policy is


async def resource(ctx: Context, arn: str) -> tuple[Table, str]:
    """(the table, the key of the resource's policy: the table's ARN or the stream's)."""
    if arns.is_stream(arn):
        stream = await existing_stream(ctx, arn)  # of the request's region
        table = await table_lookup.table_or_none(ctx, stream.doc["TableName"])
        if table is None:
            raise errors.resource_not_found(
                f"Requested resource not found: Stream: {arn} not found")  # unverified
        return table, stream.arn
    table = await table_lookup.table_by_arn(ctx, arn)
    return table, table.arn


def current(table: Table, key: str) -> dict | None:
    """{"Policy", "RevisionId"} of the resource, or None."""
    return table.doc.get(POLICIES, {}).get(key)


def not_found(arn: str) -> errors.DynamoError:
    return errors.policy_not_found(  # unverified wording
        f"Resource-based policy not found for the provided ResourceArn: {arn}")


def check_expected(body: dict, found: dict | None, arn: str) -> None:
    """ExpectedRevisionId must be the policy's, or NO_POLICY where there is none."""
    expected = body.get("ExpectedRevisionId")
    if expected is None:
        return
    if expected == NO_POLICY and found is None:
        return
    if found is None or found["RevisionId"] != expected:
        raise not_found(arn) if found is None or expected == NO_POLICY else errors.policy_not_found(
            f"Resource-based policy revision id mismatch for the provided ResourceArn: {arn}. "
            f"Expected revision id: {expected}")  # unverified wording


async def save(ctx: Context, table: Table, key: str, entry: dict | None) -> None:
    """Set (or, with None, remove) the resource's policy: a change of the table's
    document, which a table that is not ACTIVE refuses."""
    status = table.status(ctx.clock.now())
    if status != ACTIVE:
        raise in_use(table, status)
    policies = dict(table.doc.get(POLICIES, {}))
    if entry is None:
        policies.pop(key, None)
    else:
        policies[key] = entry
    doc = dict(table.doc)
    if policies:
        doc[POLICIES] = policies
    else:
        doc.pop(POLICIES, None)
    await ctx.db.catalog.save(table, doc)
