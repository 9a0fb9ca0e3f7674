"""StartBulkPutItems: start a job that writes the DynamoDB JSON or Ion objects under an S3
prefix into an existing table (core.transfer.bulk), and answer at once with its
description, IN_PROGRESS. Each line is a PutItem of its "Item" under its own
ConditionExpression: `plan` lends PutItem's rules to the job."""
from __future__ import annotations

from okura import arns, errors
from okura.core import items, jobs as background, table_lookup
from okura.core.catalog import ACTIVE, UPDATING, Table
from okura.core.context import Context
from okura.core.transfer import bulk, job_records
from okura.operations.shared import transfer_jobs
from okura.operations.shared.single_item import write_expressions
from okura.operations.shared.write_actions import put_change
from okura.values import key_rules, validation

STANDARD = "STANDARD"
# What a line may hold beside its Item, and of which type (developer guide, "Per-item
# condition expressions"; the members are PutItem's)
_CONDITION = {"ConditionExpression": str, "ExpressionAttributeNames": dict,
              "ExpressionAttributeValues": dict}


@bulk.plans
def plan(table: Table, record: dict) -> items.Change:
    """A line's PutItem, after PutItem's checks (a DynamoError refuses the line)."""
    body: dict = {"Item": record["Item"], "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
    for member, kind in _CONDITION.items():
        if member in record:
            if not isinstance(record[member], kind):
                raise errors.validation(f"Invalid {member}")  # unverified
            body[member] = record[member]
    names = body.get("ExpressionAttributeNames") or {}
    if not all(isinstance(name, str) for name in names.values()):
        raise errors.validation("Invalid ExpressionAttributeNames")  # unverified
    item = body["Item"]
    validation.check_item(item)
    condition, _ = write_expressions(body, "PutItem")
    key_rules.check_item_keys(item, table.schema)
    return put_change(table, item, condition, body)


def _check_output(output: dict) -> None:
    """The output location's rules the model's shape does not state (unverified
    messages)."""
    if not output.get("S3Bucket"):
        raise errors.validation("OutputS3Configuration.S3Bucket must be specified")
    if output.get("S3SseAlgorithm") != "KMS" and output.get("S3SseKmsKeyId") is not None:
        raise errors.validation("S3SseKmsKeyId can only be specified when S3SseAlgorithm is KMS")


def _writable(table: Table, now: float) -> None:
    """ACTIVE, or UPDATING for a change other than an index being built (developer
    guide, "Table state requirements"; the message is unverified)."""
    status = table.status(now)
    building = any(index.status == "CREATING" for index in table.indexes)
    if status != ACTIVE and (status != UPDATING or building):
        raise errors.resource_in_use(
            f"Table {table.name} is not in a state that allows a bulk operation: {status}")


async def handle(ctx: Context, body: dict) -> dict:
    table = await table_lookup.any_status_table(ctx, body["TableName"])
    _check_output(body["OutputS3Configuration"])
    earlier = await transfer_jobs.with_token(ctx, bulk.SPACE, body,
                                             errors.idempotent_parameter_mismatch)
    if earlier is not None:
        return {"BulkOperationDescription": earlier["Description"]}
    now = ctx.db.clock.now()
    _writable(table, now)
    source = body["InputS3Configuration"]
    description: dict = {
        "BulkOperationArn": arns.bulk_operation(table.arn, background.fresh_id(now)),
        "BulkOperationStatus": bulk.IN_PROGRESS,
        "TableDetails": [{"TableName": table.name, "TableId": table.doc["TableId"]}],
        "InputS3Configuration": dict(source, InputCompressionType=source.get(
            "InputCompressionType") or "NONE"),
        "OutputS3Configuration": body["OutputS3Configuration"],
        "StartTime": now,
        "ProcessedItemCount": 0,
        "ProcessedInputBytes": 0,
        "FailedItemCount": 0,
        "PerformanceTier": body.get("PerformanceTier") or STANDARD,
    }
    record = transfer_jobs.new_record(ctx, table, body, description,
                                      ("ClientToken", "MaxWriteRequestUnits"),
                                      Objects=None, File=0, Line=0)
    await job_records.start(ctx.db, bulk.SPACE, record)
    return {"BulkOperationDescription": description}
