"""TagResource, UntagResource and ListTagsOfResource on tables, named by ARN."""
from __future__ import annotations

from okura import errors, shapes
from okura.core.catalog import ACTIVE, Table
from okura.operations.table_rules import TABLE_ARN, in_use, invalid_arn
from okura.operations.table_settings import merged_tags

async def _tagged_table(request, arn: str) -> Table:
    """The table an ARN names, in this region and account."""
    match = TABLE_ARN.fullmatch(arn)
    if match is None:
        raise invalid_arn(arn)
    db = request.app.db
    region, account, name = match.groups()
    table = None
    if region == request.region and account == db.account:
        table = await db.catalog.get(region, name)
    if table is None:
        raise errors.resource_not_found(f"Requested resource not found: ResourcArn: {arn} not found")
    return table


async def _change_tags(request, table: Table, tags: dict) -> None:
    db = request.app.db
    status = table.status(db.clock.now())
    if status != ACTIVE:
        raise in_use(table, status)
    await db.catalog.save(table, dict(table.doc, Tags=tags))


async def tag_resource(request, body: dict) -> dict:
    shapes.check("TagResource", body)
    table = await _tagged_table(request, body["ResourceArn"])
    await _change_tags(request, table, merged_tags(table.doc.get("Tags", {}), body["Tags"]))
    return {}


async def untag_resource(request, body: dict) -> dict:
    shapes.check("UntagResource", body)
    table = await _tagged_table(request, body["ResourceArn"])
    removed = set(body["TagKeys"])
    await _change_tags(request, table, {key: value for key, value in
                                        table.doc.get("Tags", {}).items() if key not in removed})
    return {}


async def list_tags_of_resource(request, body: dict) -> dict:
    shapes.check("ListTagsOfResource", body)
    table = await _tagged_table(request, body["ResourceArn"])
    return {"Tags": [{"Key": key, "Value": value}
                     for key, value in table.doc.get("Tags", {}).items()]}
