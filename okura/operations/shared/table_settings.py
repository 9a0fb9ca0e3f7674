"""A table's optional settings as CreateTable and UpdateTable take them: the
stream, server-side encryption, tags, and the throughput settings that are not
provisioned capacity (warm throughput, on-demand maximums)."""
from __future__ import annotations

import re
import time

from okura import arns, errors

_INVALID = "One or more parameter values were invalid: "
MAX_TAGS = 50
# a tag's key or value: letters, digits, whitespace and + - = . _ : / (recorded)
_TAG_TEXT = re.compile(r"[\w\s+\-=.:/]*")
# A new table's or global index's warm throughput, whatever its billing (developer
# guide, "Understanding DynamoDB warm throughput"): it only grows from there.
WARM_READ, WARM_WRITE = 12000, 4000


def stream_label(now: float) -> str:
    """A stream's label: its creation time, as DynamoDB prints it (UTC, milliseconds)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}"


def check_stream(spec: dict, creating: bool) -> None:
    """A StreamSpecification of CreateTable (`creating`) or UpdateTable."""
    enabled = spec["StreamEnabled"]
    if enabled and spec.get("StreamViewType") is None:
        raise errors.validation(
            _INVALID + "You must specify a StreamViewType when enabling a stream")  # unverified
    if not enabled and spec.get("StreamViewType") is not None:
        if creating:
            raise errors.validation(_INVALID + "Table is being created with a stream disabled, "
                                    "UpdateViewType should not be specified")
        raise errors.validation(
            _INVALID + "You cannot specify a StreamViewType when disabling a stream")  # unverified


def stream(spec: dict | None, now: float) -> dict:
    """The catalog members of a checked StreamSpecification."""
    if spec is None:
        return {}
    if not spec["StreamEnabled"]:
        return {}
    return {"StreamSpecification": {"StreamEnabled": True,
                                    "StreamViewType": spec["StreamViewType"]},
            "LatestStreamLabel": stream_label(now)}


def sse(spec: dict | None, region: str, account: str) -> dict:
    """The SSEDescription member for an SSESpecification: enabled means a KMS key
    (the AWS managed one unless a key is named); disabled means DynamoDB's own key,
    which DescribeTable does not show."""
    if spec is None:
        return {}
    enabled = spec.get("Enabled", False)
    kind = spec.get("SSEType")
    key = spec.get("KMSMasterKeyId")
    if not enabled:
        if kind is not None or key is not None:
            raise errors.validation(
                _INVALID + "SSEType or KMSMasterKeyId cannot be specified when SSE is disabled")  # unverified
        return {}
    if kind == "AES256":
        raise errors.validation(_INVALID + "SSEType AES256 is not supported")  # unverified
    if key is None:
        key = "alias/aws/dynamodb"
    return {"SSEDescription": {"Status": "ENABLED", "SSEType": "KMS",
                               "KMSMasterKeyArn": arns.kms_key(key, region, account)}}


def merged_tags(current: dict, tags: list[dict]) -> dict:
    """`current` ({key: value}) with `tags` added or replaced, after DynamoDB's tag rules."""
    merged = dict(current)
    named: set[str] = set()
    for tag in tags:
        key, value = tag["Key"], tag["Value"]
        if _TAG_TEXT.fullmatch(key) is None:
            raise errors.validation(f"The Tag Key provided is invalid, Key: {key}")
        if _TAG_TEXT.fullmatch(value) is None:
            raise errors.validation(f"The Tag Value provided is invalid, Value: {value}")
        if key.startswith("aws:"):
            raise errors.validation(f"Tag Key cannot be prefixed with aws:, Key: {key}")
        if key in named:
            raise errors.validation(
                f"Duplicate Tag Keys provided as input: Duplicate Tag Key found {key}")
        named.add(key)
        merged[key] = value
    if len(merged) > MAX_TAGS:
        raise errors.validation(
            "Number of Tags exceed the current limit for the provided ResourceArn")
    return merged


def warm(current: dict | None, requested: dict | None = None,
         provisioned: dict | None = None) -> dict:
    """A table's or global index's WarmThroughput (its Status is added when described):
    raised to what is `requested` and to `provisioned` capacity, never lowered."""
    read = WARM_READ if current is None else current["ReadUnitsPerSecond"]
    write = WARM_WRITE if current is None else current["WriteUnitsPerSecond"]
    if requested:
        asked_read = requested.get("ReadUnitsPerSecond")
        asked_write = requested.get("WriteUnitsPerSecond")
        asked_read = read if asked_read is None else asked_read  # a JSON null: not asked
        asked_write = write if asked_write is None else asked_write
        if asked_read < read or asked_write < write:
            raise errors.validation(  # unverified
                _INVALID + "Warm throughput can only be increased: current ReadUnitsPerSecond "
                f"{read}, WriteUnitsPerSecond {write}")
        read, write = asked_read, asked_write
    if provisioned:
        read = max(read, provisioned["ReadCapacityUnits"])
        write = max(write, provisioned["WriteCapacityUnits"])
    return {"ReadUnitsPerSecond": read, "WriteUnitsPerSecond": write}


def on_demand(spec: dict, on_demand_billing: bool, owner: str, current: dict | None = None) -> dict:
    """A checked OnDemandThroughput (maximum request units; -1: no maximum), which only
    a table billed per request takes; `owner` names the table or index for the error.
    A member left out keeps its `current` value (UpdateTable takes either or both)."""
    if not on_demand_billing:
        raise errors.validation(  # unverified
            _INVALID + f"OnDemandThroughput can only be specified for {owner} when "
            "BillingMode is PAY_PER_REQUEST")
    for member in ("MaxReadRequestUnits", "MaxWriteRequestUnits"):
        value = spec.get(member)
        if value is not None and value != -1 and value < 1:
            raise errors.validation(  # unverified
                _INVALID + f"{member} must be -1 or at least 1, but was {value}")
    return {**(current or {}), **present(spec)}


def present(spec: dict) -> dict:
    """The members a request gives (a JSON null is an absent member)."""
    return {member: value for member, value in spec.items() if value is not None}
