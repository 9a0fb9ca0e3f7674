"""The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*): one module per
operation, and what they share."""
from __future__ import annotations

from okura import arns, errors
from okura.core.context import Context
from okura.core.streams import read
from okura.core.streams.state import Stream


def horizon(ctx: Context) -> float:
    """The trim horizon: records and closed shards older than this are gone."""
    return ctx.clock.now() - ctx.db.stream_retention


def check_limit(body: dict, maximum: int) -> int:
    """The Limit member (its minimum is checked by the shape), at most `maximum`."""
    limit = body.get("Limit")
    if limit is None:
        return maximum
    if limit > maximum:
        raise errors.validation(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy "
            f"constraint: Member must have value less than or equal to {maximum}")  # unverified
    return limit


def check_arn(arn: str) -> None:
    """A StreamArn member must be a stream's ARN (users' reports quote the message)."""
    if not arns.is_stream(arn):
        raise errors.validation("Invalid StreamArn")


async def existing_stream(ctx: Context, arn: str) -> Stream:
    """The readable stream an ARN names in the request's partition, region and account;
    any other, like one that does not exist, is not found."""
    check_arn(arn)
    stream = await read.find(ctx.db, arn, horizon(ctx)) \
        if arns.is_local(arn, ctx.region, ctx.account) else None
    if stream is None:
        raise errors.resource_not_found(
            f"Requested resource not found: Stream: {arn} not found")  # unverified
    return stream


def shard_not_found() -> errors.DynamoError:
    return errors.resource_not_found("Requested resource not found: Shard does not exist")  # unverified
