"""Following a stream (or a Kinesis destination's change log) from a checkpoint: the
duty and the reading that stream triggers' deliveries and Kinesis destinations' feeds
share. The checkpoint (a TRIGGER_CHECKPOINTS row named `key`) holds `Position`, the
sequence counter of the last record handled, and whatever the follower adds."""
from __future__ import annotations

import asyncio
import math
from typing import TYPE_CHECKING

import orjson

from okura.core.scheduler import Duty, report
from okura.core.spaces import TRIGGER_CHECKPOINTS
from okura.core.streams import read
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database
    from okura.core.streams.state import Stream



async def checkpoint(db: Database, key: str) -> dict | None:
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(TRIGGER_CHECKPOINTS, key.encode(), b""))
    return None if raw is None else orjson.loads(raw)


async def save_checkpoint(db: Database, key: str, state: dict) -> None:
    async with db.engine.transaction() as unit:
        await unit.put(TRIGGER_CHECKPOINTS, key.encode(), b"", 0, orjson.dumps(state))


class Follower:
    """Follows its stream as a duty of the scheduler (core/scheduler.py): woken by the
    "streams" signal of a write that appended records here, every `interval` while it
    holds records for the clock (a batching window, a tumbling window), and at that
    interval anyway on shared storage (another node's writes)."""

    def __init__(self, db: Database, key: str, interval: float) -> None:
        self.db = db
        self.key = key
        self.interval = interval  # seconds between polls while something waits
        self.state: dict = {}  # the checkpoint, once read (`loaded`)
        self.loaded = False

    def initial(self) -> dict:
        """The checkpoint of a follower that has saved none."""
        raise NotImplementedError

    async def step(self) -> bool:
        """Handle what follows the checkpoint; whether anything was."""
        raise NotImplementedError

    def holding(self) -> bool:
        """Whether records wait for the clock rather than for new ones."""
        return False

    @property
    def duty_name(self) -> str:
        return f"follow/{self.key}"

    def duty(self) -> Duty:
        return Duty(self.duty_name, self.work, self.interval if self.db.engine.shared else None,
                    wakes_on=("streams",))

    async def work(self) -> float | None:
        """The duty's round: a step; again at once while it finds records."""
        try:
            if not self.loaded:
                self.state = await checkpoint(self.db, self.key) or self.initial()
                self.loaded = True
            if await self.step():
                return 0
        except asyncio.CancelledError:
            raise
        except Exception as error:
            report(f"following {self.key}", error)
            return self.interval
        return self.interval if self.holding() else None

    async def save(self) -> None:
        await save_checkpoint(self.db, self.key, self.state)

    def convert(self, record: dict, stream: Stream) -> dict:
        """A stored record as this follower hands it on."""
        return record

    async def _shard(self, stream: Stream, horizon: float) -> dict | None:
        """The shard holding the record after the checkpoint (moving the checkpoint
        past what was trimmed)."""
        after = self.state["Position"] + 1
        for shard in stream.shards(horizon):
            end = shard["End"] if shard["End"] is not None else math.inf
            if end >= after:
                if shard["Start"] > after:  # what came before it has aged out
                    self.state["Position"] = await read.oldest_position(
                        self.db, stream, shard, horizon)
                return shard
        return None

    async def _read(self, stream: Stream, shard: dict, want: int,
                    horizon: float) -> tuple[list[dict], int]:
        """Up to `want` records after the checkpoint, and the position after them."""
        position = self.state["Position"]
        found: list[dict] = []
        while len(found) < want:
            try:
                batch = await read.records(self.db, stream, shard, position,
                                           min(want - len(found), read.MAX_RECORDS), horizon)
            except read.Trimmed:
                position = await read.oldest_position(self.db, stream, shard, horizon)
                self.state["Position"] = position
                continue
            found += [self.convert(orjson.loads(raw), stream) for raw in batch.records]
            if batch.position == position:
                break
            position = batch.position
        return found, position
