"""The okura the MCP server talks to, through its public surfaces only: the DynamoDB and
Streams APIs and the admin endpoints (/okura/..., docs/admin.md). So the same tools work on
an okura `okura mcp` started itself and on one already running.

The agent's DynamoDB JSON is sent as it is, signed with botocore's SigV4 signer, and the
reply comes back as DynamoDB sent it. boto3's client methods would put botocore's own checks and serialiser in between: a
malformed value would fail there, with botocore's words, before DynamoDB saw it. Each call
is made once, with no retries, so the agent sees what one request did (an injected fault, a
throttle). Failures become the SDK's ToolError carrying DynamoDB's (or the admin endpoint's)
own text, so that the agent reads why, not a generic "Error executing tool"."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable

import boto3
import orjson
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from mcp.server.mcpserver.exceptions import ToolError

from okura.embedded import FAKE_KEYS

_TIMEOUT = 60.0
_DYNAMODB, _STREAMS = "DynamoDB_20120810.", "DynamoDBStreams_20120810."


class Okura:
    """One okura endpoint, in one region."""

    def __init__(self, endpoint: str, region: str, own_keys: bool = False):
        """`own_keys`: sign with the usual AWS credentials when there are some (an okura
        running with --auth verifies them); else, as for an okura started here, with fake
        ones, so that real keys are never sent where they are not needed."""
        self.endpoint = endpoint.rstrip("/")
        self.region = region
        credentials = (boto3.Session().get_credentials() if own_keys else None) or Credentials(
            FAKE_KEYS["aws_access_key_id"], FAKE_KEYS["aws_secret_access_key"])
        self._signer = SigV4Auth(credentials, "dynamodb", region)

    def call(self, operation: str, **params: Any) -> dict:
        """One DynamoDB API call (GetItem, Query, ...) of parameters in DynamoDB JSON; its
        reply."""
        return self._api(_DYNAMODB + operation, params)

    def stream_call(self, operation: str, **params: Any) -> dict:
        """One DynamoDB Streams API call (DescribeStream, GetRecords, ...)."""
        return self._api(_STREAMS + operation, params)

    def _api(self, target: str, params: dict) -> dict:
        request = AWSRequest("POST", self.endpoint + "/", data=orjson.dumps(params), headers={
            "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target})
        self._signer.add_auth(request)
        prepared = request.prepare()
        return self._send(prepared.url, prepared.body, dict(prepared.headers), "POST",
                          _api_error)

    def admin(self, method: str, name: str, body: Any = None, **query: Any) -> Any:
        """A request to an admin endpoint (docs/admin.md); its JSON reply."""
        query = {key: value for key, value in query.items() if value is not None}
        url = f"{self.endpoint}/okura/{name}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        return self._send(url, data, {"Content-Type": "application/json"}, method, _admin_error)

    def _send(self, url: str, data: bytes | None, headers: dict, method: str,
              error_text: Callable[[dict], str]) -> Any:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT) as reply:
                return orjson.loads(reply.read())
        except urllib.error.HTTPError as error:
            try:
                raise ToolError(error_text(orjson.loads(error.read()))) from None
            except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError):
                raise ToolError(f"okura answered {error.code} {error.reason}") from None
        except (urllib.error.URLError, OSError) as error:
            raise ToolError(f"okura at {self.endpoint} does not answer: {error}") from None


def _api_error(body: dict) -> str:
    """DynamoDB's error as its SDKs show it, `Code: message`, and whatever else it carries
    (a cancelled transaction's CancellationReasons, a throttle's ThrottlingReasons)."""
    code = body["__type"].rpartition("#")[2]
    message = body.get("message", body.get("Message", ""))
    extra = {k: v for k, v in body.items() if k not in ("__type", "message", "Message")}
    return f"{code}: {message}" + (f" {dumps(extra)}" if extra else "")


def _admin_error(body: dict) -> str:
    return str(body["error"])


def dumps(value: Any) -> str:
    """Compact JSON text, as the tools return it."""
    return orjson.dumps(value).decode()
