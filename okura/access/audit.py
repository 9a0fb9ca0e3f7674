"""The audit log: one CloudTrail-shaped JSON record per request, a line each, in a file
that rotates by size (docs/access.md, "Audit log"). Control-plane (management) events
are always written while auth is on; data events (item reads and writes, PartiQL,
stream records) when asked for. Request parameters keep keys and names, never item
values: an item becomes its key, and expression values, filters and PartiQL parameters
are left out."""
from __future__ import annotations

import logging
import logging.handlers
import time
import uuid
from typing import Any

import orjson

from okura import arns
from okura.core.context import Context
from okura.errors import DynamoError

DATA_EVENTS = frozenset((
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem",
    "BatchWriteItem", "TransactGetItems", "TransactWriteItems", "ExecuteStatement",
    "BatchExecuteStatement", "ExecuteTransaction", "GetRecords", "GetShardIterator",
    "SearchVectors"))
_READING = ("Get", "Describe", "List", "Query", "Scan", "BatchGet", "TransactGet", "Search")
# Members whose values are item values (or may hold them): left out.
_VALUES = frozenset(("ExpressionAttributeValues", "SearchVector", "Expected", "QueryFilter", "ScanFilter",
                     "Parameters", "ConditionalOperator"))
_ARN_MEMBERS = ("ResourceArn", "StreamArn", "TableArn", "BackupArn", "ExportArn", "ImportArn",
                "SourceTableArn")


def _camel(name: str) -> str:
    return name[:1].lower() + name[1:]


class Audit:
    def __init__(self, path: str, data_events: bool, max_bytes: int, backups: int) -> None:
        self.data_events = data_events
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=max_bytes,
                                                       backupCount=backups, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(message)s"))
        self.log = logging.getLogger(f"okura.audit.{id(self)}")
        self.log.propagate = False
        self.log.setLevel(logging.INFO)
        self.log.addHandler(handler)

    def wanted(self, operation: str) -> bool:
        """Whether requests of this operation are recorded."""
        return self.data_events or operation not in DATA_EVENTS

    def close(self) -> None:
        for handler in list(self.log.handlers):
            handler.close()
            self.log.removeHandler(handler)

    def record(self, ctx: Context, body: Any, error: DynamoError | None, peer: str,
               user_agent: str) -> None:
        """Write the event of one finished (or refused) request."""
        operation = ctx.operation
        identity = ctx.identity
        if identity is None:
            who: dict = {"type": "Unknown", "accessKeyId": ctx.access_key}
        else:
            user = arns.user_name(identity.arn)
            who = {"type": "AssumedRole" if user is None else "IAMUser",
                   "principalId": identity.userid, "arn": identity.arn,
                   "accountId": identity.account, "accessKeyId": identity.access_key}
            if user is not None:
                who["userName"] = user
        data = operation in DATA_EVENTS
        now = ctx.clock.now()
        event: dict = {
            "eventVersion": "1.08",
            "userIdentity": who,
            "eventTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
            "eventSource": "dynamodb.amazonaws.com",
            "eventName": operation,
            "awsRegion": ctx.region,
            "sourceIPAddress": peer,
            "userAgent": user_agent,
            "requestParameters": self._parameters(ctx, body) if type(body) is dict else None,
            "responseElements": None,
        }
        if error is not None:
            event["errorCode"] = error.name
            event["errorMessage"] = error.message
        request_id = getattr(ctx, "request_id", b"")
        event.update({
            "requestID": request_id.decode() if isinstance(request_id, bytes) else str(request_id),
            "eventID": str(uuid.uuid4()),
            "readOnly": operation.startswith(_READING),
            "resources": self._resources(ctx, body) if type(body) is dict else [],
            "eventType": "AwsApiCall",
            "apiVersion": "2012-08-10",
            "managementEvent": not data,
            "recipientAccountId": ctx.account,
            "eventCategory": "Data" if data else "Management",
        })
        self.log.info(orjson.dumps(event).decode())

    def _parameters(self, ctx: Context, body: dict, table: str | None = None) -> dict:
        """The body with item values left out, member names as CloudTrail writes them."""
        out: dict = {}
        table = body.get("TableName") if type(body.get("TableName")) is str else table
        for name, value in body.items():
            if name in _VALUES:
                continue
            if name == "Item" and type(value) is dict:
                out["key"] = self._key_of(ctx, table, value)
            elif name == "AttributeUpdates" and type(value) is dict:
                out["attributeUpdates"] = sorted(value)
            elif name == "RequestItems" and type(value) is dict:
                out["requestItems"] = {t: self._scrubbed(ctx, v, t) for t, v in value.items()}
            else:
                out[_camel(name)] = self._scrubbed(ctx, value, table)
        return out

    def _scrubbed(self, ctx: Context, value: Any, table: str | None) -> Any:
        if type(value) is dict:
            if len(value) == 1 and next(iter(value)) in ("S", "N", "B", "BOOL", "NULL"):
                return value  # an attribute value where a key or a name stands
            return self._parameters(ctx, value, table)
        if type(value) is list:
            return [self._scrubbed(ctx, v, table) for v in value]
        return value

    @staticmethod
    def _key_of(ctx: Context, table: str | None, item: dict) -> dict:
        found = ctx.db.catalog.cached(ctx.region, table) if table else None
        if found is None:
            return {}
        return {name: item[name] for name in found.key_names if name in item}

    @staticmethod
    def _resources(ctx: Context, body: dict) -> list[dict]:
        named = []
        tables = [body.get("TableName")]
        if type(body.get("RequestItems")) is dict:
            tables += list(body["RequestItems"])
        for name in tables:
            if type(name) is str:
                named.append(arns.of_member(ctx.region, ctx.account, name))
        named += [body[m] for m in _ARN_MEMBERS if type(body.get(m)) is str]
        return [{"accountId": ctx.account, "type": "AWS::DynamoDB::Stream" if arns.is_stream(arn)
                 else "AWS::DynamoDB::Table", "ARN": arn} for arn in dict.fromkeys(named)]
