"""okura inside another program: a server on a thread of the calling process, as a test
suite starts one (docs/testing.md).

    with okura.running(memory=True) as endpoint:
        boto3.client("dynamodb", endpoint_url=endpoint, ...)

The server has an event loop of its own on its thread, so it answers while the caller
blocks in a boto3 call or runs an event loop of its own (aioboto3)."""
from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from typing import Any

from okura.config import Settings

REGION = "us-east-1"
# What the embedded server's clients sign with: any key does (auth is off), but an SDK
# wants some, and these keep the host's real credentials out of the requests.
FAKE_KEYS = {"aws_access_key_id": "okura", "aws_secret_access_key": "okura"}
_START_TIMEOUT = 30.0


class ServerClock:
    """The server's clock (docs/admin.md): it moves forward, never back."""

    def __init__(self, server: Server):
        self._server = server

    def now(self) -> float:
        return self._server.admin("GET", "clock")["now"]

    def advance(self, seconds: float) -> float:
        """Move the clock `seconds` forward; the new now."""
        return self._server.admin("POST", "clock", {"advance": seconds})["now"]


class Server:
    """An okura server on a background thread. Keyword arguments are okura's settings
    (okura/config.py: memory, data_dir, postgres, status_delay, seed, consistency, ...);
    no okura.toml is read. It listens on 127.0.0.1 on a free port unless `port` is given."""

    def __init__(self, **settings: Any):
        settings.setdefault("port", 0)
        if not settings.get("data_dir") and not settings.get("postgres"):
            settings.setdefault("memory", True)
        self.settings = Settings(**settings)
        self.port = 0
        self.clock = ServerClock(self)
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._failure: BaseException | None = None

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        """Start serving; returns once the server listens. A start-up mistake is raised
        here (okura.config.StartupError)."""
        if self._thread is not None:
            raise RuntimeError("this okura server has already been started")
        self._thread = threading.Thread(target=self._run, name="okura", daemon=True)
        self._thread.start()
        if not self._started.wait(_START_TIMEOUT):
            raise RuntimeError("okura did not start")
        if self._failure is not None:
            self._thread.join()
            raise self._failure
        return self

    def stop(self) -> None:
        """Stop serving (in-flight requests finish) and wait for the thread to end."""
        thread, loop, stop = self._thread, self._loop, self._stop
        if thread is None or loop is None or stop is None or not thread.is_alive():
            return
        loop.call_soon_threadsafe(stop.set)
        thread.join()

    def _run(self) -> None:
        from okura.server.app import serve  # here: `import okura` stays cheap

        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            await serve(self.settings, self._listening, self._stop)

        try:
            asyncio.run(main())
        except BaseException as error:  # reported to start(), or lost with the thread
            self._failure = error
        finally:
            self._started.set()

    def _listening(self, port: int) -> None:
        self.port = port
        self._started.set()

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # Conveniences for tests: clients pointed at this server, and its admin endpoints.
    def client(self, service: str = "dynamodb", **options: Any):
        """A boto3 client of this server (region us-east-1 and fake keys unless given)."""
        import boto3

        return boto3.client(service, **self._client_options(options))

    def resource(self, **options: Any):
        """A boto3 DynamoDB resource of this server."""
        import boto3

        return boto3.resource("dynamodb", **self._client_options(options))

    def streams_client(self, **options: Any):
        return self.client("dynamodbstreams", **options)

    def _client_options(self, options: dict) -> dict:
        return {"endpoint_url": self.endpoint_url, "region_name": REGION, **FAKE_KEYS,
                **options}

    def reset(self) -> int:
        """Drop every table and backup (POST /okura/reset); the number of tables dropped."""
        return self.admin("POST", "reset")["dropped"]

    def seed(self, description: dict) -> dict:
        """Create tables and items from a description (docs/admin.md: POST /okura/seed)."""
        return self.admin("POST", "seed", description)

    def settle(self) -> int:
        """Make every write visible to eventually consistent readers now (POST
        /okura/settle, docs/consistency.md); how many were not yet."""
        return self.admin("POST", "settle")["settled"]

    def admin(self, method: str, name: str, body: dict | None = None) -> dict:
        """A request to one of okura's admin endpoints (docs/admin.md), its JSON reply."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.endpoint_url}/okura/{name}", data=data,
                                         method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read())


class running:
    """`with okura.running(**settings) as endpoint:` (or `async with`): a Server for the
    block; `endpoint` is its URL."""

    def __init__(self, **settings: Any):
        self.server = Server(**settings)

    def __enter__(self) -> str:
        return self.server.start().endpoint_url

    def __exit__(self, *exc_info: object) -> None:
        self.server.stop()

    async def __aenter__(self) -> str:
        # off the caller's event loop: it keeps running while the server starts
        await asyncio.to_thread(self.server.start)
        return self.server.endpoint_url

    async def __aexit__(self, *exc_info: object) -> None:
        await asyncio.to_thread(self.server.stop)
