"""What `serve` claims before it serves: the listening socket and the data directory.
Each mistake here (a port in use, a directory another okura holds or okura cannot use)
is a StartupError of one line, raised before any data is touched."""
from __future__ import annotations

import errno
import fcntl
import os
import socket
from typing import IO, TYPE_CHECKING

from okura.config import Settings, StartupError
from okura.core.database import Database
from okura.server import request_log, seeding
from okura.server.request_log import RequestLog

if TYPE_CHECKING:
    from okura.server.app import App

LOCK_FILE = "okura.lock"


def listen(host: str, port: int) -> socket.socket:
    """A bound socket for host:port (port 0: a free one), listening once create_server
    takes it."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise StartupError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        reason = ("the port is in use (another okura, or another program)"
                  if error.errno == errno.EADDRINUSE else error.strerror)
        raise StartupError(f"cannot listen on {host}:{port}: {reason}") from None
    return sock


def lock_data_dir(path: str) -> IO[str]:
    """Hold the data directory for this server (a lock on `okura.lock` in it, with this
    process's id) until the returned file is closed: two servers on one SQLite file would
    hand out the same row ids. The operating system drops the lock with the process,
    however it ends."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise StartupError(f"cannot use the data directory {path}: it is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
        handle = open(os.path.join(path, LOCK_FILE), "a+", encoding="ascii")
    except OSError as error:
        raise StartupError(f"cannot use the data directory {path}: "
                           f"{error.strerror or error}") from None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise StartupError(f"the data directory {path} is in use by another okura "
                           f"(pid {holder})") from None
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


class Claimed:
    """What one `serve` holds besides its database: the listening socket, the data
    directory's lock and the request log; each let go when the server stops or its
    start fails."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.socket = listen(settings.host, settings.port)
        self.port: int = self.socket.getsockname()[1]
        self.lock: IO[str] | None = None
        self.request_log: RequestLog | None = None
        if not settings.memory and not settings.postgres:
            try:
                self.lock = lock_data_dir(settings.data_dir)
            except StartupError:
                self.socket.close()
                raise

    async def open(self, db: Database, storage: str) -> None:
        try:
            await db.open()
        except Exception as error:  # whatever the backend's reason, one line
            self.release()
            raise StartupError(f"cannot open the storage ({storage}): {error}") from None

    def log_requests(self, app: App) -> None:
        """Log each request of the app, if asked to (request_log.wrap)."""
        self.request_log = request_log.wrap(app, self.settings.log_level,
                                            self.settings.access_log)

    async def seed(self, db: Database) -> None:
        """Load --seed's file (okura/server/seeding.py)."""
        try:
            await seeding.load_file(db, self.settings.seed)
        except StartupError:
            await db.close()
            self.release()
            raise

    def release(self) -> None:
        self.socket.close()
        if self.lock is not None:
            self.lock.close()
        if self.request_log is not None:
            self.request_log.close()
