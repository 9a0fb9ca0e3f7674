"""On-failure destinations: where a mapping records the batches it gave up on, in
Lambda's invocation-record shape (requestContext, responseContext, version,
timestamp, DDBStreamBatchInfo).

Lambda sends these to an SQS queue, SNS topic or S3 bucket; okura writes them
- to a directory (`file:///abs/dir` or `/abs/dir`): one JSON file per record, named
  by its timestamp and request id; like Lambda's S3 destination it adds the
  invocation's `payload` (the event the function was given);
- or to an okura table (its ARN, of any partition): one item per
  record, its members as attributes; the table's partition key gets the request id,
  a string sort key the timestamp (a number sort key: epoch milliseconds).
"""
from __future__ import annotations

import logging
import os
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import orjson

from okura import arns
from okura.core import items
from okura.core.context import Context
from okura.core.items import Change

if TYPE_CHECKING:
    from okura.core.database import Database

log = logging.getLogger("okura.triggers")


def iso(seconds: float, milliseconds: bool = True) -> str:
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    if milliseconds:
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def failure_record(condition: str, function_arn: str, invocations: int,
                   function_error: str | None, shard_id: str, stream_arn: str,
                   records: list[dict], now: float) -> dict:
    first, last = records[0]["dynamodb"], records[-1]["dynamodb"]
    record: dict = {"requestContext": {"requestId": str(uuid.uuid4()),
                                       "functionArn": function_arn, "condition": condition,
                                       "approximateInvokeCount": invocations}}
    if invocations:
        record["responseContext"] = {"statusCode": 200, "executedVersion": "$LATEST"}
        if function_error:
            record["responseContext"]["functionError"] = function_error
    record.update({"version": "1.0", "timestamp": iso(now), "DDBStreamBatchInfo": {
        "shardId": shard_id,
        "startSequenceNumber": first["SequenceNumber"],
        "endSequenceNumber": last["SequenceNumber"],
        "approximateArrivalOfFirstRecord": iso(first["ApproximateCreationDateTime"], False),
        "approximateArrivalOfLastRecord": iso(last["ApproximateCreationDateTime"], False),
        "batchSize": len(records), "streamArn": stream_arn}})
    return record


def attribute(value: Any) -> dict:
    """A JSON value as a DynamoDB AttributeValue."""
    if isinstance(value, bool):
        return {"BOOL": value}
    if value is None:
        return {"NULL": True}
    if isinstance(value, (int, float)):
        return {"N": str(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, list):
        return {"L": [attribute(v) for v in value]}
    return {"M": {k: attribute(v) for k, v in value.items()}}


async def send(db: Database, destination: str, record: dict, event: dict) -> None:
    """Write one failure record; a destination that cannot take it is logged (the
    records are discarded then, as Lambda discards them when sending fails)."""
    try:
        if destination.startswith(arns.PREFIX):
            await _to_table(db, destination, record)
        else:
            _to_directory(destination.removeprefix("file://"), record, event)
    except Exception:
        log.exception("could not write a failure record to %s", destination)


def _to_directory(directory: str, record: dict, event: dict) -> None:
    os.makedirs(directory, exist_ok=True)
    name = f"{record['timestamp']}-{record['requestContext']['requestId']}.json".replace(
        ":", "-")
    # written under a dot-name and renamed: whoever watches the directory for *.json
    # files reads whole records only, as an S3 object appears whole
    partial = os.path.join(directory, f".{name}.partial")
    with open(partial, "wb") as handle:
        handle.write(orjson.dumps({**record, "payload": event}, option=orjson.OPT_INDENT_2))
    os.replace(partial, os.path.join(directory, name))


async def _to_table(db: Database, arn: str, record: dict) -> None:
    parsed = arns.parse_table(arn)
    table = None if parsed is None else await db.catalog.get(parsed.region, parsed.name)
    if table is None:
        raise LookupError(f"no table {arn}")
    item = {key: attribute(value) for key, value in record.items()}
    request_id = record["requestContext"]["requestId"]
    item[table.hash_key] = {table.hash_type: request_id}
    if table.range_key is not None:
        moment = datetime.strptime(record["timestamp"], "%Y-%m-%dT%H:%M:%S.%f%z")
        item[table.range_key] = ({"S": record["timestamp"]} if table.range_type == "S" else
                                 {"N": str(int(moment.timestamp() * 1000))})
    ctx = Context(db, "PutItem", table.region)
    await items.write_all(ctx, [Change(table, table.key_of(item), lambda old: item)])
