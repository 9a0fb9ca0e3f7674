"""Reading streams back: listing, describing, shard iterators and records, and
trimming what has aged out.

A shard iterator is the stream ARN, then a sealed token (core/sealed.py) naming it, the
shard, the last sequence counter already read (records after it come next) and when
the iterator was issued (it expires ITERATOR_AGE later). Sequence counters of a stream
are contiguous, which makes trimming easy to detect: the record after the
iterator's position is missing (or past the trim horizon) exactly when it was
trimmed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

import orjson

from okura import arns
from okura.core.consistency.lag import Lag
from okura.core.sealed import Seal
from okura.core.spaces import KINESIS_LOGS, STREAMS
from okura.core.streams.state import RECORDS, Stream, load_stream, record_rk, region_prefix
from okura.storage import keys
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database

ITERATOR_AGE = 15 * 60
_ITERATOR = b"shard-iterator"
MAX_BYTES = 1024 * 1024   # GetRecords returns at most 1 MB ...
MAX_RECORDS = 1000        # ... or 1000 records
_CHUNK = 1000


class Iterator(NamedTuple):
    arn: str
    shard: str
    position: int   # the sequence counter last read; the next record is position + 1
    issued: float

    def encode(self, seal: Seal) -> str:
        return f"{self.arn}|1|{seal.token(_ITERATOR, list(self))}"

    @classmethod
    def decode(cls, seal: Seal, text: str) -> Iterator | None:
        """The iterator `encode` made, or None for any other text."""
        arn, _, token = text.rpartition("|1|")
        sealed = seal.opened(_ITERATOR, token)
        if sealed is None or sealed[0] != arn:
            return None
        return cls(*sealed)


class Batch(NamedTuple):
    records: list[bytes]        # each a record's wire JSON
    position: int               # the sequence counter of the last record returned
    finished: bool              # a closed shard read to its end: no next iterator


class Trimmed(Exception):
    """The record an iterator or sequence number points at has been trimmed."""


async def find(db: Database, arn: str, horizon: float) -> Stream | None:
    """The readable stream of an ARN, or None (never existed, or aged out)."""
    named = arns.parse_stream(arn)
    if named is None:
        return None
    async with db.engine.reader() as unit:
        stream = await load_stream(unit, *named)
    if stream is None or stream.gone(horizon) or stream.arn != arn:
        return None
    return stream


async def listing(db: Database, region: str, table_name: str | None,
                  horizon: float) -> list[Stream]:
    """Readable streams of a region (of one table name if given), in (table name,
    label) order."""
    lo = region_prefix(region)
    if table_name is not None:
        lo = lo + keys.terminated(table_name.encode())
    hi = keys.prefix_end(lo)
    start = None
    found: list[Stream] = []
    async with db.engine.reader() as unit:
        while True:
            rows = await unit.scan(STREAMS, start, lo, hi, _CHUNK)
            for _, _, _, doc in rows:
                stream = Stream(region, orjson.loads(doc))
                if not stream.gone(horizon):
                    found.append(stream)
            if len(rows) < _CHUNK:
                return found
            start = rows[-1][:2]


def _is_trimmed(raw: bytes, horizon: float) -> bool:
    # The record's creation time is the first member every record's "dynamodb" part has.
    return orjson.loads(raw)["dynamodb"]["ApproximateCreationDateTime"] < horizon


def _upper(stream: Stream, shard: dict) -> int:
    """The last sequence counter a shard holds now."""
    return shard["End"] if shard["End"] is not None else stream.last_seq()


async def oldest_position(db: Database, stream: Stream, shard: dict, horizon: float) -> int:
    """The position before the shard's oldest untrimmed record (TRIM_HORIZON)."""
    position = shard["Start"] - 1
    upper = _upper(stream, shard)
    async with db.engine.reader() as unit:
        while position < upper:
            rows = await unit.query(stream.id, RECORDS, record_rk(position + 1),
                                    record_rk(upper + 1), True, _CHUNK)
            for rk, _, doc in rows:
                if not _is_trimmed(doc, horizon):
                    return int.from_bytes(rk, "big") - 1
                position = int.from_bytes(rk, "big")
            if len(rows) < _CHUNK:
                return upper
    return position


async def check_position(db: Database, stream: Stream, seq: int, horizon: float) -> None:
    """Raise Trimmed if the record of counter `seq` has been trimmed."""
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(stream.id, RECORDS, record_rk(seq)))
    if raw is None or _is_trimmed(raw, horizon):
        raise Trimmed()


def latest_position(stream: Stream, shard: dict) -> int:
    return _upper(stream, shard)


async def records(db: Database, stream: Stream, shard: dict, position: int, limit: int,
                  horizon: float) -> Batch:
    """Up to `limit` records (and 1 MB) of a shard after `position`."""
    upper = _upper(stream, shard)
    out: list[bytes] = []
    if position < upper:
        async with db.engine.reader() as unit:
            rows = await unit.query(stream.id, RECORDS, record_rk(position + 1),
                                    record_rk(upper + 1), True, limit)
        if not rows or int.from_bytes(rows[0][0], "big") != position + 1 or \
                _is_trimmed(rows[0][2], horizon):
            raise Trimmed()
        size = 0
        held = _held(db, stream)
        for rk, length, doc in rows:
            size += length
            if (out and size > MAX_BYTES) or (held and held(doc)):
                break
            out.append(doc)
            position = int.from_bytes(rk, "big")
    return Batch(out, position, shard["End"] is not None and position >= shard["End"])


def _held(db: Database, stream: Stream) -> Callable[[bytes], bool] | None:
    """Under eventual consistency, a test of the records readers do not get yet: from
    the first one of an item whose latest write is not yet visible (the stream keeps its
    order, so a record waits for every write before it; core/consistency/)."""
    lag = db.features[Lag]
    if not lag.on or stream.DIRECTORY != STREAMS:
        return None
    tid = stream.doc["TableId"]
    hidden = lag.hidden(tid, db.clock.now())
    if not hidden:
        return None
    table = lag.tables[tid]
    return lambda doc: table.locate(orjson.loads(doc)["dynamodb"]["Keys"]) in hidden


async def trim(db: Database, horizon: float, chunk: int = 500) -> int:
    """Delete what has aged out, at most about `chunk` rows per stream: records past
    the horizon, shards closed before it, and disabled streams gone entirely. Streams
    and the change logs of Kinesis destinations alike.
    Returns the number of rows deleted (a caller loops while it is not zero)."""
    deleted = 0
    for space in (STREAMS, KINESIS_LOGS):
        async with db.engine.reader() as unit:
            directory = await unit.scan(space, None, None, None, 1 << 30)
        for hk, rk, _, _ in directory:
            deleted += await _trim_one(db, space, hk, rk, horizon, chunk)
    return deleted


async def _trim_one(db: Database, space: int, hk: bytes, rk: bytes, horizon: float,
                    chunk: int) -> int:
    deleted = 0
    async with db.engine.transaction() as unit:
        raw = doc_of(await unit.get(space, hk, rk, lock=True))
        if raw is None:
            return 0
        doc = orjson.loads(raw)
        rows = await unit.query(doc["Id"], RECORDS, None, None, True, chunk)
        gone = doc["Disabled"] is not None and doc["Disabled"] < horizon
        for record_key, _, body in rows:
            if not gone and not _is_trimmed(body, horizon):
                break
            await unit.delete(doc["Id"], RECORDS, record_key)
            deleted += 1
        if gone and len(rows) < chunk:
            await unit.delete(space, hk, rk)
            return deleted
        kept = [s for s in doc["Shards"] if s["Closed"] is None or s["Closed"] >= horizon]
        if len(kept) != len(doc["Shards"]):
            doc["Shards"] = kept
            await unit.put(space, hk, rk, 0, orjson.dumps(doc))
    return deleted
