"""The triggers' background duty: every TRIGGER_INTERVAL it moves mappings through
their states (Creating -> Enabled, Disabling -> Disabled, Deleting -> gone, ...),
creates the mappings okura.toml declares once their table has a stream, and runs a
Delivery for each enabled mapping whose lease this node holds; Kinesis streaming
destinations take their turn in the same rounds (core/streams/kinesis_feeds.py).

On a shared database (PostgreSQL) every node runs this; the lease `trigger/UUID`
(core/leases.py) makes exactly one node deliver a mapping, and when that node dies
another takes the mapping over once its lease has run out (LEASE seconds of the
shared clock), resuming from the stored checkpoint. Alone on its storage (SQLite,
memory) a node needs no lease: a restarted server resumes at once.
"""
from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import TYPE_CHECKING

import orjson

from okura import arns
from okura.core import leases
from okura.core.scheduler import report
from okura.core.spaces import EVENT_SOURCE_MAPPINGS, TRIGGER_CHECKPOINTS
from okura.core.streams.kinesis_feeds import Destinations
from okura.storage.engine import doc_of
from okura.triggers import mappings
from okura.triggers.delivery import Delivery
from okura.triggers.functions import TriggerConfigError, declared
from okura.triggers.mappings import (CREATING, DELETING, DISABLED, DISABLING, ENABLED, ENABLING,
                                     UPDATING, LambdaError, Mappings)

if TYPE_CHECKING:
    from okura.config import Settings
    from okura.core.database import Database

log = logging.getLogger("okura.triggers")
LEASE = 30.0  # seconds of the clock a delivering node's lease lasts without renewal
ELSEWHERE = 1.0  # seconds between idle rounds on shared storage (other nodes' changes)
# okura.toml's mapping settings, in snake case, and the API members they stand for
_CONFIG = {"function": "FunctionName", "event_source_arn": "EventSourceArn",
           "starting_position": "StartingPosition", "batch_size": "BatchSize",
           "maximum_batching_window_in_seconds": "MaximumBatchingWindowInSeconds",
           "parallelization_factor": "ParallelizationFactor", "enabled": "Enabled",
           "maximum_record_age_in_seconds": "MaximumRecordAgeInSeconds",
           "bisect_batch_on_function_error": "BisectBatchOnFunctionError",
           "maximum_retry_attempts": "MaximumRetryAttempts",
           "tumbling_window_in_seconds": "TumblingWindowInSeconds",
           "function_response_types": "FunctionResponseTypes"}
_SETTLED = {CREATING: None, ENABLING: ENABLED, DISABLING: DISABLED, UPDATING: None}


def _configured(entries: list) -> list[tuple[str, str, dict]]:
    """okura.toml's [[event_source_mappings]]: (region, table or "", API body) each."""
    found = []
    for number, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise TriggerConfigError(f"event_source_mappings[{number}] must be a table")
        unknown = set(entry) - set(_CONFIG) - {"table", "region", "filters", "on_failure"}
        if unknown or "function" not in entry or ("table" in entry) == (
                "event_source_arn" in entry):
            raise TriggerConfigError(f"event_source_mappings[{number}] needs function and one of "
                              f"table, event_source_arn (unknown: {sorted(unknown)})")
        body = {member: entry[name] for name, member in _CONFIG.items() if name in entry}
        if "filters" in entry:
            body["FilterCriteria"] = {"Filters": [
                {"Pattern": p if isinstance(p, str) else orjson.dumps(p).decode()}
                for p in entry["filters"]]}
        if "on_failure" in entry:
            body["DestinationConfig"] = {"OnFailure": {"Destination": entry["on_failure"]}}
        found.append((entry.get("region", "us-east-1"), entry.get("table", ""), body))
    return found


def check_triggers(settings: Settings) -> None:
    """Raise TriggerConfigError if okura.toml's functions or mappings cannot run."""
    declared(settings.functions)
    _configured(settings.event_source_mappings)


class Triggers:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.interval = settings.trigger_interval
        self.functions = declared(settings.functions)
        self.mappings = Mappings(db, self.functions)
        self.configured = _configured(settings.event_source_mappings)
        self.reported: set[str] = set()  # okura.toml mappings refused, logged once each
        self.running: dict[str, Delivery] = {}  # each a duty of its own
        self.kinesis = Destinations(db, settings.kinesis_endpoint, self.interval)
        self.busy = True  # whether the last round found mappings or live destinations
        self._stirred = -1  # the changes the cheap test has seen (any at first)
        self._next_look = 0.0  # time.monotonic() of the next round for other nodes' changes

    def pending(self) -> bool:
        """The duty's cheap test: rounds run while there are mappings or live Kinesis
        destinations, and after a mapping or a table changed here; on shared storage
        (where another node may change them) also once a second."""
        background = self.db.background
        stirred = background.count("catalog") + background.count("mappings")
        elsewhere = self.db.engine.shared and time.monotonic() >= self._next_look
        if self.busy or stirred != self._stirred or elsewhere:
            self._stirred = stirred
            self._next_look = time.monotonic() + ELSEWHERE
            return True
        return False

    async def work(self) -> None:
        """The triggers' duty (core/scheduler.py, every interval): a round of mappings,
        then of Kinesis destinations."""
        busy = False
        for part in (self.round, self.kinesis.round):
            try:
                busy = await part() or busy
            except asyncio.CancelledError:
                raise
            except Exception as error:
                busy = True  # it runs again
                report("a triggers round", error)
        self.busy = busy

    async def round(self) -> bool:
        """Move the mappings on; whether there are any."""
        if self.configured:
            await self._sync_config()
        now = self.db.clock.now()
        seen = set()
        for doc in await mappings.every(self.db):
            mapping_uuid = doc["UUID"]
            seen.add(mapping_uuid)
            if doc["State"] == DELETING:
                self._stop(mapping_uuid)
                await self._settle(doc, None)
                continue
            if doc["State"] in _SETTLED:
                doc = await self._settle(doc, _SETTLED[doc["State"]] or (
                    ENABLED if doc["Enabled"] else DISABLED)) or doc
            if doc["State"] != ENABLED or doc["Function"] not in self.functions:
                self._stop(mapping_uuid)
                continue
            if self.db.engine.shared and not await leases.acquire(
                    self.db, f"trigger/{mapping_uuid}", leases.NODE, now,
                    now + max(LEASE, 10 * self.interval)):
                self._stop(mapping_uuid)
                continue
            delivery = self.running.get(mapping_uuid)
            if delivery is None:
                delivery = Delivery(self.db, doc, self.functions[doc["Function"]], self.interval)
                self.db.background.add(delivery.duty())
                self.running[mapping_uuid] = delivery
            else:
                delivery.doc = doc
                delivery.function = self.functions[doc["Function"]]
        for mapping_uuid in set(self.running) - seen:
            self._stop(mapping_uuid)
        return bool(seen)

    async def _settle(self, doc: dict, state: str | None) -> dict | None:
        """Move a mapping from the state it was read in to `state` (None: delete it),
        unless an API call changed it meanwhile."""
        key = (b"", doc["UUID"].encode())
        async with self.db.engine.transaction() as unit:
            raw = doc_of(await unit.get(EVENT_SOURCE_MAPPINGS, *key, lock=True))
            if raw is None or orjson.loads(raw) != doc:
                return None
            if state is None:  # the mapping and where it had got to
                await unit.delete(EVENT_SOURCE_MAPPINGS, *key)
                await unit.delete(TRIGGER_CHECKPOINTS, key[1], b"")
                return None
            doc = {**doc, "State": state}
            await unit.put(EVENT_SOURCE_MAPPINGS, *key, 0, orjson.dumps(doc))
        return doc

    def _stop(self, mapping_uuid: str) -> None:
        delivery = self.running.pop(mapping_uuid, None)
        if delivery is not None:
            self.db.background.remove(delivery.duty_name)

    async def _sync_config(self) -> None:
        """Create the okura.toml mappings whose stream exists and which do not yet (one
        per function and stream: a table's new stream gets a mapping of its own)."""
        for region, table_name, body in self.configured:
            if table_name:
                table = await self.db.catalog.get(region, table_name)
                if table is None or "StreamSpecification" not in table.doc:
                    continue
                body = {**body, "EventSourceArn": arns.stream(
                    table.arn, table.doc["LatestStreamLabel"])}
            name = f"okura.toml:{body['FunctionName']}:{body['EventSourceArn']}"
            mapping_uuid = str(uuid.uuid5(uuid.NAMESPACE_URL, name))
            if name in self.reported or await mappings.load(self.db, mapping_uuid) is not None:
                continue
            try:
                await self.mappings.create(body, region, mapping_uuid)
            except LambdaError as error:
                self.reported.add(name)
                log.error("okura.toml's mapping of %s to %s: %s", body["FunctionName"],
                          body["EventSourceArn"], error.message)

    async def close(self) -> None:
        for mapping_uuid in list(self.running):
            self._stop(mapping_uuid)
        self.kinesis.close()
        await asyncio.sleep(0)
        for function in self.functions.values():
            function.close()
