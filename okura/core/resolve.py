"""The one table resolver: how every operation finds the table a request names (by
name or ARN), fast paths and PartiQL included. It notes the table in the request
context, where metrics (and later access control) find it."""
from __future__ import annotations

import re
from typing import Callable

from okura import errors
from okura.core.catalog import Table, is_local
from okura.core.context import Context

TABLE_ARN = re.compile(
    r"arn:(aws[a-z-]*):dynamodb:([a-z0-9-]+):(\d{12}):table/([a-zA-Z0-9_.-]{3,255})")


def local_name(ctx: Context, value: str) -> str | None:
    """The table a TableName member names: a name (the request model checked it), or a
    table ARN (arn:aws:dynamodb:region:account:table/NAME), whose NAME follows the same
    rules: nothing else can name a table, or come to be one. None for an ARN of another
    partition, region or account: it names no table this request may reach."""
    if value.startswith("arn:"):
        match = TABLE_ARN.fullmatch(value)
        if match is None:
            raise invalid_arn(value)
        return match.group(4) if is_local(value, ctx.region, ctx.account) else None
    return value


def table_name(ctx: Context, value: str,
               missing: Callable[[str], errors.DynamoError] | None = None) -> str:
    """local_name, where an ARN of another partition, region or account gets what the
    operation answers for a table that does not exist: `missing(name)`, by default
    ResourceNotFoundException "Requested resource not found" (what users quote for
    another account's table; for another region or partition, unverified)."""
    name = local_name(ctx, value)
    if name is None:
        name = value.rpartition("/")[2]
        raise errors.resource_not_found() if missing is None else missing(name)
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


async def serving(ctx: Context, value: str) -> Table:
    """The table a data operation addresses: ResourceNotFound unless it serves data."""
    table = await ctx.db.catalog.get(ctx.region, table_name(ctx, value))
    if table is None or not _serves(ctx, table):
        raise errors.resource_not_found()
    return _noted(ctx, table)


def held(ctx: Context, name: object) -> Table | None:
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


async def existing(ctx: Context, value: str) -> Table:
    """The table a control-plane request addresses, in any status."""
    name = table_name(ctx, value, errors.table_not_found)
    table = await ctx.db.catalog.get(ctx.region, name)
    if table is None:
        raise errors.table_not_found(name)
    return _noted(ctx, table)


async def by_arn(ctx: Context, arn: str) -> Table:
    """The table a resource ARN names, in the request's region and account (tags)."""
    match = TABLE_ARN.fullmatch(arn)
    if match is None:
        raise invalid_arn(arn)
    table = None
    if is_local(arn, ctx.region, ctx.account):
        table = await ctx.db.catalog.get(ctx.region, match.group(4))
    if table is None:
        raise errors.resource_not_found(f"Requested resource not found: ResourcArn: {arn} not found")
    return _noted(ctx, table)
