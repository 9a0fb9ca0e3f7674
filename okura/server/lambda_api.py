"""Lambda's event-source-mapping API on okura's endpoint (REST-JSON, as boto3's and the
AWS CLI's `lambda` clients speak it), beside the DynamoDB API:

  POST   /2015-03-31/event-source-mappings          CreateEventSourceMapping (202)
  GET    /2015-03-31/event-source-mappings          ListEventSourceMappings
         ?EventSourceArn=&FunctionName=&Marker=&MaxItems=
  GET    /2015-03-31/event-source-mappings/UUID     GetEventSourceMapping
  PUT    /2015-03-31/event-source-mappings/UUID     UpdateEventSourceMapping (202)
  DELETE /2015-03-31/event-source-mappings/UUID     DeleteEventSourceMapping (202)

Errors are Lambda's: the status, `x-amzn-ErrorType` naming the error and a body
{"Type": "User", "message": ...}. The region is the one the request is signed for
(the signature is not verified; with --auth enforce the API is refused: docs/triggers.md).
Only requests whose path starts with PREFIX come here (server/http.py), so DynamoDB
requests pay nothing for it."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote

import orjson

from okura.triggers.mappings import LambdaError, invalid

if TYPE_CHECKING:
    from okura.server.app import App

PREFIX = b"/2015-03-31/"
_COLLECTION = "/2015-03-31/event-source-mappings"
_REGION = re.compile(r"Credential=[^/,]*/[^/,]*/([^/,]+)/")
_DEFAULT_REGION = "us-east-1"
_MAX_ITEMS = 100  # ListEventSourceMappings' page without MaxItems (unverified)


def _error(error: LambdaError) -> tuple[int, bytes, bytes]:
    return error.status, orjson.dumps({"Type": "User", "message": error.message}), (
        b"\r\nx-amzn-ErrorType: " + error.kind.encode())


def _region(headers: dict) -> str:
    found = _REGION.search(headers.get("authorization", ""))
    return found.group(1) if found else _DEFAULT_REGION


async def handle(app: App, method: bytes, url: bytes, headers: dict,
                 body: bytes) -> tuple[int, bytes, bytes]:
    """(status, JSON body, extra header lines) of one Lambda API request."""
    path, _, query = url.decode("latin-1").partition("?")
    mappings = app.triggers.mappings
    region = _region(headers)
    try:
        if app.guard is not None and app.guard.enforcing:
            # okura's signature checks and policies speak DynamoDB only: rather than an
            # open door beside them, none (okura's message)
            raise LambdaError(403, "AccessDeniedException", "okura does not verify Lambda API "
                              "requests: with --auth enforce, declare event source mappings "
                              "in okura.toml")
        if path.rstrip("/") == _COLLECTION:
            if method == b"POST":
                return 202, orjson.dumps(await mappings.create(_body(body), region)), b""
            if method == b"GET":
                params = {k: v[-1] for k, v in parse_qs(query).items()}
                limit = params.get("MaxItems", str(_MAX_ITEMS))
                if not limit.isdigit() or not 1 <= int(limit) <= 10000:
                    raise invalid(f"MaxItems must be between 1 and 10000: {limit}")  # unverified
                return 200, orjson.dumps(await mappings.listing(
                    region, params.get("EventSourceArn"), params.get("FunctionName"),
                    params.get("Marker"), int(limit))), b""
        elif path.startswith(_COLLECTION + "/"):
            mapping_uuid = unquote(path[len(_COLLECTION) + 1:])
            if method == b"GET":
                return 200, orjson.dumps(await mappings.shown(await mappings.get(
                    mapping_uuid))), b""
            if method == b"PUT":
                return 202, orjson.dumps(await mappings.update(
                    mapping_uuid, _body(body), region)), b""
            if method == b"DELETE":
                return 202, orjson.dumps(await mappings.delete(mapping_uuid)), b""
        # Lambda's answer to a path it does not serve (unverified)
        raise LambdaError(404, "UnknownOperationException", "Unknown operation")
    except LambdaError as error:
        return _error(error)


def _body(raw: bytes) -> dict:
    try:
        body = orjson.loads(raw or b"{}")
    except orjson.JSONDecodeError:
        raise invalid("the request body is not JSON") from None  # unverified
    if not isinstance(body, dict):
        raise invalid("the request body must be a JSON object")  # unverified
    return body
