"""Streams in storage: one directory row per stream, holding its settings, its
sequence counter and its shards; its records in a row space of its own.

Layout, in the engine's ordinary rows (so every backend stores streams as it stores
items, and several okura nodes share them through the database):
- row space STREAMS: hk = the region and table name (terminated), rk = the stream
  label; doc = the stream's state (see `Stream`). Appending a record locks this row
  and advances its counter in the writing transaction, so sequence numbers are unique
  and ordered across nodes, and commit in their order.
- row space `Stream.id` (from the id sequence): hk = b"", rk = the record's sequence
  number (8 bytes, big-endian); doc = the record as GetRecords returns it.

A stream has one open shard at a time. It rolls over (closed, and a child opened)
on the first write after SHARD_PERIOD, as DynamoDB rolls shards every few hours, so
a stream keeps a bounded number of shards: those closed less than the retention
period ago, and the open one.
"""
from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import orjson

from okura import arns
from okura.core.spaces import STREAMS
from okura.storage import keys
from okura.storage.engine import Transaction, doc_of

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.database import Database

SHARD_PERIOD = 4 * 3600   # seconds a shard stays open
RECORDS = b""             # hk of every record row in a stream's row space
_SEQUENCE_BASE = 10 ** 20  # sequence numbers print as 21 digits, DynamoDB's minimum length
ENABLED, DISABLED = "ENABLED", "DISABLED"


def directory_hk(region: str, table_name: str) -> bytes:
    return keys.terminated(region.encode()) + keys.terminated(table_name.encode())


def region_prefix(region: str) -> bytes:
    return keys.terminated(region.encode())


def record_rk(seq: int) -> bytes:
    return seq.to_bytes(8, "big")


def sequence_number(seq: int) -> str:
    return str(_SEQUENCE_BASE + seq)


def parse_sequence(text: str) -> int | None:
    """The counter value of a sequence number, or None if okura never issued it."""
    if not text.isdigit():
        return None
    seq = int(text) - _SEQUENCE_BASE
    return seq if 0 < seq < 2 ** 63 else None


def new_shard(now: float, start: int, parent: str | None) -> dict:
    """A shard's state: `Start` is the sequence counter of its first record, `End` of
    its last once closed (Start - 1 when it closed empty)."""
    return {"Id": f"shardId-{int(now * 1000):020d}-{secrets.token_hex(4)}",
            "Parent": parent, "Created": now, "Start": start, "End": None, "Closed": None}


class Stream:
    """One stream's directory row, decoded. `doc` is edited in place and stored by
    `save`."""

    __slots__ = ("region", "doc")
    DIRECTORY = STREAMS  # the row space of the directory rows of this kind of stream

    def __init__(self, region: str, doc: dict) -> None:
        self.region = region
        self.doc = doc

    @classmethod
    def new(cls, stream_id: int, table: Table, now: float) -> Stream:
        doc = table.doc
        return cls(table.region, {
            "Id": stream_id, "TableId": table.id, "TableName": table.name,
            "TableArn": table.arn, "Label": doc["LatestStreamLabel"],
            "ViewType": doc["StreamSpecification"]["StreamViewType"],
            "KeySchema": doc["KeySchema"], "Created": now, "Disabled": None, "Next": 1,
            "Shards": [new_shard(now, 1, None)]})

    @property
    def id(self) -> int:
        return self.doc["Id"]

    @property
    def arn(self) -> str:
        return arns.stream(self.doc["TableArn"], self.doc["Label"])

    @property
    def open_shard(self) -> dict | None:
        last = self.doc["Shards"][-1]
        return last if last["End"] is None else None

    def last_seq(self) -> int:
        return self.doc["Next"] - 1

    def status(self) -> str:
        return DISABLED if self.doc["Disabled"] is not None else ENABLED

    def gone(self, horizon: float) -> bool:
        """Whether a disabled stream has aged out: nothing of it is readable."""
        disabled = self.doc["Disabled"]
        return disabled is not None and disabled < horizon

    def shards(self, horizon: float) -> list[dict]:
        """The shards still readable: open, or closed after the trim horizon."""
        return [shard for shard in self.doc["Shards"]
                if shard["Closed"] is None or shard["Closed"] >= horizon]

    def shard(self, shard_id: str, horizon: float) -> dict | None:
        return next((s for s in self.shards(horizon) if s["Id"] == shard_id), None)

    def close_shard(self, now: float) -> None:
        shard = self.open_shard
        if shard is not None:
            shard["End"] = self.last_seq()
            shard["Closed"] = now

    def roll_if_due(self, now: float) -> None:
        """Close an open shard older than SHARD_PERIOD that holds records, opening its
        child; an empty shard stays open, so no shard closes empty while enabled."""
        shard = self.open_shard
        if shard is not None and now - shard["Created"] >= SHARD_PERIOD and \
                self.doc["Next"] > shard["Start"]:
            self.close_shard(now)
            self.doc["Shards"].append(new_shard(now, self.doc["Next"], shard["Id"]))

    def disable(self, now: float) -> None:
        self.doc["Disabled"] = now
        self.close_shard(now)

    async def save(self, unit: Transaction) -> None:
        await unit.put(self.DIRECTORY, directory_hk(self.region, self.doc["TableName"]),
                       self.doc["Label"].encode(), 0, orjson.dumps(self.doc))


async def load_stream(unit: Transaction, region: str, table_name: str, label: str,
                      lock: bool = False, kind: type[Stream] = Stream) -> Stream | None:
    raw = doc_of(await unit.get(kind.DIRECTORY, directory_hk(region, table_name),
                                label.encode(), lock=lock))
    return None if raw is None else kind(region, orjson.loads(raw))


async def of_table(unit: Transaction, region: str, table_name: str) -> list[Stream]:
    """Every stream (enabled or not) of the tables named `table_name`, oldest first."""
    hk = directory_hk(region, table_name)
    rows = await unit.scan(STREAMS, None, hk, keys.prefix_end(hk), 1 << 30)
    return [Stream(region, orjson.loads(doc)) for _, _, _, doc in rows]


async def follow_table(db: Database, region: str, table_name: str) -> None:
    """Bring the stream directory in line with a table's catalog document after
    CreateTable, UpdateTable or DeleteTable: its enabled stream exists, and every
    other stream of that name is disabled (and stays readable until it ages out)."""
    table = await db.catalog.get(region, table_name)
    # the table whose stream stays enabled (None: no stream of that name does)
    streaming = None
    if table is not None and table.doc["TableStatus"] != "DELETING" and \
            "StreamSpecification" in table.doc:
        streaming = table
    now = db.clock.now()
    async with db.engine.transaction() as unit:
        found = False
        for stream in await of_table(unit, region, table_name):
            if (streaming is not None
                    and stream.doc["Label"] == streaming.doc["LatestStreamLabel"]
                    and stream.doc["TableId"] == streaming.id):
                found = True
            elif stream.doc["Disabled"] is None:
                stream.disable(now)
                await stream.save(unit)
        if streaming is not None and not found:
            await Stream.new(await unit.new_id(), streaming, now).save(unit)
