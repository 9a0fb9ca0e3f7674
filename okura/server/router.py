"""The one table of operations: for each X-Amz-Target, the description of the operation
that serves it (its name, as metrics and IAM know it; its handler; its request shape; what
it demands of IAM; its fast path, if any), and the gate every request passes through on
its way to the handler. Adding an operation is its module and one entry here."""
from __future__ import annotations

from typing import Awaitable, Callable, NamedTuple

from okura import shapes
from okura.access.actions import (Asks, anything, batch_get, batch_write, imported_table, item,
                                  on_arn, on_table, read, restored_table, statement, statements,
                                  stream_records, transaction)
from okura.core.context import Context
from okura.operations import (batch_execute_statement, batch_get_item, batch_write_item,
                              create_table, delete_item, delete_table, describe_endpoints,
                              describe_limits, describe_table, describe_ttl, execute_statement,
                              execute_transaction, get_item, list_tables, put_item, query, scan,
                              search_vectors, tags, transact_get_items, transact_write_items,
                              update_item,
                              update_table, update_ttl)
from okura.operations import (describe_export, describe_import, export_table_to_point_in_time,
                              import_table, list_exports, list_imports)
from okura.operations import (cancel_bulk_operation, describe_bulk_operation,
                              list_bulk_operations, start_bulk_put_items)
from okura.operations import (delete_resource_policy, get_resource_policy,
                              put_resource_policy)
from okura.operations import (create_backup, delete_backup, describe_backup,
                              describe_continuous_backups, list_backups,
                              restore_table_from_backup, restore_table_to_point_in_time,
                              update_continuous_backups)
from okura.operations import (describe_contributor_insights, list_contributor_insights,
                              update_contributor_insights)
from okura.operations import (describe_kinesis_streaming_destination,
                              disable_kinesis_streaming_destination,
                              enable_kinesis_streaming_destination,
                              update_kinesis_streaming_destination)
from okura.operations.streams import (describe_stream, get_records, get_shard_iterator,
                                      list_streams)

Reply = Awaitable["dict | bytes"]
# An operation's handler, for a request of its shape: its reply as a JSON document, or
# already serialised.
Handler = Callable[[Context, dict], Reply]
# An operation's fast path: its commonest request form, recognised by checks the shape
# certainly passes (values/fast_path.py), served; None for any other request.
FastPath = Callable[[Context, dict], "Reply | None"]


# The gate, as the server calls it: router.perform, or it wrapped (auth, request logs).
Performer = Callable[["Operation", Context, dict], Reply]


class Operation(NamedTuple):
    name: str  # "GetItem" (the X-Amz-Target's action)
    handler: Handler
    shape: shapes.Shape  # its request shape (shapes/model.json), checked at the gate
    asks: Asks  # the IAM actions and resources it demands (access/actions.py)
    fast: FastPath | None


def perform(op: Operation, ctx: Context, body: dict) -> Reply:
    """The gate: the operation's fast path if it takes the request, else the request's
    shape checked, then the handler (which applies its further rules in DynamoDB's
    order). A request that is to be run again comes through here again."""
    fast = op.fast
    if fast is not None:
        served = fast(ctx, body)
        if served is not None:
            return served
    op.shape.check(body)
    return op.handler(ctx, body)


def _op(name: str, handler: Handler, asks: Asks, fast: FastPath | None = None) -> Operation:
    """An operation's entry: `asks` built for its action, which is its name."""
    return Operation(name, handler, shapes.of(name), asks._replace(action=name), fast)


_DYNAMODB = (
    _op("CreateTable", create_table.handle, on_table(tags=True)),
    _op("DescribeTable", describe_table.handle, on_table(one_table=True)),
    _op("ListTables", list_tables.handle, anything()),
    _op("UpdateTable", update_table.handle, on_table(one_table=True)),
    _op("DeleteTable", delete_table.handle, on_table(one_table=True)),
    _op("TagResource", tags.tag_resource, on_arn("ResourceArn", tags=True)),
    _op("UntagResource", tags.untag_resource, on_arn("ResourceArn", tags=True)),
    _op("ListTagsOfResource", tags.list_tags_of_resource, on_arn("ResourceArn")),
    _op("DescribeLimits", describe_limits.handle, anything()),
    _op("DescribeEndpoints", describe_endpoints.handle, anything()),
    _op("UpdateTimeToLive", update_ttl.handle, on_table(one_table=True)),
    _op("DescribeTimeToLive", describe_ttl.handle, on_table(one_table=True)),
    _op("PutItem", put_item.handle, item("Item"), put_item.fast),
    _op("GetItem", get_item.handle, item("Key"), get_item.fast),
    _op("UpdateItem", update_item.handle, item("Key"), update_item.fast),
    _op("DeleteItem", delete_item.handle, item("Key")),
    _op("Query", query.handle, read()),
    _op("Scan", scan.handle, read()),
    _op("SearchVectors", search_vectors.handle, read()),
    _op("BatchGetItem", batch_get_item.handle, batch_get()),
    _op("BatchWriteItem", batch_write_item.handle, batch_write(), batch_write_item.fast),
    _op("TransactWriteItems", transact_write_items.handle, transaction()),
    _op("TransactGetItems", transact_get_items.handle, transaction()),
    _op("ExecuteStatement", execute_statement.handle, statement()),
    _op("BatchExecuteStatement", batch_execute_statement.handle, statements("Statements")),
    _op("ExecuteTransaction", execute_transaction.handle,
        statements("TransactStatements", enclosing=True)),
    _op("UpdateContinuousBackups", update_continuous_backups.handle, on_table(one_table=True)),
    _op("DescribeContinuousBackups", describe_continuous_backups.handle, on_table(one_table=True)),
    _op("ExportTableToPointInTime", export_table_to_point_in_time.handle, on_arn("TableArn")),
    _op("DescribeExport", describe_export.handle, on_arn("ExportArn")),
    _op("ListExports", list_exports.handle, anything()),
    _op("ImportTable", import_table.handle, imported_table()),
    _op("DescribeImport", describe_import.handle, on_arn("ImportArn")),
    _op("ListImports", list_imports.handle, anything()),
    _op("StartBulkPutItems", start_bulk_put_items.handle, on_table()),
    _op("DescribeBulkOperation", describe_bulk_operation.handle, on_arn("BulkOperationArn")),
    _op("ListBulkOperations", list_bulk_operations.handle, anything()),
    _op("CancelBulkOperation", cancel_bulk_operation.handle, on_arn("BulkOperationArn")),
    _op("CreateBackup", create_backup.handle, on_table()),
    _op("DescribeBackup", describe_backup.handle, on_arn("BackupArn")),
    _op("ListBackups", list_backups.handle, anything()),
    _op("DeleteBackup", delete_backup.handle, on_arn("BackupArn")),
    _op("RestoreTableFromBackup", restore_table_from_backup.handle, on_arn("BackupArn")),
    _op("RestoreTableToPointInTime", restore_table_to_point_in_time.handle, restored_table()),
    _op("PutResourcePolicy", put_resource_policy.handle, on_arn("ResourceArn")),
    _op("GetResourcePolicy", get_resource_policy.handle, on_arn("ResourceArn")),
    _op("DeleteResourcePolicy", delete_resource_policy.handle, on_arn("ResourceArn")),
    _op("UpdateContributorInsights", update_contributor_insights.handle, on_table()),
    _op("DescribeContributorInsights", describe_contributor_insights.handle, on_table()),
    _op("ListContributorInsights", list_contributor_insights.handle, anything()),
    _op("EnableKinesisStreamingDestination", enable_kinesis_streaming_destination.handle,
        on_table()),
    _op("DisableKinesisStreamingDestination", disable_kinesis_streaming_destination.handle,
        on_table()),
    _op("DescribeKinesisStreamingDestination", describe_kinesis_streaming_destination.handle,
        on_table()),
    _op("UpdateKinesisStreamingDestination", update_kinesis_streaming_destination.handle,
        on_table()),
)
# DynamoDB Streams, on the same endpoint
_STREAMS = (
    _op("ListStreams", list_streams.handle, anything()),
    _op("DescribeStream", describe_stream.handle, on_arn("StreamArn")),
    _op("GetShardIterator", get_shard_iterator.handle, on_arn("StreamArn")),
    _op("GetRecords", get_records.handle, stream_records()),
)

ROUTES: dict[str, Operation] = {
    **{"DynamoDB_20120810." + op.name: op for op in _DYNAMODB},
    **{"DynamoDBStreams_20120810." + op.name: op for op in _STREAMS},
}
