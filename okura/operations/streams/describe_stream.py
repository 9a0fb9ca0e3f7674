"""DescribeStream: a stream's status, key schema and shards (with their lineage)."""
from __future__ import annotations

from okura import errors
from okura.core import paging
from okura.core.context import Context
from okura.core.streams.state import sequence_number
from okura.operations.streams import check_limit, existing_stream, horizon

MAX_LIMIT = 100


def shard_description(shard: dict) -> dict:
    numbers = {"StartingSequenceNumber": sequence_number(shard["Start"])}
    if shard["End"] is not None:
        # A shard closed empty (its stream disabled before any write) still shows an
        # end, as every closed shard does; it is its start. (unverified)
        numbers["EndingSequenceNumber"] = sequence_number(max(shard["End"], shard["Start"]))
    out = {"ShardId": shard["Id"], "SequenceNumberRange": numbers}
    if shard["Parent"] is not None:
        out["ParentShardId"] = shard["Parent"]
    return out


async def handle(ctx: Context, body: dict) -> dict:
    limit = check_limit(body, MAX_LIMIT)
    shard_filter = body.get("ShardFilter")
    if shard_filter is not None:
        # A filter names both its type and its shard (recorded: a ValidationException;
        # the wording, the model's for a missing member, unverified).
        missing = [f"Value null at 'shardFilter.{field}' failed to satisfy constraint: "
                   "Member must not be null"
                   for field, member in (("type", "Type"), ("shardId", "ShardId"))
                   if shard_filter.get(member) is None]
        if missing:
            count = len(missing)
            raise errors.validation(f"{count} validation error{'s' if count > 1 else ''} "
                                    f"detected: {'; '.join(missing)}")
    stream = await existing_stream(ctx, body["StreamArn"])
    shards = stream.shards(horizon(ctx))
    child_of = (shard_filter or {}).get("ShardId")
    if child_of is not None:
        shards = [shard for shard in shards if shard["Parent"] == child_of]
    # after a shard not listed (any more): none
    start = paging.following([shard["Id"] for shard in shards],
                             body.get("ExclusiveStartShardId"))
    chosen, last = paging.page(shards, limit, len(shards) if start is None else start)
    doc = stream.doc
    description = {
        "StreamArn": stream.arn, "StreamLabel": doc["Label"], "StreamStatus": stream.status(),
        "StreamViewType": doc["ViewType"], "CreationRequestDateTime": doc["Created"],
        "TableName": doc["TableName"], "KeySchema": doc["KeySchema"],
        "Shards": [shard_description(shard) for shard in chosen]}
    if last is not None:
        description["LastEvaluatedShardId"] = last["Id"]
    return {"StreamDescription": description}
