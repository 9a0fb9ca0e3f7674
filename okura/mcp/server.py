"""The MCP server: okura's tools, resources and prompt on the official SDK's MCPServer,
over stdio or streamable HTTP, against an okura started here or one already running."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from mcp.server.mcpserver import MCPServer
from mcp.types import Resource

from okura import __version__
from okura.mcp import prompts, resources
from okura.mcp.backend import Okura
from okura.mcp.controls import Controls
from okura.mcp.observe import Observe
from okura.mcp.read_tools import Reads
from okura.mcp.toolkit import Setup, tools_of
from okura.mcp.write_tools import Writes


class _Server(MCPServer):
    """MCPServer whose resources/list names every table's resources as they are now."""

    def __init__(self, setup: Setup, **options: Any):
        super().__init__(**options)
        self._setup = setup

    async def list_resources(self) -> list[Resource]:
        import anyio.to_thread

        return [*await super().list_resources(),
                *await anyio.to_thread.run_sync(resources.listed, self._setup)]


def build(setup: Setup) -> MCPServer:
    okura = setup.okura
    writes = ("items may be written" if setup.allow_writes
              else "read-only: item writes are refused (start with --allow-writes)")
    app = _Server(setup, name="okura", version=__version__, instructions=(
        f"okura, a DynamoDB-compatible server, at {okura.endpoint} (region {okura.region}); "
        f"{writes}. Items and keys are DynamoDB JSON ({{\"S\": \"x\"}}, {{\"N\": \"1\"}}). "
        "Errors are DynamoDB's own. Use advise_table to check a design, table_metrics for "
        "capacity, advance_clock for TTL and time, add_fault to test error handling."))
    for holder in (Reads(setup), Writes(setup), Observe(setup), Controls(setup)):
        for method, annotations in tools_of(holder):
            app.add_tool(method, annotations=annotations, structured_output=False)
    resources.register(app, setup)
    prompts.register(app)
    return app


@contextlib.contextmanager
def _okura(endpoint: str | None, settings: dict) -> Iterator[str]:
    """The endpoint of the okura to use: `endpoint`, or one started here for the while."""
    if endpoint:
        yield endpoint
        return
    from okura.embedded import Server

    with Server(**{k: v for k, v in settings.items() if v is not None}) as server:
        yield server.endpoint_url


def run(endpoint: str | None, region: str, allow_writes: bool, max_output: int,
        http: int | None, http_host: str, **settings: Any) -> None:
    """`okura mcp` (docs/mcp.md)."""
    with _okura(endpoint, settings) as url:
        app = build(Setup(Okura(url, region, own_keys=bool(endpoint)), allow_writes,
                          max_output))
        if http is None:
            app.run("stdio")
        else:
            app.run("streamable-http", host=http_host, port=http)
