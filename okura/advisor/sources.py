"""Tables as a live endpoint describes them: any DynamoDB endpoint, read-only
(ListTables, Describe*, GetResourcePolicy, ListBackups; a bounded Scan for a sample only
when asked), and okura's observations beside them (GET /okura/usage, Contributor
Insights' counts) when the endpoint is an okura.

The gathering is written against two calls, so that `okura advise` (boto3 and HTTP) and
GET /okura/advice (in the server, through the operations themselves) share it:
`call(operation, body)` answers a DynamoDB request or raises Refused, and
`observe(path)` answers an admin GET or None.
"""
from __future__ import annotations

import base64
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable

from okura.advisor.model import TableView, Usage

DEFAULT_SAMPLE = 1000  # items an okura's tables are sampled by, unless told otherwise
PAGE = 1000

Call = Callable[[str, dict], dict]
Observe = Callable[[str], "dict | None"]


class Refused(Exception):
    """The endpoint refused a request (an error reply)."""


def gather(call: Call, observe: Observe, region: str,
           sample: int | None) -> tuple[list[TableView], bool]:
    """Every table of the endpoint's region, and whether access control is on as far as
    the endpoint says (okura's --auth; another endpoint keeps its identity policies in IAM,
    out of sight: the user says so with --access-control). `sample` None: an okura's
    tables are sampled by DEFAULT_SAMPLE items, another endpoint's not at all."""
    usage = observe(f"/okura/usage?region={urllib.parse.quote(region)}")
    access_control = usage is not None and usage.get("auth", "off") != "off"
    if sample is None:
        sample = DEFAULT_SAMPLE if usage is not None else 0
    names: list[str] = []
    start: dict = {}
    while True:
        page = call("ListTables", start)
        names += page.get("TableNames", [])
        if not page.get("LastEvaluatedTableName"):
            break
        start = {"ExclusiveStartTableName": page["LastEvaluatedTableName"]}
    tables = [_table(call, observe, name, region, sample, usage) for name in names]
    return tables, access_control


def _optional(call: Call, operation: str, body: dict) -> dict | None:
    try:
        return call(operation, body)
    except Refused:  # not supported there, not allowed, or nothing to say (no policy)
        return None


def _table(call: Call, observe: Observe, name: str, region: str, sample: int,
           usage: dict | None) -> TableView:
    description = call("DescribeTable", {"TableName": name})["Table"]
    view = TableView(description, f"{'okura' if usage is not None else 'dynamodb'}: {name}")
    ttl = _optional(call, "DescribeTimeToLive", {"TableName": name})
    if ttl is not None:
        spec = ttl.get("TimeToLiveDescription", {})
        view.ttl = {"AttributeName": spec.get("AttributeName"),
                    "Enabled": spec.get("TimeToLiveStatus") in ("ENABLED", "ENABLING")}
    backups = _optional(call, "DescribeContinuousBackups", {"TableName": name})
    if backups is not None:
        pitr = backups["ContinuousBackupsDescription"].get("PointInTimeRecoveryDescription", {})
        view.pitr = {"Enabled": pitr.get("PointInTimeRecoveryStatus") == "ENABLED",
                     "RecoveryPeriodInDays": pitr.get("RecoveryPeriodInDays")}
    policy = _optional(call, "GetResourcePolicy", {"ResourceArn": description["TableArn"]})
    view.policies = ([policy["Policy"]] if policy and policy.get("Policy") else []) + (
        usage or {}).get("policies", [])
    listed = _optional(call, "ListBackups", {"TableName": name})
    if listed is not None:
        view.backup_bytes = sum(b.get("BackupSizeBytes") or 0
                                for b in listed.get("BackupSummaries", ()))
    if sample > 0:
        view.items, view.complete = _sample(call, name, sample)
    if usage is not None:
        view.usage = _usage(usage, name)
        view.insights = (observe(f"/okura/contributor-insights/{urllib.parse.quote(name)}"
                                 f"?region={urllib.parse.quote(region)}") or {}).get("Resources")
    return view


def _sample(call: Call, name: str, limit: int) -> tuple[list[dict], bool]:
    """Up to `limit` items, and whether they are all the table holds."""
    items: list[dict] = []
    body: dict = {"TableName": name}
    while len(items) < limit:
        body["Limit"] = min(PAGE, limit - len(items))
        page = call("Scan", body)
        items += [_wire(item) for item in page.get("Items", ())]
        if not page.get("LastEvaluatedKey"):
            return items, True
        body["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    return items, False


def _wire(value: Any) -> Any:
    """An item as DynamoDB's JSON has it (boto3 decodes binaries to bytes)."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {key: _wire(member) for key, member in value.items()}
    if isinstance(value, list):
        return [_wire(member) for member in value]
    return value


def _usage(usage: dict, name: str) -> Usage:
    tally = usage.get("tables", {}).get(name) or {}
    return Usage(seconds=usage.get("seconds", 0.0), operations=tally.get("operations", {}),
                 reads=tally.get("reads", {}), attributes=tally.get("attributes", {}),
                 item_reads=tally.get("item_reads", [0, 0]),
                 index_units=tally.get("index_units", {}))


def _snake(operation: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


def from_endpoint(endpoint: str | None, region: str,
                  sample: int | None) -> tuple[list[TableView], bool]:
    """The tables at `endpoint` (None: AWS's own, with the user's credentials: the usual
    AWS variables and profiles), as `gather` finds them."""
    from botocore.exceptions import BotoCoreError, ClientError

    from okura.backup_commands import client as make_client

    client = make_client(endpoint, region)  # type: ignore[arg-type]

    def call(operation: str, body: dict) -> dict:
        try:
            return getattr(client, _snake(operation))(**body)
        except ClientError as error:
            raise Refused(str(error)) from None

    def observe(path: str) -> dict | None:
        if endpoint is None:
            return None
        try:
            with urllib.request.urlopen(endpoint.rstrip("/") + path, timeout=30) as reply:
                return json.loads(reply.read())
        except (urllib.error.URLError, ValueError, OSError):
            return None  # not an okura (or not this okura's path)

    try:
        return gather(call, observe, region, sample)
    except BotoCoreError as error:
        raise Refused(str(error)) from None
