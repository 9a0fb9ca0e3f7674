"""Delivering one mapping's stream to its function, with Lambda's semantics.

Each step reads the records after the checkpoint from the shard that holds them
(at most BatchSize x ParallelizationFactor), drops those the filters reject, splits
the rest into lanes by partition key (ParallelizationFactor: records of one key stay
in one lane, in order), cuts each lane into batches of at most BatchSize (and never
across a tumbling window), and delivers the lanes side by side, each in order.
Only when every lane is done with the step's records does the checkpoint move past
them (filtered-out records included): delivery is at least once, and a restart or
another node resumes from the checkpoint.

A batch the function fails is retried (MaximumRetryAttempts, -1 for ever), split in
two first when BisectBatchOnFunctionError is set (splitting costs no retry); with
ReportBatchItemFailures the function names the first record that failed and the
batch is retried from there. Records older than MaximumRecordAgeInSeconds are not
delivered. What is given up on goes to the on-failure destination, and delivery
moves on. Every time is okura's clock: the batching window, record ages and
tumbling windows all follow POST /okura/clock.
"""
from __future__ import annotations

import asyncio
import logging
import zlib
from time import perf_counter
from typing import TYPE_CHECKING, Any

import orjson

from okura.core.metrics import Metrics
from okura.core.streams import read
from okura.triggers import destinations, filters, mappings
from okura.core.streams.follow import Follower
from okura.triggers.functions import Outcome

if TYPE_CHECKING:
    from okura.core.database import Database
    from okura.core.streams.state import Stream
    from okura.triggers.functions import Function

log = logging.getLogger("okura.triggers")
MAX_PAYLOAD = 6 * 1024 * 1024  # Lambda's synchronous invocation payload limit
OK, PROBLEM = "OK", "PROBLEM: Function call failed"


def _lambda_record(record: dict, stream_arn: str) -> dict:
    """A stored stream record as Lambda's event spells it."""
    record["eventSourceARN"] = stream_arn
    identity = record.get("userIdentity")
    if identity is not None:
        record["userIdentity"] = {"type": identity["Type"],
                                  "principalId": identity["PrincipalId"]}
    return record


def _created(record: dict) -> float:
    return record["dynamodb"]["ApproximateCreationDateTime"]


class Delivery(Follower):
    """One mapping, delivered by this node (it holds the mapping's lease). Its
    checkpoint row holds Position, Windows and Result."""

    def __init__(self, db: Database, doc: dict, function: Function, interval: float) -> None:
        super().__init__(db, doc["UUID"], interval)
        self.doc = doc  # refreshed by the engine every round
        self.function = function
        self.held = False  # whether the last step held a batch for its batching window

    def initial(self) -> dict:
        return {"Position": 0, "Windows": {}}

    def convert(self, record: dict, stream: Stream) -> dict:
        return _lambda_record(record, stream.arn)

    def holding(self) -> bool:
        return self.held or bool(self.state["Windows"])

    async def step(self) -> bool:
        """Deliver what the stream holds after the checkpoint; whether anything moved."""
        db, doc = self.db, self.doc
        self.held = False
        now = db.clock.now()
        horizon = now - db.stream_retention
        stream = await read.find(db, doc["EventSourceArn"], horizon)
        if stream is None:
            return False
        shard = await self._shard(stream, horizon)
        if shard is None:
            return await self._close_windows(now, None)
        factor = doc["ParallelizationFactor"]
        want = min(doc["BatchSize"] * factor, 10000)
        found, position = await self._read(stream, shard, want, horizon)
        if not found:
            return await self._close_windows(now, shard["Id"])
        # a batch short of BatchSize waits out the window from its first record's creation,
        # not from the poll that first saw it: moving the clock past the window releases
        # it whenever the polls fall
        if len(found) < want and now - _created(found[0]) < doc[
                "MaximumBatchingWindowInSeconds"]:
            self.held = True
            return False
        patterns = filters.parse(doc["FilterCriteria"]) if doc.get("FilterCriteria") else []
        kept = [record for record in found if filters.passes(patterns, record)]
        lanes: list[list[dict]] = [[] for _ in range(factor)]
        hash_key = next(k["AttributeName"] for k in stream.doc["KeySchema"]
                        if k["KeyType"] == "HASH")
        for record in kept:
            key = orjson.dumps(record["dynamodb"]["Keys"][hash_key])
            lanes[zlib.crc32(key) % factor].append(record)
        await asyncio.gather(*(self._lane(str(number), records, shard["Id"], stream.arn)
                               for number, records in enumerate(lanes) if records))
        self.state["Position"] = position
        await self.save()
        return True

    # batches
    def _batches(self, records: list[dict]) -> list[list[dict]]:
        size, tumbling = self.doc["BatchSize"], self.doc["TumblingWindowInSeconds"]
        batches: list[list[dict]] = []
        payload = 0
        for record in records:
            length = len(orjson.dumps(record))
            last = batches[-1] if batches else None
            if (last is None or len(last) >= size or payload + length > MAX_PAYLOAD or (
                    tumbling and self._window_of(last[0]) != self._window_of(record))):
                batches.append([record])
                payload = length
            else:
                last.append(record)
                payload += length
        return batches

    def _window_of(self, record: dict) -> float:
        width = self.doc["TumblingWindowInSeconds"]
        return _created(record) // width * width

    async def _lane(self, lane: str, records: list[dict], shard_id: str, arn: str) -> None:
        for batch in self._batches(records):
            if self.doc["TumblingWindowInSeconds"]:
                start = self._window_of(batch[0])
                held = self.state["Windows"].get(lane)
                if held is not None and held["Start"] != start:
                    await self._final(lane, held, shard_id, arn)
                if self.state["Windows"].get(lane) is None:
                    self.state["Windows"][lane] = {"Start": start, "State": {}}
            await self._deliver(lane, batch, shard_id, arn)

    async def _close_windows(self, now: float, shard_id: str | None) -> bool:
        """Final invocations of the tumbling windows the clock has ended."""
        width = self.doc["TumblingWindowInSeconds"]
        ended = [(lane, held) for lane, held in self.state["Windows"].items()
                 if held["Start"] + width <= now] if width else []
        for lane, held in ended:
            await self._final(lane, held, shard_id or "", self.doc["EventSourceArn"])
        if ended:
            await self.save()
        return False

    async def _final(self, lane: str, held: dict, shard_id: str, arn: str) -> None:
        """The window's last invocation (no records, its final state); retried until it
        succeeds, as Lambda holds the shard until it does."""
        while True:
            outcome = await self._invoke(self._event([], shard_id, arn, held, True), [])
            if outcome.error is None and not outcome.throttled:
                del self.state["Windows"][lane]
                return
            await asyncio.sleep(self.interval)

    def _event(self, batch: list[dict], shard_id: str, arn: str, window: dict | None,
               final: bool = False) -> dict:
        event: dict = {"Records": batch}
        if window is not None:
            width = self.doc["TumblingWindowInSeconds"]
            event.update({"window": {"start": destinations.iso(window["Start"], False),
                                     "end": destinations.iso(window["Start"] + width, False)},
                          "state": window["State"], "shardId": shard_id,
                          "eventSourceARN": arn, "isFinalInvokeForWindow": final,
                          "isWindowTerminatedEarly": False})
        return event

    async def _deliver(self, lane: str, batch: list[dict], shard_id: str, arn: str) -> None:
        doc = self.doc
        attempts = 0
        while batch:
            batch = await self._drop_aged(batch, shard_id, arn, attempts)
            if not batch:
                return
            window = self.state["Windows"].get(lane)
            event = self._event(batch, shard_id, arn, window)
            outcome = await self._invoke(event, batch)
            if outcome.throttled:  # not an attempt: the function never ran
                await asyncio.sleep(self.interval)
                continue
            attempts += 1
            failed_from = None
            if outcome.error is None:
                failed_from = self._failed_from(outcome.payload, batch)
                if window is not None and isinstance(outcome.payload, dict):
                    window["State"] = outcome.payload.get("state") or {}
                if failed_from is None:
                    await self._result(OK)
                    return
                batch = batch[failed_from:]
            elif doc["BisectBatchOnFunctionError"] and len(batch) > 1:
                half = len(batch) // 2
                await self._deliver(lane, batch[:half], shard_id, arn)
                await self._deliver(lane, batch[half:], shard_id, arn)
                return
            await self._result(PROBLEM)
            if doc["MaximumRetryAttempts"] >= 0 and attempts > doc["MaximumRetryAttempts"]:
                await self._give_up("RetryAttemptsExhausted", attempts, outcome, batch,
                                    shard_id, arn, event)
                return
            await asyncio.sleep(min(0.01 * 2 ** attempts, 1.0))

    def _failed_from(self, payload: Any, batch: list[dict]) -> int | None:
        """Where a successful invocation asks the batch to be retried from: None when
        all went through; 0 (the whole batch) when the answer is unusable. A tumbling
        window's answer without "state" fails the batch."""
        if self.doc["TumblingWindowInSeconds"] and not (
                isinstance(payload, dict) and isinstance(payload.get("state"), dict)):
            return 0
        if mappings.REPORT_FAILURES not in self.doc["FunctionResponseTypes"]:
            return None
        failures = payload.get("batchItemFailures") if isinstance(payload, dict) else None
        if not failures:
            return None  # an empty list or none: every record succeeded
        numbers = [r["dynamodb"]["SequenceNumber"] for r in batch]
        found = []
        for failure in failures:
            identifier = failure.get("itemIdentifier") if isinstance(failure, dict) else None
            if identifier not in numbers:
                return 0  # null, empty or unknown: Lambda fails the whole batch
            found.append(numbers.index(identifier))
        return min(found)

    async def _drop_aged(self, batch: list[dict], shard_id: str, arn: str,
                         attempts: int) -> list[dict]:
        """The batch without its records past MaximumRecordAgeInSeconds (those go to the
        destination) or, with no age limit, past the stream's retention: Lambda retries
        "until the record expires", and an expired record is simply gone."""
        limit = self.doc["MaximumRecordAgeInSeconds"]
        now = self.db.clock.now()
        if limit == -1:
            kept = [r for r in batch if now - _created(r) <= self.db.stream_retention]
            if len(kept) < len(batch):
                log.warning("%s: %d records of %s expired while retried", self.function.name,
                            len(batch) - len(kept), shard_id)
            return kept
        aged = [r for r in batch if now - _created(r) > limit]
        if aged:
            await self._give_up("RecordAgeExceeded", attempts, None, aged, shard_id, arn,
                                self._event(aged, shard_id, arn, None))
        return [r for r in batch if now - _created(r) <= limit]

    async def _give_up(self, condition: str, attempts: int, outcome: Outcome | None,
                       batch: list[dict], shard_id: str, arn: str, event: dict) -> None:
        destination = (self.doc.get("DestinationConfig") or {}).get("OnFailure", {}).get(
            "Destination")
        log.warning("%s: %d records of %s discarded (%s)", self.function.name, len(batch),
                    shard_id, condition)
        if destination:
            failed = outcome is not None and outcome.error is not None
            record = destinations.failure_record(
                condition, self.doc["FunctionArn"], attempts, "Unhandled" if failed else None,
                shard_id, arn, batch, self.db.clock.now())
            await destinations.send(self.db, destination, record, event)

    async def _result(self, result: str) -> None:
        if self.state.get("Result") != result:
            self.state["Result"] = result
            await self.save()

    async def _invoke(self, event: dict, batch: list[dict]) -> Outcome:
        function, doc = self.function, self.doc
        # IteratorAge: how old the batch's last record is when the function gets it
        age = (self.db.clock.now() - _created(batch[-1])) * 1000 if batch else None
        started = perf_counter()
        outcome = await function.invoke(event, doc["Region"], self.db.account)
        seconds = perf_counter() - started
        self.db.features[Metrics].invoked(function.name, doc["Region"], seconds,
                                          outcome.error is not None, outcome.throttled, age)
        log.info("%s (mapping %s): %d records, %.1f ms, %s", function.name, doc["UUID"],
                 len(batch), seconds * 1000,
                 "throttled" if outcome.throttled else "OK" if outcome.error is None else
                 f"{outcome.error.get('errorType')}: {outcome.error.get('errorMessage')}")
        return outcome
