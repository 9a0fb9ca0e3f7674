"""Kinesis streaming destinations' background work (core/streams/kinesis.py holds the
rules), done in each round of the triggers' duty (triggers/duty.py):

- an ENABLING destination is checked against the Kinesis endpoint (`--kinesis-endpoint`)
  and becomes ACTIVE, or ENABLE_FAILED with DynamoDB's description of why;
- an ACTIVE (or UPDATING, or DISABLING) destination has a Feed: it reads the table's
  change log after its checkpoint and PutRecords the records, in DynamoDB's Kinesis
  record format, to the stream the destination names;
- the change log of a table that no longer streams to Kinesis is disabled, so it ages
  out like a disabled stream.

Delivery is at least once and in order per item: a PutRecords call carries at most one
record per item (Kinesis does not order the records of one call), only the records a
call failed are sent again, and the checkpoint moves once all that was read is in the
stream. A stream that cannot be reached is retried until the destination is disabled
or its records age out of the log (24 hours). On shared storage the lease
`kinesis/<table id>` makes one node feed a table.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import TYPE_CHECKING

import orjson

from okura import arns
from okura.core import leases
from okura.core.catalog import CatalogChanged, Table
from okura.core.spaces import KINESIS_LOGS
from okura.core.streams import kinesis
from okura.core.streams.kinesis import ChangeLog, load_log
from okura.core.streams.follow import Follower

if TYPE_CHECKING:
    from okura.core.database import Database

log = logging.getLogger("okura.kinesis")
LEASE = 30.0
MAX_RECORDS = 500              # PutRecords takes at most 500 records ...
MAX_BYTES = 5 * 1024 * 1024    # ... and 5 MiB
# DynamoDB's DestinationStatusDescription of a stream it cannot use, and of one in
# another region; the first when okura has no Kinesis endpoint is okura's own
NOT_FOUND = "User does not have a permission to use kinesis stream"
OTHER_REGION = ("The kinesis Arn used to enable kinesis replication belongs to a stream "
                "which is not in the current region")
NO_ENDPOINT = "okura has no Kinesis endpoint to send records to (--kinesis-endpoint)"


def stream_name(arn: str, region: str) -> tuple[str | None, str | None]:
    """(the stream's name, None) for a Kinesis stream ARN of `region`; else (None, why)."""
    parsed = arns.parse_kinesis_stream(arn)
    if parsed is None:
        return None, NOT_FOUND
    if parsed[0] != region:
        return None, OTHER_REGION
    return parsed[1], None


class Kinesis:
    """The Kinesis endpoint, through boto3 (run in threads: boto3 blocks)."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint
        self.clients: dict = {}

    def _client(self, region: str):
        client = self.clients.get(region)
        if client is None:
            import boto3
            from botocore.config import Config

            session = boto3.Session()
            # credentials from the usual AWS variables; a local Kinesis takes any
            keys = {} if session.get_credentials() is not None else {
                "aws_access_key_id": "okura", "aws_secret_access_key": "okura"}
            client = session.client(
                "kinesis", endpoint_url=self.endpoint, region_name=region,
                config=Config(retries={"max_attempts": 1}, connect_timeout=2,
                              read_timeout=10), **keys)
            self.clients[region] = client
        return client

    async def problem(self, arn: str, region: str) -> str | None:
        """Why a destination cannot be enabled, or None when its stream is ACTIVE."""
        name, why = stream_name(arn, region)
        if name is None:
            return why
        if not self.endpoint:
            return NO_ENDPOINT
        try:
            summary = await asyncio.to_thread(
                lambda: self._client(region).describe_stream_summary(StreamName=name))
        except Exception as failure:  # not found, unreachable: DynamoDB says the same
            log.warning("Kinesis stream %s cannot be used: %s", arn, failure)
            return NOT_FOUND
        status = summary["StreamDescriptionSummary"]["StreamStatus"]
        return None if status in ("ACTIVE", "UPDATING") else NOT_FOUND

    async def put(self, arn: str, region: str, records: list[tuple[bytes, str]]) -> list[int]:
        """PutRecords; the positions of the records Kinesis did not take."""
        name, _ = stream_name(arn, region)
        reply = await asyncio.to_thread(lambda: self._client(region).put_records(
            StreamName=name, Records=[{"Data": data, "PartitionKey": key}
                                      for data, key in records]))
        return [i for i, r in enumerate(reply["Records"]) if "ErrorCode" in r]


def _partition_key(record: dict) -> str:
    """The item's key, hashed: every record of one item goes to one shard."""
    keys = orjson.dumps(record["dynamodb"]["Keys"], option=orjson.OPT_SORT_KEYS)
    return hashlib.md5(keys).hexdigest().upper()


def _data(record: dict, precision: str) -> bytes:
    data = record["dynamodb"]
    seconds = data["ApproximateCreationDateTime"]
    data["ApproximateCreationDateTime"] = int(
        seconds * (1_000_000 if precision == "MICROSECOND" else 1000))
    return orjson.dumps(record)


def _calls(records: list[tuple[bytes, str]]) -> list[list[tuple[bytes, str]]]:
    """Records cut into PutRecords calls, in order, each with one record per item."""
    calls: list[list[tuple[bytes, str]]] = []
    keys: set[str] = set()
    size = 0
    for data, key in records:
        length = len(data) + len(key)
        if not calls or len(calls[-1]) == MAX_RECORDS or size + length > MAX_BYTES or \
                key in keys:
            calls.append([])
            keys, size = set(), 0
        calls[-1].append((data, key))
        keys.add(key)
        size += length
    return calls


def feed_key(table: Table, entry: dict) -> str:
    """A destination's checkpoint: enabling a stream again starts a new one."""
    return f"kinesis/{table.id}/{entry['Enabled']}"


class Feed(Follower):
    """One table's destination, fed by this node."""

    def __init__(self, db: Database, kinesis_api: Kinesis, table: Table, entry: dict,
                 interval: float) -> None:
        super().__init__(db, feed_key(table, entry), interval)
        self.kinesis = kinesis_api
        self.table = table  # both refreshed by every round
        self.entry = entry

    def initial(self) -> dict:
        return {"Position": self.entry["From"]}

    async def step(self) -> bool:
        """Send what the log holds after the checkpoint; whether anything was."""
        horizon = self.db.clock.now() - self.db.stream_retention
        async with self.db.engine.reader() as unit:
            change_log = await load_log(unit, self.table.region, self.table.name,
                                        self.table.id)
        if change_log is None:
            return False
        shard = await self._shard(change_log, horizon)
        if shard is None:
            return False
        found, position = await self._read(change_log, shard, MAX_RECORDS, horizon)
        if found:
            precision = self.entry.get("Precision", "MILLISECOND")
            records = [(_data(record, precision), _partition_key(record)) for record in found]
            for call in _calls(records):
                await self._put(call)
        moved = position != self.state["Position"]
        self.state["Position"] = position
        if moved:
            await self.save()
        return bool(found)

    async def _put(self, records: list[tuple[bytes, str]]) -> None:
        attempts = 0
        while records:
            arn = self.entry["StreamArn"]
            try:
                failed = await self.kinesis.put(arn, self.table.region, records)
            except Exception as failure:  # unreachable, stream gone: DynamoDB retries too
                log.warning("%s: records for %s not delivered, retrying: %s", self.table.name,
                            arn, failure)
                failed = list(range(len(records)))
            records = [records[i] for i in failed]
            if records:
                attempts += 1
                await asyncio.sleep(min(0.05 * 2 ** attempts, 5.0))


class Destinations:
    """The Kinesis destinations' part of each triggers round."""

    def __init__(self, db: Database, endpoint: str, interval: float) -> None:
        self.db = db
        self.kinesis = Kinesis(endpoint)
        self.interval = interval
        self.feeds: dict[int, Feed] = {}  # each a duty of its own

    async def round(self) -> bool:
        """Settle, feed or disable each change log; whether there are any live ones."""
        now = self.db.clock.now()
        async with self.db.engine.reader() as unit:
            rows = await unit.scan(KINESIS_LOGS, None, None, None, 1 << 30)
        seen = set()
        live = False
        for _, _, _, raw in rows:
            doc = orjson.loads(raw)
            if doc["Disabled"] is not None:
                continue
            live = True
            region = arns.region_of(doc["TableArn"])
            table = await self.db.catalog.get(region, doc["TableName"])
            if table is not None and table.id != doc["TableId"]:
                table = None
            entry = None if table is None else kinesis.live(table.doc, now)
            if table is None or entry is None:
                await self._disable(ChangeLog(region, doc), now)
                continue
            status = kinesis.status(entry, now)
            if status == kinesis.ENABLING:
                await self._settle(table, entry)
            elif await self._leased(table.id, now):
                seen.add(table.id)
                self._feed(table, entry)
        for table_id in set(self.feeds) - seen:
            self._stop(table_id)
        return live

    async def _settle(self, table: Table, entry: dict) -> None:
        problem = await self.kinesis.problem(entry["StreamArn"], table.region)
        settled = {**entry, "State": kinesis.ACTIVE if problem is None else kinesis.ENABLE_FAILED}
        if problem is not None:
            settled["Description"] = problem
            log.warning("Kinesis destination %s of %s failed: %s", entry["StreamArn"],
                        table.name, problem)
        found = [settled if e is entry else e for e in kinesis.entries(table.doc)]
        try:
            await self.db.catalog.save(table, {**table.doc, kinesis.MEMBER: found})
        except CatalogChanged:
            pass  # changed meanwhile (disabled, say): the next round sees the new state

    async def _leased(self, table_id: int, now: float) -> bool:
        if not self.db.engine.shared:
            return True
        return await leases.acquire(self.db, f"kinesis/{table_id}", leases.NODE, now,
                                    now + max(LEASE, 10 * self.interval))

    def _feed(self, table: Table, entry: dict) -> None:
        feed = self.feeds.get(table.id)
        if feed is not None and feed.key != feed_key(table, entry):
            self._stop(table.id)
            feed = None
        if feed is None:
            feed = Feed(self.db, self.kinesis, table, entry, self.interval)
            self.db.background.add(feed.duty())
            self.feeds[table.id] = feed
        else:
            feed.table, feed.entry = table, entry

    async def _disable(self, change_log: ChangeLog, now: float) -> None:
        """Disable the change log of a table that seems to capture no more: unless its
        table, read afresh (another node's change may not have reached this one's cache),
        captures, or the log changed since it was read (a destination enabled since
        opened it, or a write appended to it)."""
        doc = change_log.doc
        self.db.catalog.invalidate(doc["TableId"])
        table = await self.db.catalog.get(change_log.region, doc["TableName"])
        if table is not None and table.id == doc["TableId"] and kinesis.capturing(table.doc):
            return
        async with self.db.engine.transaction() as unit:
            current = await load_log(unit, change_log.region, doc["TableName"], doc["TableId"],
                                     lock=True)
            if current is not None and current.doc == doc:
                current.disable(now)
                await current.save(unit)

    def _stop(self, table_id: int) -> None:
        feed = self.feeds.pop(table_id, None)
        if feed is not None:
            self.db.background.remove(feed.duty_name)

    def close(self) -> None:
        for table_id in list(self.feeds):
            self._stop(table_id)
