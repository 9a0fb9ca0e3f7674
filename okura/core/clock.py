"""The one clock of a server. All time in core comes from here, so that tests
and users can move it forward (TTL expiry, stream retention, status delays).

On storage shared by several nodes the offset (how far the clock runs ahead of
real time) is shared too: it lives in one storage row, `advance` moves it there
under a row lock and announces the move (PostgreSQL's NOTIFY), and every node re-reads
it when it hears of one, and every REFRESH seconds where it cannot hear (`refresh`, a
background duty).
`now()` itself never touches storage: it is on every request's path.
"""
from __future__ import annotations

import time

from okura.core.spaces import CLOCK
from okura.storage.engine import Engine, doc_of

_HK, _RK = b"clock", b""
REFRESH = 0.2  # seconds: a move through one node shows on the others within this
REFRESH_HEARING = 5.0  # seconds between refreshes where moves are announced (LISTEN)


class Clock:
    __slots__ = ("offset", "_engine")

    def __init__(self, offset: float = 0.0) -> None:
        self.offset = offset
        self._engine: Engine | None = None  # the shared storage, once `share`d

    def now(self) -> float:
        """Seconds since the epoch, as the server sees them."""
        return self.at(time.time())

    def at(self, wall: float) -> float:
        """What now() was when time.time() read `wall` (a reading taken anyway)."""
        return wall + self.offset

    async def share(self, engine: Engine) -> None:
        """Keep the offset in `engine` from now on; a start-up offset ahead of the
        stored one moves the shared clock forward to it."""
        self._engine = engine
        await self._move(0.0)

    async def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        if self._engine is None:
            self.offset += seconds
        else:
            await self._move(seconds)
        return self.now()

    async def refresh(self) -> None:
        """Take up a move made through another node."""
        assert self._engine is not None  # only a shared clock follows (share() came first)
        async with self._engine.reader() as unit:
            raw = doc_of(await unit.get(CLOCK, _HK, _RK))
        if raw is not None:
            self.offset = max(self.offset, float(raw))

    async def _move(self, seconds: float) -> None:
        # Moves through several nodes add up: each starts from the larger of the
        # stored offset and the one this node already follows.
        assert self._engine is not None  # share() sets it before its first move
        async with self._engine.transaction() as unit:
            raw = doc_of(await unit.get(CLOCK, _HK, _RK, lock=True))
            stored = 0.0 if raw is None else float(raw)
            offset = max(stored, self.offset) + seconds
            if raw is None or offset != stored:
                await unit.put(CLOCK, _HK, _RK, 0, repr(offset).encode())
                await unit.announce(CLOCK)  # the other nodes refresh at once
        self.offset = offset
