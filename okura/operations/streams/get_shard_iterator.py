"""GetShardIterator: a position in one shard to read records from."""
from __future__ import annotations

from okura import errors
from okura.core.context import Context
from okura.core.streams import read
from okura.core.streams.state import parse_sequence
from okura.operations.streams import existing_stream, horizon, shard_not_found

_BY_NUMBER = ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER")


async def handle(ctx: Context, body: dict) -> dict:
    kind = body["ShardIteratorType"]
    number = body.get("SequenceNumber")
    # a position by sequence number takes one, the others none (DynamoDB refuses both,
    # before it looks for the stream)
    if (kind in _BY_NUMBER) != (number is not None):
        raise errors.validation(  # unverified wordings
            f"Must specify SequenceNumber when ShardIteratorType is {kind}" if number is None
            else f"Must not specify SequenceNumber when ShardIteratorType is {kind}")
    db = ctx.db
    trim = horizon(ctx)
    stream = await existing_stream(ctx, body["StreamArn"])
    shard = stream.shard(body["ShardId"], trim)
    if shard is None:
        raise shard_not_found()
    if kind == "TRIM_HORIZON":
        position = await read.oldest_position(db, stream, shard, trim)
    elif kind == "LATEST":
        position = read.latest_position(stream, shard)
    else:
        assert number is not None  # required for these kinds (checked above)
        seq = parse_sequence(number)
        latest = read.latest_position(stream, shard)
        # The shard's StartingSequenceNumber is a position even before its first record
        # exists (recorded: an empty stream's shard takes it).
        unwritten_start = seq is not None and seq == shard["Start"] and latest < seq
        if seq is None or not unwritten_start and not shard["Start"] <= seq <= latest:
            raise errors.validation(
                f"Invalid SequenceNumber {number} for shard {shard['Id']}")  # unverified
        if not unwritten_start:
            try:
                await read.check_position(db, stream, seq, trim)
            except read.Trimmed:
                raise errors.trimmed_data_access() from None
        position = seq - 1 if kind == "AT_SEQUENCE_NUMBER" else seq
    iterator = read.Iterator(stream.arn, shard["Id"], position, db.clock.now())
    return {"ShardIterator": iterator.encode(db.seal)}
