"""Resources: each table's description and a sample of its items, listed per table."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import Resource

from okura.mcp.backend import dumps
from okura.mcp.pages import page
from okura.mcp.toolkit import Setup

SAMPLE = 20  # items of a table's sample resource
JSON = "application/json"


def register(app: MCPServer, setup: Setup) -> None:
    okura = setup.okura

    @app.resource("okura://tables/{table_name}", name="table", mime_type=JSON,
                  description="a table's DescribeTable description")
    def description(table_name: str) -> str:
        with _as_resource_error():
            return dumps(okura.call("DescribeTable", TableName=table_name)["Table"])

    @app.resource("okura://tables/{table_name}/items", name="table-items", mime_type=JSON,
                  description=f"a sample of a table's items (a Scan of {SAMPLE})")
    def sample(table_name: str) -> str:
        with _as_resource_error():
            return page(okura, "Scan", setup.max_output, {"TableName": table_name,
                                                          "Limit": SAMPLE})


def listed(setup: Setup) -> list[Resource]:
    """Both resources of every table, for resources/list."""
    try:
        names = setup.okura.call("ListTables").get("TableNames", [])
    except ToolError:  # okura gone: nothing to list, and the tools will say why
        return []
    return [resource for name in names for resource in (
        Resource(uri=f"okura://tables/{name}", name=f"{name} description", mime_type=JSON,
                 description=f"DescribeTable of {name}"),
        Resource(uri=f"okura://tables/{name}/items", name=f"{name} items", mime_type=JSON,
                 description=f"a sample of {SAMPLE} items of {name}"))]


@contextmanager
def _as_resource_error() -> Iterator[None]:
    """A failed read as the SDK's resource error, DynamoDB's text kept."""
    try:
        yield
    except ToolError as error:
        missing = str(error).startswith("ResourceNotFoundException")
        raise (ResourceNotFoundError if missing else ResourceError)(str(error)) from None
