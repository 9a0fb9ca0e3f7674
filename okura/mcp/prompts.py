"""The prompt "design a table for these access patterns", fed with the guidelines the design
advisor checks tables against (okura/advisor/rules.py, docs/advisor.md)."""
from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from okura.advisor.rules import CATALOGUE

_STEPS = """\
Design one DynamoDB table (single-table design where the patterns allow) for the access
patterns below, following the guidelines after them.

1. List each access pattern with the key condition that serves it: a Query on the table or
   on a global secondary index, never a Scan on a hot path.
2. Write the CreateTable request (JSON): TableName, KeySchema, AttributeDefinitions,
   BillingMode, GlobalSecondaryIndexes with their Projection, StreamSpecification if
   something consumes changes, and say which attribute is the TTL if items expire.
3. Create it with the create_table tool, put a few realistic items (put_item or
   batch_write_item), run each access pattern with query, and call advise_table.
   Fix what advise_table finds, or say why a finding does not apply.

Access patterns:
{patterns}

Guidelines (severity, rule, what to do, and the guideline section it comes from):
{guidelines}
"""


def guidelines() -> str:
    return "\n".join(f"- [{rule.severity}] {rule.id}: {rule.recommendation} ({rule.source})"
                     for rule in CATALOGUE.values())


def register(app: MCPServer) -> None:
    @app.prompt(name="design_table", title="Design a table for these access patterns")
    def design_table(access_patterns: Annotated[str, Field(
            description="the application's reads and writes, one per line, e.g. 'get a "
                        "customer's orders, newest first'")]) -> str:
        """Design a DynamoDB table for access patterns, by the guidelines okura's advisor checks."""
        return _STEPS.format(patterns=access_patterns.strip(), guidelines=guidelines())
