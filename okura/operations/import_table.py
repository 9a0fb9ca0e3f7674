"""ImportTable: create a table (with its global secondary indexes) and start a job that
fills it from S3 objects in CSV, DynamoDB JSON or Ion, uncompressed, GZIP or ZSTD;
answers at once with the import's description, IN_PROGRESS. The table stays CREATING,
not served, until the job (core.transfer.importer) ends."""
from __future__ import annotations

from okura import arns, errors
from okura.core import spaces
from okura.core.context import Context
from okura.core import jobs as background
from okura.core.transfer import job_records
from okura.operations import create_table  # the one set of rules for a new table
from okura.operations.shared import transfer_jobs

# A CREATING table is served from its StatusUntil on: an importing table from when its
# import ends, which sets it (far in the future until then, as a JSON number).
UNTIL_IMPORTED = 1e15
LOG_GROUP = "/aws-dynamodb/imports"  # where DynamoDB logs import errors (CloudWatch)


async def handle(ctx: Context, body: dict) -> dict:
    earlier = await transfer_jobs.with_token(ctx, spaces.IMPORTS, body, errors.import_conflict)
    if earlier is not None:
        return {"ImportTableDescription": earlier["Description"]}
    parameters = body["TableCreationParameters"]
    doc = create_table.table_document(ctx, parameters)
    doc["StatusUntil"] = UNTIL_IMPORTED
    db = ctx.db
    table = await db.catalog.create(ctx.region, doc)
    if table is None:
        raise errors.resource_in_use(f"Table already exists: {doc['TableName']}")  # unverified
    now = db.clock.now()
    arn = arns.import_(table.arn, background.fresh_id(now))
    description = {
        "ImportArn": arn,
        "ImportStatus": job_records.IN_PROGRESS,
        "TableArn": table.arn,
        "TableId": doc["TableId"],
        "S3BucketSource": body["S3BucketSource"],
        "ErrorCount": 0,
        "CloudWatchLogGroupArn": arns.log_group(ctx.region, db.account, LOG_GROUP),
        "InputFormat": body["InputFormat"],
        "InputCompressionType": body.get("InputCompressionType") or "NONE",
        "TableCreationParameters": parameters,
        "StartTime": now,
        "ProcessedSizeBytes": 0,
        "ProcessedItemCount": 0,
        "ImportedItemCount": 0,
    }
    record = transfer_jobs.new_record(ctx, table, body, description,
                                      ("ClientToken", "InputFormatOptions"),
                                      Keys=None, File=0, Line=0)
    await job_records.start(db, spaces.IMPORTS, record)
    return {"ImportTableDescription": description}
