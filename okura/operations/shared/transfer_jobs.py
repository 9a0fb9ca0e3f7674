"""What the export, import and bulk put operations share: a new job's record, finding a
job by ARN, by client token, and listing jobs a page at a time."""
from __future__ import annotations

import orjson

from okura import errors
from okura.core import paging
from okura.core.catalog import Table
from okura.core.context import Context
from okura.core.transfer import job_records

TOKEN_LIFE = 8 * 3600  # seconds a ClientToken stays bound to its request (API reference)


def request_digest(body: dict) -> str:
    """The request as a ClientToken binds it: every member but the token."""
    return orjson.dumps({k: v for k, v in body.items() if k != "ClientToken"},
                        option=orjson.OPT_SORT_KEYS).decode()


def new_record(ctx: Context, table: Table, body: dict, description: dict,
               optional: tuple[str, ...], **progress) -> dict:
    """A new job's record: the request as its ClientToken binds it, and its description,
    to which the request's `optional` members are copied when given."""
    for member in optional:
        if body.get(member) is not None:
            description[member] = body[member]
    return {"Region": ctx.region, "TableName": table.name, "TableRowId": table.id,
            "Request": request_digest(body), "Description": description, **progress}


async def in_region(ctx: Context, space: int) -> list[dict]:
    """The region's jobs of one kind, oldest first."""
    records = [record for record in await job_records.every(ctx.db, space)
               if record["Region"] == ctx.region]
    records.sort(key=lambda record: record["Description"]["StartTime"])
    return records


async def listed(ctx: Context, space: int, table_arn: str | None) -> list[dict]:
    """The region's jobs of one kind (of one table, given its ARN), oldest first."""
    records = await in_region(ctx, space)
    if table_arn is None:
        return records
    return [record for record in records if record["Description"]["TableArn"] == table_arn]


async def described(ctx: Context, space: int, arn: str, not_found) -> dict:
    """The description of the job `arn` of the request's region; `not_found(arn)` if none."""
    record = await job_records.load(ctx.db, space, arn)
    if record is None or record["Region"] != ctx.region:
        raise not_found(arn)
    return record["Description"]


async def with_token(ctx: Context, space: int, body: dict, conflict) -> dict | None:
    """The job an earlier request with this ClientToken started within the last 8 hours,
    if it asked for the same; `conflict()` if it asked for something else."""
    token = body.get("ClientToken")
    if token is None:
        return None
    now = ctx.db.clock.now()
    for record in await in_region(ctx, space):
        if (record["Description"].get("ClientToken") == token
                and now - record["Description"]["StartTime"] < TOKEN_LIFE):
            if record["Request"] != request_digest(body):
                raise conflict()
            return record
    return None


def page(ctx: Context, records: list[dict], token: str | None, limit: int, arn_member: str,
         hexed: bool = False) -> tuple[list[dict], str | None]:
    """Up to `limit` records after the one a NextToken names; and the NextToken to go on
    from, if more follow: the last ARN listed, sealed (core/sealed.py), in hex when
    `hexed` (ListImports' model asks for hex digits in groups of 16, at least 112)."""
    seal = ctx.db.seal
    purpose = arn_member.encode()
    after = None
    if token is not None:
        after = seal.hex_opened(purpose, token) if hexed else seal.opened(purpose, token)
        if after is None:
            raise errors.validation("Invalid NextToken")  # unverified
    start = paging.following([record["Description"][arn_member] for record in records], after)
    if start is None:
        raise errors.validation("Invalid NextToken")  # unverified
    chosen, last = paging.page(records, limit, start)
    if last is None:
        return chosen, None
    arn = last["Description"][arn_member]
    return chosen, seal.hex_token(purpose, arn, 56) if hexed else seal.token(purpose, arn)


def summaries(list_member: str, chosen: list[dict], after: str | None,
              members: tuple[str, ...]) -> dict:
    """A List reply: the chosen jobs' summaries (the members of each description it
    has), and the NextToken if more follow."""
    reply: dict = {list_member: [
        {member: record["Description"][member] for member in members
         if member in record["Description"]} for record in chosen]}
    if after is not None:
        reply["NextToken"] = after
    return reply
