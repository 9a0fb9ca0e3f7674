"""The stream record of one item change, appended in the writing transaction.

Its write hook (`_Record`) runs in the one write loop (core.items, core.write_hooks)
for every stored change: nothing else writes records, so every write path (single items, batches, transactions, PartiQL, TTL)
produces them, exactly once, committed or rolled back with the change itself.
"""
from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import orjson

from okura.core import write_hooks
from okura.core.streams.state import RECORDS, load_stream, record_rk, sequence_number, Stream
from okura.values.ordering import equal
from okura.values.sizes import item_size

if TYPE_CHECKING:
    from okura.core.catalog import Table

# The userIdentity of a deletion made by DynamoDB itself (TTL expiry), with the member
# names of the Streams API's Identity shape (Lambda's event JSON spells them in
# lower case; GetRecords does not).
SERVICE = {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
_IMAGES = {"KEYS_ONLY": (False, False), "NEW_IMAGE": (True, False),
           "OLD_IMAGE": (False, True), "NEW_AND_OLD_IMAGES": (True, True)}


def same_item(old: dict | None, new: dict | None) -> bool:
    """Whether a change leaves the item as it was (no record is written then)."""
    if old is None or new is None:
        return old is new
    return old.keys() == new.keys() and all(equal(value, new[name])
                                            for name, value in old.items())


def record(stream: Stream, table: Table, old: dict | None, new: dict | None, seq: int,
           now: float, by_service: bool) -> dict:
    """The record as GetRecords returns it."""
    item = new if new is not None else old
    assert item is not None  # a change that leaves the item absent has no record
    view = stream.doc["ViewType"]
    with_new, with_old = _IMAGES[view]
    data: dict = {"ApproximateCreationDateTime": int(now), "Keys": table.key_of(item)}
    if with_new and new is not None:
        data["NewImage"] = new
    if with_old and old is not None:
        data["OldImage"] = old
    data["SequenceNumber"] = sequence_number(seq)
    data["SizeBytes"] = sum(item_size(data[part]) for part in ("Keys", "NewImage", "OldImage")
                            if part in data)  # unverified: DynamoDB does not document the sum
    data["StreamViewType"] = view
    out = {"awsRegion": table.region, "dynamodb": data, "eventID": uuid.uuid4().hex,
           "eventName": "INSERT" if old is None else "REMOVE" if new is None else "MODIFY",
           "eventSource": "aws:dynamodb", "eventVersion": "1.1"}
    if by_service:
        out["userIdentity"] = SERVICE
    return out


class _Record(write_hooks.Hook):
    """Every change of a table with a stream enabled appends its record."""

    name = "stream"
    wakes = "streams"  # the followers that read it

    def state(self, table: Table) -> str | None:
        spec = table.doc.get("StreamSpecification")
        return None if spec is None else table.doc["LatestStreamLabel"]

    async def store(self, label: str, write: write_hooks.ItemWrite) -> None:
        old, new = write.old, write.new
        if same_item(old, new):
            return
        unit, table, now = write.unit, write.table, write.now
        stream = await load_stream(unit, table.region, table.name, label, lock=True)
        if stream is None:  # the table's stream was enabled but not yet recorded: do it now
            stream = Stream.new(await unit.new_id(), table, now)
        stream.roll_if_due(now)
        seq = stream.doc["Next"]
        stream.doc["Next"] = seq + 1
        body = orjson.dumps(record(stream, table, old, new, seq, now, write.by_service))
        await unit.put(stream.id, RECORDS, record_rk(seq), len(body), body)
        await stream.save(unit)


write_hooks.register(_Record())
