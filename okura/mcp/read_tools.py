"""Tools that look at tables and read items, and the one that creates a table."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from okura.mcp.backend import dumps
from okura.mcp.pages import page
from okura.mcp.toolkit import (Consistent, Filter, IndexName, Key, Limit, Names,
                               Projection, Setup, StartKey, TableName, Values, request, tool)

Statement = Annotated[str, Field(
    description="a PartiQL statement, e.g. SELECT * FROM \"orders\" WHERE customer_id = ?")]
Parameters = Annotated[list[dict[str, Any]] | None, Field(
    description='values of the statement\'s ? in DynamoDB JSON, e.g. [{"S": "c1"}]')]


class Reads:
    def __init__(self, setup: Setup):
        self.setup = setup
        self.okura = setup.okura

    @tool(read_only=True)
    def list_tables(self) -> str:
        """List the names of every table in the region."""
        names: list[str] = []
        params: dict = {}
        while True:
            reply = self.okura.call("ListTables", **params)
            names += reply.get("TableNames", [])
            if not reply.get("LastEvaluatedTableName"):
                return dumps({"TableNames": names})
            params = {"ExclusiveStartTableName": reply["LastEvaluatedTableName"]}

    @tool(read_only=True)
    def describe_table(self, table_name: TableName) -> str:
        """Describe a table: keys, indexes, billing, stream, status, size (DescribeTable)."""
        return dumps(self.okura.call("DescribeTable", TableName=table_name)["Table"])

    @tool(read_only=False)
    def create_table(self, description: Annotated[dict[str, Any], Field(
            description="CreateTable's request: TableName, KeySchema, AttributeDefinitions, "
                        "BillingMode, GlobalSecondaryIndexes, StreamSpecification, ...")]) -> str:
        """Create a table from CreateTable's request (PAY_PER_REQUEST unless throughput given)."""
        if "ProvisionedThroughput" not in description:
            description = {"BillingMode": "PAY_PER_REQUEST", **description}
        return dumps(self.okura.call("CreateTable", **description)["TableDescription"])

    @tool(read_only=True)
    def get_item(self, table_name: TableName, key: Key, consistent_read: Consistent = None,
                 projection_expression: Projection = None,
                 expression_attribute_names: Names = None) -> str:
        """Read one item by its primary key (GetItem); {} when there is none."""
        return dumps(self.okura.call("GetItem", **request(locals())))

    @tool(read_only=True)
    def query(self, table_name: TableName, key_condition_expression: Annotated[str, Field(
                  description="e.g. customer_id = :c AND begins_with(created_at, :d)")],
              expression_attribute_values: Values = None,
              expression_attribute_names: Names = None, index_name: IndexName = None,
              filter_expression: Filter = None, projection_expression: Projection = None,
              scan_index_forward: Annotated[bool | None, Field(
                  description="false: descending sort key order")] = None,
              limit: Limit = None, exclusive_start_key: StartKey = None,
              consistent_read: Consistent = None) -> str:
        """Query one partition of a table or index, paged; follow LastEvaluatedKey for more."""
        return page(self.okura, "Query", self.setup.max_output, request(locals()))

    @tool(read_only=True)
    def scan(self, table_name: TableName, index_name: IndexName = None,
             filter_expression: Filter = None, expression_attribute_values: Values = None,
             expression_attribute_names: Names = None, projection_expression: Projection = None,
             limit: Limit = None, exclusive_start_key: StartKey = None,
             consistent_read: Consistent = None) -> str:
        """Scan a table or index, paged; follow LastEvaluatedKey for more (prefer query)."""
        return page(self.okura, "Scan", self.setup.max_output, request(locals()))

    @tool(read_only=False)
    def execute_statement(self, statement: Statement, parameters: Parameters = None,
                          limit: Limit = None, next_token: Annotated[str | None, Field(
                              description="the NextToken of the previous page")] = None,
                          consistent_read: Consistent = None) -> str:
        """Run one PartiQL statement (SELECT; INSERT/UPDATE/DELETE need --allow-writes)."""
        if not statement.lstrip().upper().startswith("SELECT"):
            self.setup.check_writes()
        return page(self.okura, "ExecuteStatement", self.setup.max_output, request(locals()))

