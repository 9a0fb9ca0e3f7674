"""The open connections and their limits: an idle timeout, a maximum count (--idle-timeout,
--max-connections) and the process's file limit. A flood of idle or slow connections must
not keep a client that sends whole requests from being served: at the maximum, a new
connection takes the place of the one that has gone longest without a whole request
(flood connections first: they are the quiet ones), and only when every connection is
in use is the new one refused, with a 503 it can read."""
from __future__ import annotations

import logging
import resource
import time
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from okura.server.http import HttpProtocol

log = logging.getLogger("okura.server")
# Files kept for everything but client connections (storage, logs, PostgreSQL, triggers)
RESERVED_FILES = 64
_LOOKED_AT = 64  # connections a new one looks at for one to take the place of


def file_limit(owned: bool) -> int:
    """This process's limit of open files, first raised to its hard limit when okura owns
    the process (each connection is a file; a server out of them stops accepting
    anyone; a program okura is embedded in keeps its own)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if owned and hard != soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):  # macOS: an unlimited hard limit is not settable
            pass
    return soft


def connection_limit(wanted: int, files: int) -> int:
    """The maximum number of connections: `wanted`, within what `files` open files allow."""
    if files != resource.RLIM_INFINITY and wanted > files - RESERVED_FILES:
        allowed = max(1, files - RESERVED_FILES)
        log.warning("--max-connections %d is more than the open-file limit (%d) allows: "
                    "%d", wanted, files, allowed)
        return allowed
    return wanted


class Connections:
    """The open connections, oldest first. A connection is quiet once a sweep passes
    without a whole request from it (one still arriving counts as none) while it waits
    for none of its replies; quiet through a whole idle timeout, it is closed."""

    def __init__(self, maximum: int, idle_timeout: float):
        self.maximum = maximum
        self.idle_timeout = idle_timeout
        self.open: dict[HttpProtocol, None] = {}
        self.refused = -1.0  # when a refusal was last logged (time.monotonic())

    def __iter__(self):
        return iter(list(self.open))

    def __len__(self) -> int:
        return len(self.open)

    def admit(self, connection: HttpProtocol) -> bool:
        """Whether a new connection may stay: under the maximum, or in the place of the
        connection quiet the longest."""
        if len(self.open) >= self.maximum and not self._make_room():
            now = time.monotonic()
            if now - self.refused >= 1:  # a line a second at most, however many
                self.refused = now
                log.warning("refused a connection: %d are open (--max-connections), all "
                            "in use", self.maximum)
            return False
        self.open[connection] = None
        return True

    def drop(self, connection: HttpProtocol) -> None:
        self.open.pop(connection, None)

    def _make_room(self) -> bool:
        """Close the oldest quiet connection among the first _LOOKED_AT; False if none of
        them is quiet. The connections in use passed over go to the end, so that the next
        arrival looks at others: each arrival costs the same however many are open."""
        passed = []
        room = False
        for connection in islice(self.open, _LOOKED_AT):
            if connection.quiet():
                connection.close_now()
                room = True
                break
            passed.append(connection)
        for connection in passed:
            del self.open[connection]
            self.open[connection] = None
        return room

    async def sweep(self) -> None:
        """Close the connections quiet for an idle timeout: looked at twice a timeout (a
        background duty), a connection quiet at two looks in a row is closed (after one
        to one and a half timeouts of quiet)."""
        for connection in list(self.open):
            if connection.quiet():
                if connection.drowsy:
                    connection.close_now()
                connection.drowsy = True
            else:
                connection.drowsy = connection.seen = False
