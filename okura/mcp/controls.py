"""Tools that steer the server for a test: its clock, injected faults and throttling
(docs/admin.md, docs/throttling.md)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from okura.mcp.backend import dumps
from okura.mcp.toolkit import Setup, tool

FaultError = Literal["ProvisionedThroughputExceededException", "ThrottlingException",
                     "RequestLimitExceeded", "InternalServerError", "ServiceUnavailable",
                     "TransactionConflict"]
Mode = Literal["off", "shadow", "enforce"]


class Controls:
    def __init__(self, setup: Setup):
        self.okura = setup.okura

    @tool(read_only=True)
    def get_clock(self) -> str:
        """Read the server's clock: now (epoch seconds) and how far ahead of real time it is."""
        return dumps(self.okura.admin("GET", "clock"))

    @tool(read_only=False)
    def advance_clock(self, seconds: Annotated[float, Field(
            description="seconds to move forward (never back), e.g. 86400 for a day")]) -> str:
        """Move the server's clock forward: TTL expiry, stream retention, PITR follow it."""
        return dumps(self.okura.admin("POST", "clock", {"advance": seconds}))

    @tool(read_only=True)
    def list_faults(self) -> str:
        """List the injected fault rules, with how often each matched and fired."""
        return dumps(self.okura.admin("GET", "faults"))

    @tool(read_only=False)
    def add_fault(
        self,
        operation: Annotated[str | None, Field(
            description="the operation it matches (PutItem, Query, ...); any if absent")] = None,
        table: Annotated[str | None, Field(description="the table it matches")] = None,
        index: Annotated[str | None, Field(description="the index a Query or Scan reads")] = None,
        key_prefix: Annotated[str | None, Field(
            description="a prefix of the partition key's value")] = None,
        error: Annotated[FaultError | None, Field(
            description="the DynamoDB error to answer with")] = None,
        reason: Annotated[str | None, Field(
            description="with a throttling error: the cause in ThrottlingReasons")] = None,
        unprocessed: Annotated[float | None, Field(
            description="BatchWriteItem/BatchGetItem: share (0-1] of items left unprocessed")
        ] = None,
        drop_connection: Annotated[bool | None, Field(
            description="close the connection without a reply")] = None,
        latency: Annotated[float | None, Field(
            description="seconds of delay before the request runs")] = None,
        probability: Annotated[float | None, Field(
            description="fire on each matching request with this probability (0-1)")] = None,
        every: Annotated[int | None, Field(
            description="fire on every Nth matching request")] = None,
        count: Annotated[int | None, Field(description="fire this many times, then stop")] = None,
        duration: Annotated[float | None, Field(
            description="seconds on the server's clock the rule lasts")] = None,
        seed: Annotated[int | None, Field(
            description="seed of the rule's random choices, for repeatable runs")] = None,
    ) -> str:
        """Inject a fault: matching requests fail with a DynamoDB error, drop, or slow down."""
        rule = {name: value for name, value in locals().items()
                if name != "self" and value is not None}
        return dumps(self.okura.admin("POST", "faults", rule))

    @tool(read_only=False)
    def clear_faults(self) -> str:
        """Remove every injected fault rule."""
        return dumps(self.okura.admin("DELETE", "faults"))

    @tool(read_only=True)
    def get_throttling(self) -> str:
        """Read the throttling mode (off, shadow, enforce) of every table and of single tables."""
        return dumps(self.okura.admin("GET", "throttling"))

    @tool(read_only=False)
    def set_throttling(self, mode: Annotated[Mode | None, Field(
                           description="off; shadow: count would-be throttles; enforce: "
                                       "throttle as DynamoDB does (null with a table: follow "
                                       "every table's mode again)")],
                       table: Annotated[str | None, Field(
                           description="set only this table's mode")] = None) -> str:
        """Set the throttling mode of every table, or of one table."""
        body: dict = {"mode": mode}
        if table is not None:
            body["table"] = table
        return dumps(self.okura.admin("POST", "throttling", body))
