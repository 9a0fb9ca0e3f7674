"""Kinesis streaming destinations: what a table's catalog document says of them, and
the change log their records wait in until they are delivered.

A table's destinations are the catalog member `KinesisDestinations` (hidden from
DescribeTable), a list of entries {StreamArn, State, Until, Enabled, Precision?,
Description?}, newest first. At most one is live (ENABLING, ACTIVE, UPDATING or
DISABLING); any number of DISABLED and ENABLE_FAILED entries stay listed. DISABLING
and UPDATING end by themselves at `Until` (the server's status delay), as a table's
status does; ENABLING ends when the background task has found the Kinesis stream
(okura/core/streams/kinesis_feeds.py), ACTIVE or ENABLE_FAILED.

While a destination is ENABLING, ACTIVE or UPDATING, every change of the table appends
a record in DynamoDB's Kinesis format to the table's change log: a stream (state.py)
whose directory rows live in KINESIS_LOGS, so DynamoDB Streams never lists it, read and
trimmed with the same code. The background task PutRecords what the log holds after
its checkpoint.
"""
from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import orjson

from okura.core import write_hooks
from okura.core.spaces import KINESIS_LOGS
from okura.core.streams.append import same_item
from okura.core.streams.state import RECORDS, Stream, load_stream, new_shard, record_rk
from okura.storage.engine import Transaction
from okura.values.sizes import item_size

if TYPE_CHECKING:
    from okura.core.catalog import Table

MEMBER = "KinesisDestinations"
ENABLING, ACTIVE, ENABLE_FAILED = "ENABLING", "ACTIVE", "ENABLE_FAILED"
DISABLING, DISABLED, UPDATING = "DISABLING", "DISABLED", "UPDATING"
LIVE = (ENABLING, ACTIVE, UPDATING, DISABLING)
CAPTURING = (ENABLING, ACTIVE, UPDATING)  # the states in which changes are recorded
_SETTLES = {DISABLING: DISABLED, UPDATING: ACTIVE}
SERVICE = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def status(entry: dict, now: float) -> str:
    state = entry["State"]
    return _SETTLES[state] if state in _SETTLES and now >= entry["Until"] else state


def entries(doc: dict) -> list[dict]:
    return doc.get(MEMBER, [])


def live(doc: dict, now: float) -> dict | None:
    """The table's destination that is neither DISABLED nor ENABLE_FAILED, if any."""
    return next((e for e in entries(doc) if status(e, now) in LIVE), None)


def capturing(doc: dict) -> bool:
    """Whether the table's changes go to its change log (whatever the clock says: a
    destination UPDATING is ACTIVE after it, and DISABLING stops capturing at once)."""
    return any(e["State"] in CAPTURING for e in entries(doc))


class ChangeLog(Stream):
    """A table's change log for its Kinesis destination: one per table id (its label),
    with both images in every record."""

    __slots__ = ()
    DIRECTORY = KINESIS_LOGS

    @classmethod
    def of(cls, stream_id: int, table: Table, now: float) -> ChangeLog:
        return cls(table.region, {
            "Id": stream_id, "TableId": table.id, "TableName": table.name,
            "TableArn": table.arn, "Label": str(table.id), "ViewType": "NEW_AND_OLD_IMAGES",
            "KeySchema": table.doc["KeySchema"], "Created": now, "Disabled": None, "Next": 1,
            "Shards": [new_shard(now, 1, None)]})

    def reopen(self, now: float) -> None:
        """Capture again after the log was disabled: a new shard, after the last one."""
        if self.doc["Disabled"] is not None:
            self.doc["Disabled"] = None
            last = self.doc["Shards"][-1] if self.doc["Shards"] else None
            self.doc["Shards"].append(new_shard(now, self.doc["Next"],
                                                last["Id"] if last else None))


async def load_log(unit: Transaction, region: str, table_name: str, table_id: int,
                   lock: bool = False) -> ChangeLog | None:
    log = await load_stream(unit, region, table_name, str(table_id), lock, ChangeLog)
    assert log is None or isinstance(log, ChangeLog)
    return log


async def _opened(unit: Transaction, table: Table, now: float) -> ChangeLog:
    """The table's change log, locked, created the first time, capturing: the background
    task disables a log whose table stopped capturing, and a destination enabled again
    meanwhile must not lose its records to that."""
    log = await load_log(unit, table.region, table.name, table.id, lock=True)
    if log is None:
        log = ChangeLog.of(await unit.new_id(), table, now)
    log.reopen(now)
    return log


async def log_end(unit: Transaction, table: Table) -> int:
    """The counter of the last record of the table's change log (0 before the first),
    after which a destination enabled now starts."""
    log = await load_log(unit, table.region, table.name, table.id)
    return 0 if log is None else log.last_seq()


async def open_log(unit: Transaction, table: Table, now: float) -> None:
    """Make the table's change log capture. Called after the destination is saved: a
    write in between opens the log itself, and the background task, which disables a
    log whose table seems to capture no more, sees the log changed and leaves it."""
    log = await _opened(unit, table, now)
    log.doc["Opened"] = now
    await log.save(unit)


def record(table: Table, old: dict | None, new: dict | None, now: float,
           by_service: bool) -> dict:
    """One change in DynamoDB's Kinesis record format; the creation time stays in
    seconds here (as the readers of logs expect) and is written in the destination's
    precision when delivered."""
    item = new if new is not None else old
    assert item is not None
    data: dict = {"ApproximateCreationDateTime": now, "Keys": table.key_of(item)}
    if new is not None:
        data["NewImage"] = new
    if old is not None:
        data["OldImage"] = old
    data["SizeBytes"] = sum(item_size(data[part]) for part in ("Keys", "NewImage", "OldImage")
                            if part in data)  # unverified, as for stream records
    return {"awsRegion": table.region, "eventID": str(uuid.uuid4()),
            "eventName": "INSERT" if old is None else "REMOVE" if new is None else "MODIFY",
            "userIdentity": SERVICE if by_service else None,
            "recordFormat": "application/json", "tableName": table.name, "dynamodb": data,
            "eventSource": "aws:dynamodb"}


class _Capture(write_hooks.Hook):
    """Every change of a table that captures goes to its change log."""

    name = "kinesis"
    wakes = "streams"  # the feed that delivers it

    def state(self, table: Table) -> bool | None:
        return capturing(table.doc) or None

    async def store(self, _: bool, write: write_hooks.ItemWrite) -> None:
        old, new = write.old, write.new
        if same_item(old, new):
            return
        unit, table, now = write.unit, write.table, write.now
        log = await _opened(unit, table, now)
        log.roll_if_due(now)
        seq = log.doc["Next"]
        log.doc["Next"] = seq + 1
        body = orjson.dumps(record(table, old, new, now, write.by_service))
        await unit.put(log.id, RECORDS, record_rk(seq), len(body), body)
        await log.save(unit)


write_hooks.register(_Capture())
