"""TagResource, UntagResource and ListTagsOfResource on tables, named by ARN."""
from __future__ import annotations

from okura import arns, errors
from okura.core.catalog import ACTIVE, Table
from okura.core import table_lookup
from okura.core.context import Context
from okura.operations.shared.table_rules import in_use
from okura.operations.shared.table_settings import merged_tags


async def _table(ctx: Context, arn: str, listed: list | None = None,
                 none_listed: str = "") -> Table:
    """The table `arn` names; `listed`: the tags or keys a change names, refused with
    `none_listed` when empty (recorded texts, judged before the table is looked for)."""
    if not arn.startswith(arns.PREFIX):  # recorded, before the ARN's parts are read
        raise errors.validation(
            f"One or more parameter values were invalid: ARNs must start with 'arn:': {arn}")
    if listed is not None and not listed:
        raise errors.validation(none_listed)
    return await table_lookup.table_by_arn(ctx, arn)


async def _change_tags(ctx: Context, table: Table, tags: dict) -> None:
    db = ctx.db
    status = table.status(db.clock.now())
    if status != ACTIVE:
        raise in_use(table, status)
    await db.catalog.save(table, dict(table.doc, Tags=tags))


async def tag_resource(ctx: Context, body: dict) -> bytes:
    """An empty reply body, as DynamoDB's (the operation has no output)."""
    tags = body["Tags"]
    table = await _table(ctx, body["ResourceArn"], tags,
                         "Atleast one Tag needs to be provided as Input.")
    await _change_tags(ctx, table, merged_tags(table.doc.get("Tags", {}), tags))
    return b""


async def untag_resource(ctx: Context, body: dict) -> bytes:
    keys = body["TagKeys"]
    table = await _table(ctx, body["ResourceArn"], keys,
                         "Atleast one Tag Key needs to be provided as Input.")
    removed = set(keys)
    await _change_tags(ctx, table, {key: value for key, value in
                                        table.doc.get("Tags", {}).items() if key not in removed})
    return b""


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
