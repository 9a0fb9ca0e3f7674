"""Event source mappings: Lambda's Create/Get/List/Update/DeleteEventSourceMapping
for DynamoDB streams, their checks in Lambda's order, and their rows.

A mapping is one row in EVENT_SOURCE_MAPPINGS (hk b"", rk its UUID): its
configuration as GetEventSourceMapping shows it, plus the declared function's name
and the region. Where it has got to in its stream is a separate row in
TRIGGER_CHECKPOINTS (hk the UUID), written by the node delivering it, so that API
updates and delivery never overwrite each other.

Message texts: those users quote from Lambda where found (ResourceConflictException,
"Function not found", "The resource you requested does not exist.", the Coral
"N validation error(s) detected" form); those marked `unverified` are okura's
wording where no source gives Lambda's (docs/decisions.md).
"""
from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import orjson

from okura import arns
from okura.core import paging
from okura.core.spaces import EVENT_SOURCE_MAPPINGS, TRIGGER_CHECKPOINTS
from okura.core.streams import read
from okura.core.streams.follow import checkpoint, save_checkpoint
from okura.storage.engine import doc_of
from okura.triggers import filters

if TYPE_CHECKING:
    from okura.core.database import Database
    from okura.triggers.functions import Function

CREATING, ENABLING, ENABLED, DISABLING, DISABLED, UPDATING, DELETING = (
    "Creating", "Enabling", "Enabled", "Disabling", "Disabled", "Updating", "Deleting")
REPORT_FAILURES = "ReportBatchItemFailures"
POSITIONS = ("TRIM_HORIZON", "LATEST", "AT_TIMESTAMP")
# member: (type, minimum, maximum) as botocore's model gives them; the name in
# validation messages is the member's in lower camel case
_INTEGERS = {"BatchSize": (1, 10000), "MaximumBatchingWindowInSeconds": (0, 300),
             "ParallelizationFactor": (1, 10), "MaximumRecordAgeInSeconds": (-1, 604800),
             "MaximumRetryAttempts": (-1, 10000), "TumblingWindowInSeconds": (0, 900)}
_BOOLEANS = ("Enabled", "BisectBatchOnFunctionError")
DEFAULTS = {"BatchSize": 100, "MaximumBatchingWindowInSeconds": 0, "ParallelizationFactor": 1,
            "MaximumRecordAgeInSeconds": -1, "BisectBatchOnFunctionError": False,
            "MaximumRetryAttempts": -1, "TumblingWindowInSeconds": 0,
            "FunctionResponseTypes": [], "DestinationConfig": {"OnFailure": {}}}
# members of the API's configuration shown for a DynamoDB stream's mapping
_SHOWN = ("UUID", "StartingPosition", "BatchSize", "MaximumBatchingWindowInSeconds",
          "ParallelizationFactor", "EventSourceArn", "FilterCriteria", "FunctionArn",
          "LastModified", "LastProcessingResult", "State", "StateTransitionReason",
          "DestinationConfig", "MaximumRecordAgeInSeconds", "BisectBatchOnFunctionError",
          "MaximumRetryAttempts", "TumblingWindowInSeconds", "FunctionResponseTypes",
          "EventSourceMappingArn")
_UPDATABLE = ("FunctionName", "Enabled", "BatchSize", "FilterCriteria",
              "MaximumBatchingWindowInSeconds", "ParallelizationFactor", "DestinationConfig",
              "MaximumRecordAgeInSeconds", "BisectBatchOnFunctionError", "MaximumRetryAttempts",
              "TumblingWindowInSeconds", "FunctionResponseTypes")
NOT_FOUND = "The resource you requested does not exist."


class LambdaError(Exception):
    """One of Lambda's error replies: HTTP status, error type, message."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


def invalid(message: str) -> LambdaError:
    return LambdaError(400, "InvalidParameterValueException", message)


def not_found(message: str = NOT_FOUND) -> LambdaError:
    return LambdaError(404, "ResourceNotFoundException", message)


def _camel(member: str) -> str:
    return member[0].lower() + member[1:]


def _check_shapes(body: dict) -> None:
    """Types, ranges and enums, collected into Coral's aggregated message."""
    problems = []
    for member, (low, high) in _INTEGERS.items():
        value = body.get(member)
        if value is None:
            continue
        if type(value) is not int:
            raise invalid(f"{member} must be an integer")  # unverified
        if value < low:
            problems.append(f"Value '{value}' at '{_camel(member)}' failed to satisfy "
                            f"constraint: Member must have value greater than or equal to {low}")
        elif value > high:
            problems.append(f"Value '{value}' at '{_camel(member)}' failed to satisfy "
                            f"constraint: Member must have value less than or equal to {high}")
    for member in _BOOLEANS:
        if member in body and body[member] is not None and type(body[member]) is not bool:
            raise invalid(f"{member} must be a boolean")  # unverified
    position = body.get("StartingPosition")
    if position is not None and position not in POSITIONS:
        problems.append(f"Value '{position}' at 'startingPosition' failed to satisfy constraint:"
                        f" Member must satisfy enum value set: [{', '.join(POSITIONS)}]")
    types = body.get("FunctionResponseTypes")
    if types is not None and (not isinstance(types, list) or len(types) > 1 or any(
            t != REPORT_FAILURES for t in types)):
        problems.append(f"Value '{types}' at 'functionResponseTypes' failed to satisfy "
                        "constraint: Member must satisfy constraint: [Member must satisfy "
                        f"enum value set: [{REPORT_FAILURES}]]")
    if problems:
        count = len(problems)
        raise LambdaError(400, "ValidationException",
                          f"{count} validation error{'s' if count > 1 else ''} detected: "
                          + "; ".join(problems))


def function_name(given: Any) -> str:
    """The declared function a FunctionName names (a name, an ARN or a partial ARN,
    optionally qualified by $LATEST)."""
    if not isinstance(given, str) or not given:
        raise LambdaError(400, "ValidationException", "1 validation error detected: Value null "
                          "at 'functionName' failed to satisfy constraint: Member must not be "
                          "null")
    name = arns.function_name(given)
    if ":" in name:
        name, _, qualifier = name.partition(":")
        if qualifier != "$LATEST":
            raise invalid(f"okura runs only $LATEST; qualifier {qualifier!r}")  # unverified
    return name


def _check_settings(body: dict, merged: dict) -> None:
    """The rules between members, on the configuration an update would leave."""
    age = merged["MaximumRecordAgeInSeconds"]
    if age != -1 and age < 60:
        raise invalid("MaximumRecordAgeInSeconds must be -1 or between 60 and 604800")  # unverified
    if "FilterCriteria" in body and body["FilterCriteria"] is not None:
        try:
            filters.parse(body["FilterCriteria"])
        except filters.InvalidPattern:
            raise invalid("Invalid filter pattern definition.") from None
    destination = merged.get("DestinationConfig") or {}
    if not isinstance(destination, dict) or set(destination) - {"OnFailure", "OnSuccess"}:
        raise invalid("DestinationConfig must hold OnFailure")  # unverified
    if destination.get("OnSuccess", {}).get("Destination"):
        # Lambda's stream mappings take only an on-failure destination
        raise invalid("Unsupported DestinationConfig parameter for given event source "
                      "mapping type.")  # unverified


def _key(mapping_uuid: str) -> tuple[bytes, bytes]:
    return b"", mapping_uuid.encode()


async def load(db: Database, mapping_uuid: str) -> dict | None:
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(EVENT_SOURCE_MAPPINGS, *_key(mapping_uuid)))
    return None if raw is None else orjson.loads(raw)


async def every(db: Database) -> list[dict]:
    async with db.engine.reader() as unit:
        rows = await unit.scan(EVENT_SOURCE_MAPPINGS, None, None, None, 1 << 30)
    return [orjson.loads(doc) for _, _, _, doc in rows]


async def save(db: Database, doc: dict) -> None:
    """Save a mapping the API changed, and wake the triggers' duty to act on it."""
    async with db.engine.transaction() as unit:
        await unit.put(EVENT_SOURCE_MAPPINGS, *_key(doc["UUID"]), 0, orjson.dumps(doc))
    db.background.signal("mappings")


def view(doc: dict) -> dict:
    """The mapping as the API shows it."""
    return {member: doc[member] for member in _SHOWN if member in doc}


class Mappings:
    """The API's operations over the stored mappings, for one server's functions."""

    def __init__(self, db: Database, functions: dict[str, Function]) -> None:
        self.db = db
        self.functions = functions

    def _function(self, given: Any, region: str) -> Function:
        name = function_name(given)
        function = self.functions.get(name)
        if function is None:
            raise not_found(
                f"Function not found: {arns.function(region, self.db.account, name)}")
        return function

    async def create(self, body: dict, region: str, mapping_uuid: str | None = None) -> dict:
        _check_shapes(body)
        arn = body.get("EventSourceArn")
        if not isinstance(arn, str) or not arns.is_stream(arn):
            # Lambda's text for a source it cannot map (users' reports)
            raise invalid(f"Unrecognized event source, must be kinesis, dynamodb stream or sqs."
                          f" Unsupported source arn : {arn}")
        function = self._function(body.get("FunctionName"), region)
        # a stream of another region or account is out of reach, as in Lambda
        stream = await read.find(self.db, arn, self.db.clock.now() - self.db.stream_retention) \
            if arns.is_local(arn, region, self.db.account) else None
        if stream is None:
            raise invalid(f"Cannot access stream {arn}. Please ensure the role can perform the "
                          "GetRecords, GetShardIterator, DescribeStream, and ListStreams "
                          "Actions on your stream in IAM.")
        position = body.get("StartingPosition")
        if position is None:
            raise invalid("StartingPosition is required for DynamoDB stream event sources")  # unverified
        if position == "AT_TIMESTAMP":
            raise invalid("AT_TIMESTAMP is not supported for DynamoDB stream event "
                          "sources")  # unverified
        function_arn = function.arn(region, self.db.account)
        for other in await every(self.db):
            if other["EventSourceArn"] == arn and other["FunctionArn"] == function_arn:
                raise LambdaError(409, "ResourceConflictException", (
                    f'The event source arn (" {arn} ") and function (" {function.name} ") '
                    "provided mapping already exists. Please update or delete the existing "
                    f"mapping with UUID {other['UUID']}"))
        merged = {**DEFAULTS, **{k: v for k, v in body.items() if v is not None}}
        _check_settings(body, merged)
        mapping_uuid = mapping_uuid or str(uuid.uuid4())
        now = self.db.clock.now()
        doc = {member: merged[member] for member in _UPDATABLE[1:] if member in merged}
        doc.update({
            "UUID": mapping_uuid, "StartingPosition": position, "EventSourceArn": arn,
            "FunctionArn": function_arn, "Function": function.name, "Region": region,
            "Enabled": merged.get("Enabled", True), "LastModified": now,
            "LastProcessingResult": "No records processed", "State": CREATING,
            "StateTransitionReason": "USER_INITIATED",
            "EventSourceMappingArn": arns.event_source_mapping(region, self.db.account,
                                                               mapping_uuid)})
        shard = stream.doc["Shards"][0]
        horizon = now - self.db.stream_retention
        start = (read.latest_position(stream, stream.doc["Shards"][-1]) if position == "LATEST"
                 else await read.oldest_position(self.db, stream, shard, horizon))
        await save_checkpoint(self.db, mapping_uuid, {"Position": start, "Windows": {}})
        await save(self.db, doc)
        return view(doc)

    async def get(self, mapping_uuid: str) -> dict:
        doc = await load(self.db, mapping_uuid)
        if doc is None:
            raise not_found()
        return doc

    async def shown(self, doc: dict) -> dict:
        """The API's view of a mapping, with the outcome of its last delivery."""
        state = await checkpoint(self.db, doc["UUID"])
        result = (state or {}).get("Result")
        return view({**doc, "LastProcessingResult": result} if result else doc)

    async def listing(self, region: str, arn: str | None, function: str | None,
                      marker: str | None, limit: int) -> dict:
        name = function_name(function) if function is not None else None
        found = [doc for doc in await every(self.db) if doc["Region"] == region
                 and (arn is None or doc["EventSourceArn"] == arn)
                 and (name is None or doc["Function"] == name)]
        # after a marker not listed (any more): from the start
        start = paging.following([doc["UUID"] for doc in found], marker) or 0
        page, last = paging.page(found, limit, start)
        reply: dict = {"EventSourceMappings": [await self.shown(doc) for doc in page]}
        if last is not None:
            reply["NextMarker"] = last["UUID"]
        return reply

    async def update(self, mapping_uuid: str, body: dict, region: str) -> dict:
        _check_shapes(body)
        doc = await self.get(mapping_uuid)
        if doc["State"] == DELETING:
            raise LambdaError(400, "ResourceInUseException", "Cannot update the event source "
                              "mapping because it is in use.")  # unverified
        if body.get("FunctionName") is not None:
            function = self._function(body["FunctionName"], region)
            doc["Function"] = function.name
            doc["FunctionArn"] = function.arn(doc["Region"], self.db.account)
        changes = {k: body[k] for k in _UPDATABLE[1:] if body.get(k) is not None}
        _check_settings(body, {**doc, **changes})
        doc.update(changes)
        enabled = doc["Enabled"]
        doc["State"] = ENABLING if "Enabled" in changes and enabled and doc["State"] in (
            DISABLED, DISABLING) else DISABLING if not enabled and doc["State"] != DISABLED \
            else UPDATING if changes else doc["State"]
        doc["LastModified"] = self.db.clock.now()
        doc["StateTransitionReason"] = "USER_INITIATED"
        await save(self.db, doc)
        return view(doc)

    async def delete(self, mapping_uuid: str) -> dict:
        doc = await self.get(mapping_uuid)
        doc["State"] = DELETING
        doc["StateTransitionReason"] = "USER_INITIATED"
        await save(self.db, doc)
        return view(doc)
