"""TagResource, UntagResource and ListTagsOfResource on tables, named by ARN."""
from __future__ import annotations

from okura import arns, errors
from okura.core.catalog import ACTIVE, Table
from okura.core import table_lookup
from okura.core.context import Context
from okura.operations.shared.table_rules import in_use
from okura.operations.shared.table_settings import merged_tags


async def _table(ctx: Context, arn: str) -> Table:
    if not arn.startswith(arns.PREFIX):  # recorded, before the ARN's parts are read
        raise errors.validation(
            f"One or more parameter values were invalid: ARNs must start with 'arn:': {arn}")
    return await table_lookup.table_by_arn(ctx, arn)


async def _change_tags(ctx: Context, table: Table, tags: dict) -> None:
    db = ctx.db
    status = table.status(db.clock.now())
    if status != ACTIVE:
        raise in_use(table, status)
    await db.catalog.save(table, dict(table.doc, Tags=tags))


async def tag_resource(ctx: Context, body: dict) -> dict:
    table = await _table(ctx, body["ResourceArn"])
    await _change_tags(ctx, table, merged_tags(table.doc.get("Tags", {}), body["Tags"]))
    return {}


async def untag_resource(ctx: Context, body: dict) -> dict:
    table = await _table(ctx, body["ResourceArn"])
    removed = set(body["TagKeys"])
    await _change_tags(ctx, table, {key: value for key, value in
                                        table.doc.get("Tags", {}).items() if key not in removed})
    return {}


async def list_tags_of_resource(ctx: Context, body: dict) -> dict:
    arn = body["ResourceArn"]
    try:
        table = await _table(ctx, arn)
    except errors.DynamoError as error:
        if error.name != "ResourceNotFoundException" or arns.parse_table(arn) is None or \
                not arns.is_local(arn, ctx.region, ctx.account):
            raise
        # recorded: a table of the caller's region and account that does not exist is
        # AccessDenied (the caller named as the account's root: unverified)
        raise errors.access_denied(
            f"User: {arns.root(ctx.region, ctx.account)} is not authorized to perform: "
            f"dynamodb:ListTagsOfResource on resource: {arn}") from None
    return {"Tags": [{"Key": key, "Value": value}
                     for key, value in table.doc.get("Tags", {}).items()]}
