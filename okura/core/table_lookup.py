"""The one table resolver: how every operation finds the table a request names (by
name or ARN), fast paths and PartiQL included. It notes the table in the request
context, where metrics (and later access control) find it."""
from __future__ import annotations

from typing import Callable

from okura import arns, errors
from okura.core.catalog import Table
from okura.core.context import Context

Missing = Callable[[str], errors.DynamoError]  # the error for a table (named) not found


def local_name(ctx: Context, value: str) -> str | None:
    """The table a TableName member names: a name (the request model checked it), or a
    table ARN (arns.parse_table), whose NAME follows the same rules: nothing else can
    name a table, or come to be one. None for an ARN of another partition, region or
    account: it names no table this request may reach."""
    if value.startswith(arns.PREFIX):
        parsed = arns.parse_table(value)
        if parsed is None:
            raise invalid_arn(value)
        return parsed.name if arns.is_local(value, ctx.region, ctx.account) else None
    return value


def table_name(ctx: Context, value: str, missing: Missing | None = None) -> str:
    """local_name, where an ARN of another partition, region or account gets what the
    operation answers for a table that does not exist: `missing(name)`, by default
    ResourceNotFoundException "Requested resource not found" (what users quote for
    another account's table; for another region or partition, unverified)."""
    name = local_name(ctx, value)
    if name is None:  # a table ARN of elsewhere: `missing` names its table
        parsed = arns.parse_table(value)
        assert parsed is not None
        raise errors.resource_not_found() if missing is None else missing(parsed.name)
    return name


def invalid_arn(arn: str) -> errors.DynamoError:
    return errors.validation(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")  # unverified


def _noted(ctx: Context, table: Table) -> Table:
    if ctx.table is None:
        ctx.table = table
    return table


def _serves(ctx: Context, table: Table) -> bool:
    """Whether the table serves data now (see Table.serves_from)."""
    return not table.serves_from or table.serves_from <= ctx.db.clock.now()


async def serving_table(ctx: Context, value: str) -> Table:
    """The table a data operation addresses: ResourceNotFound unless it serves data."""
    table = cached_serving_table(ctx, value)  # the commonest case, without the catalog's coroutine
    if table is not None:
        return table
    table = await ctx.db.catalog.get(ctx.region, table_name(ctx, value))
    if table is None or not _serves(ctx, table):
        raise errors.resource_not_found()
    return _noted(ctx, table)


def cached_serving_table(ctx: Context, name: object) -> Table | None:
    """The fast paths' resolver: the table of exactly this name if this process holds it
    and it serves data; None sends the request the general way (which gives every
    error)."""
    if type(name) is not str:
        return None
    db = ctx.db
    table = db.catalog.cached(ctx.region, name)
    # _serves and _noted, inlined: the hot operations' every request passes here
    if table is None or (table.serves_from and table.serves_from > db.clock.now()):
        return None
    if ctx.table is None:
        ctx.table = table
    return table


async def table_or_none(ctx: Context, value: str, missing: Missing | None = None) -> Table | None:
    """The table a name or ARN names, in any status, or None if there is none; not
    noted (a restore's target, say, is not what the request is about). An ARN of another
    partition, region or account raises as table_name does."""
    return await ctx.db.catalog.get(ctx.region, table_name(ctx, value, missing))


async def any_status_table(ctx: Context, value: str, missing: Missing = errors.table_not_found) -> Table:
    """The table a control-plane request addresses, in any status: `missing(name)` if
    there is none (backups and point-in-time recovery answer TableNotFoundException)."""
    name = table_name(ctx, value, missing)
    table = await ctx.db.catalog.get(ctx.region, name)
    if table is None:
        raise missing(name)
    return _noted(ctx, table)


async def table_by_arn(ctx: Context, arn: str, missing: Missing | None = None) -> Table:
    """The table a resource ARN names (only an ARN may: tags, exports), in any status;
    `missing(name)` if none, by default ResourceNotFoundException naming the ARN."""
    if arns.parse_table(arn) is None:
        raise invalid_arn(arn)
    return await any_status_table(ctx, arn, missing or (lambda name: errors.resource_not_found(
        f"Requested resource not found: ResourcArn: {arn} not found")))
