"""`okura mcp` in its own process, driven over stdio (or HTTP) by the SDK's own client, for
synchronous tests: the client lives on an event loop of a thread of its own."""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = __file__.rsplit("/tests/", 1)[0]  # the checkout under test: `python -m okura` there


class Session:
    def __init__(self, *args: str, url: str | None = None):
        """`okura mcp ARGS` over stdio, or the MCP server at `url` over HTTP."""
        self.log = tempfile.NamedTemporaryFile("w+", prefix="okura-mcp-", suffix=".log")
        if url is None:
            params = StdioServerParameters(command=sys.executable,
                                           args=["-m", "okura", "mcp", *args], cwd=ROOT)
            self._target: Any = stdio_client(params, errlog=self.log)
        else:
            self._target = url
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._stop: asyncio.Event | None = None
        ready: concurrent.futures.Future[Client] = concurrent.futures.Future()
        self._held = asyncio.run_coroutine_threadsafe(self._hold(ready), self._loop)
        self.client = ready.result(90)

    async def _hold(self, ready: concurrent.futures.Future) -> None:
        """Enter the client and keep it open until close(), in one task (anyio wants that)."""
        self._stop = asyncio.Event()
        try:
            async with Client(self._target, read_timeout_seconds=60) as client:
                ready.set_result(client)
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(RuntimeError(f"okura mcp did not start: {error!r}\n"
                                                 f"{self.stderr()}"))
            raise

    def run(self, call: Callable[[Client], Any]) -> Any:
        """The result of `call(client)`, a coroutine run on the client's loop."""
        return asyncio.run_coroutine_threadsafe(call(self.client), self._loop).result(90)

    def call(self, tool: str, **arguments: Any) -> tuple[bool, str]:
        """(is_error, text) of one tool call."""
        result = self.run(lambda client: client.call_tool(tool, arguments))
        return result.is_error, "".join(block.text for block in result.content)

    def json(self, tool: str, **arguments: Any) -> Any:
        failed, text = self.call(tool, **arguments)
        assert not failed, text
        return json.loads(text)

    def error(self, tool: str, **arguments: Any) -> str:
        """The text of a call that must fail, without the SDK's "Error executing tool X: "."""
        failed, text = self.call(tool, **arguments)
        assert failed, text
        prefix = f"Error executing tool {tool}: "
        assert text.startswith(prefix), text
        return text[len(prefix):]

    def stderr(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def close(self) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        try:
            self._held.result(30)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self.log.close()


def wait_listening(port: int, process: subprocess.Popen, timeout: float = 90.0) -> None:
    """Until `process` listens on `port` (a loaded machine takes seconds to import)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"okura mcp exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("okura mcp did not start listening")
