"""Tools that write items: refused unless `okura mcp --allow-writes`."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from okura.mcp.backend import dumps
from okura.mcp.toolkit import (Condition, Item, Key, Names, ReturnValues, Setup, TableName,
                               Values, request, tool)


class Writes:
    def __init__(self, setup: Setup):
        self.setup = setup

    def _write(self, operation: str, arguments: dict[str, Any]) -> str:
        self.setup.check_writes()
        return dumps(self.setup.okura.call(operation, ReturnConsumedCapacity="TOTAL",
                                           **request(arguments)))

    @tool(read_only=False, destructive=True)
    def put_item(self, table_name: TableName, item: Item, condition_expression: Condition = None,
                 expression_attribute_names: Names = None,
                 expression_attribute_values: Values = None,
                 return_values: ReturnValues = None) -> str:
        """Create or replace one item (PutItem); needs --allow-writes."""
        return self._write("PutItem", locals())

    @tool(read_only=False, destructive=True)
    def update_item(self, table_name: TableName, key: Key, update_expression: Annotated[
                        str, Field(description="e.g. SET #s = :s ADD visits :one REMOVE tmp")],
                    condition_expression: Condition = None,
                    expression_attribute_names: Names = None,
                    expression_attribute_values: Values = None,
                    return_values: ReturnValues = None) -> str:
        """Set, add or remove attributes of one item (UpdateItem); needs --allow-writes."""
        return self._write("UpdateItem", locals())

    @tool(read_only=False, destructive=True)
    def delete_item(self, table_name: TableName, key: Key, condition_expression: Condition = None,
                    expression_attribute_names: Names = None,
                    expression_attribute_values: Values = None,
                    return_values: ReturnValues = None) -> str:
        """Delete one item by its primary key (DeleteItem); needs --allow-writes."""
        return self._write("DeleteItem", locals())

    @tool(read_only=False, destructive=True)
    def batch_write_item(self, request_items: Annotated[dict[str, list[dict[str, Any]]], Field(
            description='BatchWriteItem\'s RequestItems: {"table": [{"PutRequest": {"Item": '
                        '{...}}}, {"DeleteRequest": {"Key": {...}}}]}, 25 requests at most')]
                         ) -> str:
        """Put or delete up to 25 items at once (BatchWriteItem); needs --allow-writes."""
        return self._write("BatchWriteItem", locals())
