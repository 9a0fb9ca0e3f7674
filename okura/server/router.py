"""The one table from X-Amz-Target to the operation that serves it: (its name, as
metrics know it, and its handler)."""
from __future__ import annotations

from typing import Awaitable, Callable

from okura.core.context import Context
from okura.operations import (batch_execute_statement, batch_get_item, batch_write_item,
                              create_table, delete_item, delete_table, describe_endpoints,
                              describe_limits, describe_table, describe_ttl, execute_statement,
                              execute_transaction, get_item, list_tables, put_item, query, scan,
                              tags, transact_get_items, transact_write_items, update_item,
                              update_table, update_ttl)
from okura.operations import (describe_export, describe_import, export_table_to_point_in_time,
                              import_table, list_exports, list_imports)
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

_DYNAMODB = "DynamoDB_20120810."
_STREAMS = "DynamoDBStreams_20120810."

# An operation's handler: its reply as a JSON document, or already serialised.
Handler = Callable[[Context, dict], Awaitable["dict | bytes"]]

_DYNAMODB_OPERATIONS: dict[str, Handler] = {
    "CreateTable": create_table.handle,
    "DescribeTable": describe_table.handle,
    "ListTables": list_tables.handle,
    "UpdateTable": update_table.handle,
    "DeleteTable": delete_table.handle,
    "TagResource": tags.tag_resource,
    "UntagResource": tags.untag_resource,
    "ListTagsOfResource": tags.list_tags_of_resource,
    "DescribeLimits": describe_limits.handle,
    "DescribeEndpoints": describe_endpoints.handle,
    "UpdateTimeToLive": update_ttl.handle,
    "DescribeTimeToLive": describe_ttl.handle,
    "PutItem": put_item.handle,
    "GetItem": get_item.handle,
    "UpdateItem": update_item.handle,
    "DeleteItem": delete_item.handle,
    "Query": query.handle,
    "Scan": scan.handle,
    "BatchGetItem": batch_get_item.handle,
    "BatchWriteItem": batch_write_item.handle,
    "TransactWriteItems": transact_write_items.handle,
    "TransactGetItems": transact_get_items.handle,
    "ExecuteStatement": execute_statement.handle,
    "BatchExecuteStatement": batch_execute_statement.handle,
    "ExecuteTransaction": execute_transaction.handle,
    "UpdateContinuousBackups": update_continuous_backups.handle,
    "DescribeContinuousBackups": describe_continuous_backups.handle,
    "ExportTableToPointInTime": export_table_to_point_in_time.handle,
    "DescribeExport": describe_export.handle,
    "ListExports": list_exports.handle,
    "ImportTable": import_table.handle,
    "DescribeImport": describe_import.handle,
    "ListImports": list_imports.handle,
    "CreateBackup": create_backup.handle,
    "DescribeBackup": describe_backup.handle,
    "ListBackups": list_backups.handle,
    "DeleteBackup": delete_backup.handle,
    "RestoreTableFromBackup": restore_table_from_backup.handle,
    "RestoreTableToPointInTime": restore_table_to_point_in_time.handle,
    "PutResourcePolicy": put_resource_policy.handle,
    "GetResourcePolicy": get_resource_policy.handle,
    "DeleteResourcePolicy": delete_resource_policy.handle,
    "UpdateContributorInsights": update_contributor_insights.handle,
    "DescribeContributorInsights": describe_contributor_insights.handle,
    "ListContributorInsights": list_contributor_insights.handle,
    "EnableKinesisStreamingDestination": enable_kinesis_streaming_destination.handle,
    "DisableKinesisStreamingDestination": disable_kinesis_streaming_destination.handle,
    "DescribeKinesisStreamingDestination": describe_kinesis_streaming_destination.handle,
    "UpdateKinesisStreamingDestination": update_kinesis_streaming_destination.handle,
}
# DynamoDB Streams, on the same endpoint
_STREAMS_OPERATIONS: dict[str, Handler] = {
    "ListStreams": list_streams.handle,
    "DescribeStream": describe_stream.handle,
    "GetShardIterator": get_shard_iterator.handle,
    "GetRecords": get_records.handle,
}

ROUTES: dict[str, tuple[str, Handler]] = {
    **{_DYNAMODB + name: (name, handler) for name, handler in _DYNAMODB_OPERATIONS.items()},
    **{_STREAMS + name: (name, handler) for name, handler in _STREAMS_OPERATIONS.items()},
}
