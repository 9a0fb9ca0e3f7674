"""GetRecords: the records of a shard from an iterator's position, and the iterator
after them (none once a closed shard is read to its end)."""
from __future__ import annotations

from okura import errors
from okura.core.context import Context
from okura.core.streams import read
from okura.operations.streams import check_limit, existing_stream, horizon, shard_not_found


async def handle(ctx: Context, body: dict) -> bytes:
    limit = check_limit(body, read.MAX_RECORDS)
    iterator = read.Iterator.decode(ctx.db.seal, body["ShardIterator"])
    if iterator is None:
        raise errors.validation("Invalid ShardIterator")  # unverified
    db = ctx.db
    now = db.clock.now()
    if now - iterator.issued > read.ITERATOR_AGE:
        raise errors.expired_iterator()
    trim = horizon(ctx)
    stream = await existing_stream(ctx, iterator.arn)
    shard = stream.shard(iterator.shard, trim)
    if shard is None:
        raise shard_not_found()
    try:
        batch = await read.records(db, stream, shard, iterator.position, limit, trim)
    except read.Trimmed:
        raise errors.trimmed_data_access() from None
    # Records are stored as wire JSON: the reply is spliced, never re-encoded.
    reply = b'{"Records":[' + b",".join(batch.records) + b"]"
    if not batch.finished:
        following = read.Iterator(iterator.arn, iterator.shard, batch.position,
                                  now).encode(db.seal)
        reply += b',"NextShardIterator":"' + following.encode() + b'"'
    return reply + b"}"
