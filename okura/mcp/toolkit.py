"""What every tool module shares: the setup tools run under, the mark that makes a method a
tool, DynamoDB's parameter names, and the annotated parameter types whose descriptions the
agent reads in each tool's JSON schema."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Callable

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from okura.mcp.backend import Okura


@dataclass
class Setup:
    okura: Okura
    allow_writes: bool
    max_output: int  # bytes of JSON a tool returns at most

    def check_writes(self) -> None:
        if not self.allow_writes:
            raise ToolError("okura mcp is read-only: it writes items only when started with "
                            "--allow-writes (add it to the server's args in the client's config)")


def tool(read_only: bool, destructive: bool = False) -> Callable:
    """Mark a method as a tool; its docstring's first line is the description."""
    def mark(method: Callable) -> Callable:
        method.tool_annotations = ToolAnnotations(  # type: ignore[attr-defined]
            read_only_hint=read_only, destructive_hint=destructive, open_world_hint=False)
        return method
    return mark


def tools_of(holder: object) -> list[tuple[Callable, ToolAnnotations]]:
    """The marked methods of a tool holder and their annotations, in the order defined."""
    methods = [getattr(holder, name) for name in type(holder).__dict__]
    return [(method, method.tool_annotations) for method in methods
            if hasattr(method, "tool_annotations")]


def request(arguments: dict[str, Any]) -> dict:
    """DynamoDB's request from a tool method's arguments (its locals(); None: left out):
    key_condition_expression -> KeyConditionExpression."""
    return {"".join(part.capitalize() for part in name.split("_")): value
            for name, value in arguments.items() if value is not None and name != "self"}


TableName = Annotated[str, Field(description="the table's name")]
IndexName = Annotated[str | None, Field(
    description="read this global or local secondary index instead of the table")]
Key = Annotated[dict[str, Any], Field(
    description='the primary key in DynamoDB JSON, e.g. {"user_id": {"S": "u1"}}')]
Item = Annotated[dict[str, Any], Field(
    description='the whole item in DynamoDB JSON, e.g. {"user_id": {"S": "u1"}, '
                '"age": {"N": "31"}}; Binary values as base64')]
Names = Annotated[dict[str, str] | None, Field(
    description='ExpressionAttributeNames, e.g. {"#s": "status"}')]
Values = Annotated[dict[str, Any] | None, Field(
    description='ExpressionAttributeValues in DynamoDB JSON, e.g. {":s": {"S": "open"}}')]
Condition = Annotated[str | None, Field(
    description="ConditionExpression: the write happens only if it holds")]
Projection = Annotated[str | None, Field(
    description="ProjectionExpression: the attributes to return (default all)")]
Filter = Annotated[str | None, Field(
    description="FilterExpression applied after the read (read units are still paid)")]
Consistent = Annotated[bool | None, Field(description="strongly consistent read")]
Limit = Annotated[int | None, Field(
    description="items to evaluate at most (DynamoDB's Limit); pages are also cut to the "
                "server's output size")]
StartKey = Annotated[dict[str, Any] | None, Field(
    description="the LastEvaluatedKey of the previous page, to read the next one")]
ReturnValues = Annotated[str | None, Field(
    description="NONE (default), ALL_OLD, UPDATED_OLD, ALL_NEW or UPDATED_NEW")]
