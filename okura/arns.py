"""Every ARN okura parses or builds, for every partition:
arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE.

A region's partition is `aws`, but for China's regions (`aws-cn`), GovCloud's
(`aws-us-gov`) and the isolated ones. An ARN is local to a request when its partition,
region and account are the request's: only such an ARN names a table or stream the
request may reach.

DynamoDB's resources are a table and what belongs to it: `table/NAME`, and under it
`/index/INDEX`, `/stream/LABEL`, `/backup/ID`, `/export/ID`, `/import/ID`,
`/bulk-operation/ID`. The other
services' ARNs are those okura reports or accepts: Lambda functions and event source
mappings, Kinesis streams, KMS keys, CloudWatch log groups and IAM principals.

A leaf: it imports nothing of okura, and its callers raise their own errors for ARNs
that do not parse (their messages are DynamoDB's, and differ by operation)."""
from __future__ import annotations

import re
from typing import NamedTuple

PREFIX = "arn:"  # what every ARN starts with (a TableName member that does is an ARN)
COMMERCIAL = "aws"
_PARTITIONS = (("cn-", "aws-cn"), ("us-gov-", "aws-us-gov"), ("us-isob-", "aws-iso-b"),
               ("us-isof-", "aws-iso-f"), ("eu-isoe-", "aws-iso-e"), ("us-iso-", "aws-iso"))


def partition(region: str) -> str:
    """The partition of a region's ARNs."""
    for prefix, name in _PARTITIONS:
        if region.startswith(prefix):
            return name
    return COMMERCIAL


def _build(service: str, region: str, account: str, resource: str) -> str:
    return f"arn:{partition(region)}:{service}:{region}:{account}:{resource}"


def parts(text: str) -> list[str] | None:
    """The six parts of an ARN or an IAM policy's ARN pattern (arn, partition, service,
    region, account, resource: the resource may hold colons), or None."""
    found = text.split(":", 5)
    return found if len(found) == 6 else None


def region_of(arn: str) -> str:
    """The region of an ARN okura made."""
    return arn.split(":", 4)[3]


def is_local(arn: str, region: str, account: str) -> bool:
    """Whether an ARN is of this region, its partition and this account."""
    found = parts(arn)
    return found is not None and (found[1], found[3], found[4]) == (
        partition(region), region, account)


# DynamoDB: a table and its index, stream, backup, export and import

# A table ARN whose NAME follows the rules of table names: nothing else names a table
_TABLE = re.compile(
    r"arn:(aws[a-z-]*):dynamodb:([a-z0-9-]+):(\d{12}):table/([a-zA-Z0-9_.-]{3,255})")


class TableArn(NamedTuple):
    partition: str
    region: str
    account: str
    name: str


def table(region: str, account: str, name: str) -> str:
    return _build("dynamodb", region, account, "table/" + name)


def parse_table(arn: str) -> TableArn | None:
    """The parts of a table's ARN (of any partition), or None if it is not one."""
    match = _TABLE.fullmatch(arn)
    return None if match is None else TableArn(*match.groups())


def of_member(region: str, account: str, value: str) -> str:
    """The ARN a TableName member stands for: an ARN given, or the named table's."""
    return value if value.startswith(PREFIX) else table(region, account, value)


def names_table(value: str, name: str) -> bool:
    """Whether a TableName member (a name or an ARN) names a table of this name."""
    return value == name or value.endswith(":table/" + name)


def index(table_arn: str, name: str) -> str:
    return f"{table_arn}/index/{name}"


def without_index(arn: str) -> str:
    """A table's ARN from its index's (any other ARN unchanged)."""
    return arn.split("/index/")[0]


def stream(table_arn: str, label: str) -> str:
    return f"{table_arn}/stream/{label}"


def parse_stream(arn: str) -> tuple[str, str, str] | None:
    """(region, table name, label) of a stream ARN of any partition, or None if it is
    not one."""
    found = parts(arn)
    if found is None or found[0] != "arn" or not found[1].startswith("aws") or \
            found[2] != "dynamodb":
        return None
    head, sep, label = found[5].partition("/stream/")
    if not sep or not head.startswith("table/") or not label:
        return None
    return found[3], head[len("table/"):], label


def is_stream(arn: str) -> bool:
    return parse_stream(arn) is not None


def backup(table_arn: str, backup_id: str) -> str:
    return f"{table_arn}/backup/{backup_id}"


def backup_id(arn: str) -> str | None:
    """The id at the end of a backup ARN (…:table/NAME/backup/ID), or None."""
    head, sep, found = arn.rpartition("/backup/")
    return found if sep and head and found else None


def export(table_arn: str, export_id: str) -> str:
    return f"{table_arn}/export/{export_id}"


def import_(table_arn: str, import_id: str) -> str:
    return f"{table_arn}/import/{import_id}"


def bulk_operation(table_arn: str, operation_id: str) -> str:
    """A bulk put's ARN: under its table, as exports' and imports' are (unverified)."""
    return f"{table_arn}/bulk-operation/{operation_id}"


def job_id(arn: str) -> str:
    """The id an export's, import's or bulk operation's ARN ends with."""
    return arn.rpartition("/")[2]


# Other services

def function(region: str, account: str, name: str) -> str:
    return _build("lambda", region, account, "function:" + name)


def function_name(given: str) -> str:
    """The name (and `:qualifier`, if any) a Lambda FunctionName carries: a name, an ARN
    or a partial ARN (ACCOUNT:function:NAME)."""
    return given.rpartition("function:")[2] if "function:" in given else given


def event_source_mapping(region: str, account: str, mapping_uuid: str) -> str:
    return _build("lambda", region, account, "event-source-mapping:" + mapping_uuid)


def parse_kinesis_stream(arn: str) -> tuple[str, str] | None:
    """(region, stream name) of a Kinesis stream's ARN, or None if it is not one."""
    found = parts(arn)
    if found is None or found[0] != "arn" or found[2] != "kinesis" or \
            not found[5].startswith("stream/") or "/" in found[5][len("stream/"):]:
        return None
    return found[3], found[5][len("stream/"):]


def kms_key(key: str, region: str, account: str) -> str:
    """A KMS key id, alias or ARN as the ARN DynamoDB reports."""
    if key.startswith(PREFIX):
        return key
    return _build("kms", region, account, key if key.startswith("alias/") else "key/" + key)


def log_group(region: str, account: str, group: str) -> str:
    """A CloudWatch log group's ARN, as DynamoDB reports it (with its streams' `:*`)."""
    return _build("logs", region, account, f"log-group:{group}:*")


# IAM principals. okura's configured identities serve every region with one ARN: the
# commercial partition's.

def iam_user(account: str, name: str) -> str:
    return f"arn:{COMMERCIAL}:iam::{account}:user/{name}"


def iam_role(account: str, name: str) -> str:
    return f"arn:{COMMERCIAL}:iam::{account}:role/{name}"


def assumed_role(account: str, role: str, session: str) -> str:
    return f"arn:{COMMERCIAL}:sts::{account}:assumed-role/{role}/{session}"


def user_name(arn: str) -> str | None:
    """The name of an IAM user's ARN; None for any other principal (an assumed role)."""
    return None if ":assumed-role/" in arn else arn.rpartition("/")[2]


def root(region: str, account: str) -> str:
    """The account's root principal, in the region's partition."""
    return f"arn:{partition(region)}:iam::{account}:root"


def root_account(principal: str) -> str | None:
    """The account of a policy's root principal (arn:PARTITION:iam::ACCOUNT:root)."""
    found = parts(principal) if principal.startswith(PREFIX) else None
    return found[4] if found is not None and principal.endswith(":root") else None
