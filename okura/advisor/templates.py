"""Tables as Terraform and CloudFormation/SAM declare them, before anything is deployed:
each `aws_dynamodb_table`, `AWS::DynamoDB::Table`, `AWS::DynamoDB::GlobalTable` and
`AWS::Serverless::SimpleTable` translated into the TableDescription DescribeTable would
give once it exists, so that the same rules judge it. Settings a template leaves out
take the provider's defaults (provisioned billing, no deletion protection, no PITR).

A template says nothing of items or traffic: the rules that need them stay silent. Its
policies (IAM resources in the same files, a table's resource policy) are what the
multi-tenant rule reads for dynamodb:LeadingKeys.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from okura.advisor.model import TableView

_IAM_TERRAFORM = re.compile(r'(resource|data)\s+"aws_(iam_\w+|dynamodb_resource_policy)"')
_IAM_CLOUDFORMATION = ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy", "AWS::IAM::Role")


class TemplateError(Exception):
    """A file that cannot be read as the template it should be."""


def _files(path: str, suffixes: tuple[str, ...]) -> list[Path]:
    root = Path(path)
    if root.is_dir():
        return sorted(p for p in root.rglob("*") if p.suffix in suffixes)
    if not root.exists():
        raise TemplateError(f"{path}: no such file or directory")
    return [root]


# Terraform
def _unquoted(value: Any) -> Any:
    """python-hcl2 keeps string literals' quotes."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def _blocks(body: dict, name: str) -> list[dict]:
    blocks = body.get(name) or []
    return [{k: _unquoted(v) for k, v in block.items()} for block in
            (blocks if isinstance(blocks, list) else [blocks])]


def _schema(hash_key: str, range_key: str | None) -> list[dict]:
    schema = [{"AttributeName": hash_key, "KeyType": "HASH"}]
    if range_key:
        schema.append({"AttributeName": range_key, "KeyType": "RANGE"})
    return schema


def _projection(block: dict, type_key: str, attributes_key: str) -> dict:
    projection = {"ProjectionType": block.get(type_key) or "ALL"}
    names = [_unquoted(n) for n in block.get(attributes_key) or ()]
    if names:
        projection["NonKeyAttributes"] = names
    return projection


def _throughput(block: dict) -> dict:
    """Declared capacity (a variable's: unknown, left to cost.py to count as 0)."""
    return {"ReadCapacityUnits": block.get("read_capacity"),
            "WriteCapacityUnits": block.get("write_capacity")}


def _terraform_table(body: dict, label: str, source: str, policies: list[str]) -> TableView:
    body = {k: _unquoted(v) for k, v in body.items()}
    hash_key = body.get("hash_key")
    if not isinstance(hash_key, str):
        raise TemplateError(f"{source}: {label} has no hash_key")
    description: dict = {
        "TableName": body.get("name") or label,
        "KeySchema": _schema(hash_key, body.get("range_key")),
        "AttributeDefinitions": [{"AttributeName": a.get("name"), "AttributeType": a.get("type")}
                                 for a in _blocks(body, "attribute")],
        "BillingModeSummary": {"BillingMode": body.get("billing_mode") or "PROVISIONED"},
        "ProvisionedThroughput": _throughput(body),
        "TableClassSummary": {"TableClass": body.get("table_class") or "STANDARD"},
        "DeletionProtectionEnabled": bool(body.get("deletion_protection_enabled")),
        "GlobalSecondaryIndexes": [
            {"IndexName": g.get("name"), "KeySchema": _schema(g["hash_key"], g.get("range_key")),
             "Projection": _projection(g, "projection_type", "non_key_attributes"),
             "ProvisionedThroughput": _throughput(g)}
            for g in _blocks(body, "global_secondary_index")],
        "LocalSecondaryIndexes": [
            {"IndexName": l.get("name"), "KeySchema": _schema(hash_key, l.get("range_key")),
             "Projection": _projection(l, "projection_type", "non_key_attributes")}
            for l in _blocks(body, "local_secondary_index")],
    }
    if body.get("stream_enabled"):
        description["StreamSpecification"] = {"StreamEnabled": True,
                                              "StreamViewType": body.get("stream_view_type")}
    replicas = _blocks(body, "replica")
    if replicas:
        description["Replicas"] = [{"RegionName": "(this region)"}] + [
            {"RegionName": r.get("region_name")} for r in replicas]
    ttl = (_blocks(body, "ttl") or [{}])[0]
    pitr = (_blocks(body, "point_in_time_recovery") or [{}])[0]
    return TableView(description, source,
                     ttl={"AttributeName": ttl.get("attribute_name"),
                          "Enabled": bool(ttl.get("enabled"))},
                     pitr={"Enabled": bool(pitr.get("enabled")),
                           "RecoveryPeriodInDays": pitr.get("recovery_period_in_days")},
                     policies=policies)


def terraform(path: str) -> list[TableView]:
    """The tables of a .tf file, or of every .tf file under a directory."""
    import hcl2

    files = _files(path, (".tf",))
    texts = {}
    for file in files:
        texts[file] = file.read_text(encoding="utf-8")
    policies = [text for text in texts.values() if _IAM_TERRAFORM.search(text)]
    tables = []
    for file, text in texts.items():
        try:
            parsed = hcl2.loads(text)
        except Exception as error:  # lark's parse errors share no base class worth naming
            raise TemplateError(f"{file}: not valid HCL: {error}") from None
        for resource in parsed.get("resource", ()):
            for kind, named in resource.items():
                if _unquoted(kind) != "aws_dynamodb_table":
                    continue
                for label, body in named.items():
                    label = _unquoted(label)
                    tables.append(_terraform_table(
                        body, label, f"{file}: aws_dynamodb_table.{label}", policies))
    return tables


# CloudFormation and SAM
class _Loader(yaml.SafeLoader):
    """YAML with CloudFormation's short forms: !Ref X is {"Ref": X}, !Sub s is
    {"Fn::Sub": s}, !GetAtt a.b is {"Fn::GetAtt": [a, b]}, and so on."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return {"Ref": value} if suffix == "Ref" else {f"Fn::{suffix}": value}


_Loader.add_multi_constructor("!", _intrinsic)


def _text(value: Any) -> Any:
    """A property's literal value; a !Sub's template; None for another intrinsic."""
    if isinstance(value, dict):
        sub = value.get("Fn::Sub")
        if isinstance(sub, list) and sub:
            sub = sub[0]
        return sub if isinstance(sub, str) else None
    return value


def _named(entries: list | None) -> list[dict]:
    """Key schemas and definitions with each name a literal or "${...}" (unknown)."""
    return [dict(entry, AttributeName=_text(entry.get("AttributeName")) or "${...}")
            for entry in entries or () if isinstance(entry, dict)]


def _indexes(indexes: list | None) -> list[dict]:
    out = []
    for index in indexes or ():
        entry = {"IndexName": _text(index.get("IndexName")) or "${...}",
                 "KeySchema": _named(index.get("KeySchema")),
                 "Projection": index.get("Projection") or {"ProjectionType": "ALL"}}
        throughput = index.get("ProvisionedThroughput")
        if throughput:
            entry["ProvisionedThroughput"] = throughput
        out.append(entry)
    return out


def _cloudformation_table(logical: str, kind: str, props: dict, source: str,
                          policies: list[str]) -> TableView:
    replica = (props.get("Replicas") or [{}])[0] if kind.endswith("GlobalTable") else props
    if kind == "AWS::Serverless::SimpleTable":
        key = props.get("PrimaryKey") or {"Name": "id", "Type": "String"}
        props = {"KeySchema": [{"AttributeName": key["Name"], "KeyType": "HASH"}],
                 "AttributeDefinitions": [{"AttributeName": key["Name"],
                                           "AttributeType": key["Type"][0]}],
                 "BillingMode": "PROVISIONED" if props.get("ProvisionedThroughput")
                 else "PAY_PER_REQUEST", **props}
    description: dict = {
        "TableName": _text(props.get("TableName")) or logical,
        "KeySchema": _named(props.get("KeySchema")),
        "AttributeDefinitions": _named(props.get("AttributeDefinitions")),
        "BillingModeSummary": {"BillingMode": _text(props.get("BillingMode")) or "PROVISIONED"},
        "ProvisionedThroughput": props.get("ProvisionedThroughput") or {},
        "TableClassSummary": {"TableClass": _text(replica.get("TableClass")) or "STANDARD"},
        "DeletionProtectionEnabled": replica.get("DeletionProtectionEnabled") is True,
        "GlobalSecondaryIndexes": _indexes(props.get("GlobalSecondaryIndexes")),
        "LocalSecondaryIndexes": _indexes(props.get("LocalSecondaryIndexes")),
    }
    if not description["KeySchema"]:
        raise TemplateError(f"{source}: {logical} has no KeySchema")
    stream = props.get("StreamSpecification")
    if stream and stream.get("StreamViewType"):
        description["StreamSpecification"] = {"StreamEnabled": True,
                                              "StreamViewType": stream["StreamViewType"]}
    if kind.endswith("GlobalTable"):
        description["Replicas"] = [{"RegionName": _text(r.get("Region"))}
                                   for r in props.get("Replicas") or ()]
    ttl = props.get("TimeToLiveSpecification") or {}
    pitr = replica.get("PointInTimeRecoverySpecification") or {}
    own_policy = (replica.get("ResourcePolicy") or {}).get("PolicyDocument")
    return TableView(description, source,
                     ttl={"AttributeName": ttl.get("AttributeName"),
                          "Enabled": ttl.get("Enabled") is True},
                     pitr={"Enabled": pitr.get("PointInTimeRecoveryEnabled") is True,
                           "RecoveryPeriodInDays": pitr.get("RecoveryPeriodInDays")},
                     policies=policies + ([json.dumps(own_policy)] if own_policy else []))


_TABLE_TYPES = ("AWS::DynamoDB::Table", "AWS::DynamoDB::GlobalTable",
                "AWS::Serverless::SimpleTable")


def cloudformation(path: str) -> list[TableView]:
    """The tables of a CloudFormation or SAM template (YAML or JSON), or of every
    template under a directory."""
    tables = []
    for file in _files(path, (".yaml", ".yml", ".json", ".template")):
        try:
            template = yaml.load(file.read_text(encoding="utf-8"), Loader=_Loader)
        except yaml.YAMLError as error:
            raise TemplateError(f"{file}: not valid YAML or JSON: {error}") from None
        resources = (template or {}).get("Resources") if isinstance(template, dict) else None
        if not isinstance(resources, dict):
            continue  # not a template (a directory holds other files too)
        policies = [json.dumps(r) for r in resources.values()
                    if isinstance(r, dict) and r.get("Type") in _IAM_CLOUDFORMATION]
        for logical, resource in resources.items():
            if isinstance(resource, dict) and resource.get("Type") in _TABLE_TYPES:
                tables.append(_cloudformation_table(
                    logical, resource["Type"], resource.get("Properties") or {},
                    f"{file}: {logical}", policies))
    return tables
