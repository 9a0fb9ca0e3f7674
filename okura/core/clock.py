"""The one clock of a server. All time in core comes from here, so that tests
and users can move it forward (TTL expiry, stream retention, status delays)."""
from __future__ import annotations

import time


class Clock:
    __slots__ = ("offset",)

    def __init__(self, offset: float = 0.0):
        self.offset = offset

    def now(self) -> float:
        """Seconds since the epoch, as the server sees them."""
        return time.time() + self.offset

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self.offset += seconds
        return self.now()
