"""DescribeStream: a stream's status, key schema and shards (with their lineage)."""
from __future__ import annotations

from okura import shapes
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
    shapes.check("DescribeStream", body)
    limit = check_limit(body, MAX_LIMIT)
    stream = await existing_stream(ctx, body["StreamArn"])
    shards = stream.shards(horizon(ctx))
    child_of = (body.get("ShardFilter") or {}).get("ShardId")
    if child_of is not None:
        shards = [shard for shard in shards if shard["Parent"] == child_of]
    after = body.get("ExclusiveStartShardId")
    if after is not None:
        ids = [shard["Id"] for shard in shards]
        shards = shards[ids.index(after) + 1:] if after in ids else []
    doc = stream.doc
    description = {
        "StreamArn": stream.arn, "StreamLabel": doc["Label"], "StreamStatus": stream.status(),
        "StreamViewType": doc["ViewType"], "CreationRequestDateTime": doc["Created"],
        "TableName": doc["TableName"], "KeySchema": doc["KeySchema"],
        "Shards": [shard_description(shard) for shard in shards[:limit]]}
    if len(shards) > limit:
        description["LastEvaluatedShardId"] = shards[limit - 1]["Id"]
    return {"StreamDescription": description}
