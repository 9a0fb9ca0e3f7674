"""The one table from X-Amz-Target to the operation that serves it."""
from __future__ import annotations

from okura.operations import (create_table, delete_item, delete_table, describe_endpoints,
                              describe_limits, describe_table, describe_ttl, get_item,
                              list_tables, put_item, query, scan, tags, update_item, update_table,
                              update_ttl)
from okura.operations import (batch_execute_statement, batch_get_item, batch_write_item,
                              execute_statement, execute_transaction,
                              transact_get_items, transact_write_items)
from okura.operations.streams import (describe_stream, get_records, get_shard_iterator,
                                      list_streams)

_DYNAMODB = "DynamoDB_20120810."
_STREAMS = "DynamoDBStreams_20120810."

ROUTES = {
    _DYNAMODB + "CreateTable": create_table.handle,
    _DYNAMODB + "DescribeTable": describe_table.handle,
    _DYNAMODB + "ListTables": list_tables.handle,
    _DYNAMODB + "UpdateTable": update_table.handle,
    _DYNAMODB + "DeleteTable": delete_table.handle,
    _DYNAMODB + "TagResource": tags.tag_resource,
    _DYNAMODB + "UntagResource": tags.untag_resource,
    _DYNAMODB + "ListTagsOfResource": tags.list_tags_of_resource,
    _DYNAMODB + "DescribeLimits": describe_limits.handle,
    _DYNAMODB + "DescribeEndpoints": describe_endpoints.handle,
    _DYNAMODB + "UpdateTimeToLive": update_ttl.handle,
    _DYNAMODB + "DescribeTimeToLive": describe_ttl.handle,
    _DYNAMODB + "PutItem": put_item.handle,
    _DYNAMODB + "GetItem": get_item.handle,
    _DYNAMODB + "UpdateItem": update_item.handle,
    _DYNAMODB + "DeleteItem": delete_item.handle,
    _DYNAMODB + "Query": query.handle,
    _DYNAMODB + "Scan": scan.handle,
    _DYNAMODB + "BatchGetItem": batch_get_item.handle,
    _DYNAMODB + "BatchWriteItem": batch_write_item.handle,
    _DYNAMODB + "TransactWriteItems": transact_write_items.handle,
    _DYNAMODB + "TransactGetItems": transact_get_items.handle,
    _DYNAMODB + "ExecuteStatement": execute_statement.handle,
    _DYNAMODB + "BatchExecuteStatement": batch_execute_statement.handle,
    _DYNAMODB + "ExecuteTransaction": execute_transaction.handle,
    # DynamoDB Streams, on the same endpoint
    _STREAMS + "ListStreams": list_streams.handle,
    _STREAMS + "DescribeStream": describe_stream.handle,
    _STREAMS + "GetShardIterator": get_shard_iterator.handle,
    _STREAMS + "GetRecords": get_records.handle,
}
