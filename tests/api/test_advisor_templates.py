"""The Terraform and CloudFormation paths find the same design findings as the live path
for the same table."""
from __future__ import annotations

import json

import pytest
import yaml

from advisor_common import (advise, build, good_design, okura_server, own_server,  # noqa: F401
                            variant)
from test_advisor import BREAKERS

# Variants whose breakage a template shows (no items, no traffic needed).
DESIGN_RULES = ["table-name", "key-name", "index-name", "projection-all", "lsi-collection-limit",
                "deletion-protection-off", "pitr-off", "pitr-short", "multi-tenant-leading-keys"]


def _terraform(design: dict) -> str:
    create = design["create"]
    keys = {k["KeyType"]: k["AttributeName"] for k in create["KeySchema"]}
    lines = [f'resource "aws_dynamodb_table" "t" {{', f'  name = "{create["TableName"]}"',
             f'  billing_mode = "{create["BillingMode"]}"', f'  hash_key = "{keys["HASH"]}"',
             f'  range_key = "{keys["RANGE"]}"',
             f'  deletion_protection_enabled = {str(create["DeletionProtectionEnabled"]).lower()}',
             '  stream_enabled = true',
             f'  stream_view_type = "{create["StreamSpecification"]["StreamViewType"]}"']
    for attribute in create["AttributeDefinitions"]:
        lines += ["  attribute {", f'    name = "{attribute["AttributeName"]}"',
                  f'    type = "{attribute["AttributeType"]}"', "  }"]
    for kind in ("global", "local"):
        for index in create.get(f"{kind.title()}SecondaryIndexes", ()):
            index_keys = {k["KeyType"]: k["AttributeName"] for k in index["KeySchema"]}
            lines += [f"  {kind}_secondary_index {{", f'    name = "{index["IndexName"]}"',
                      f'    projection_type = "{index["Projection"]["ProjectionType"]}"']
            if kind == "global":
                lines.append(f'    hash_key = "{index_keys["HASH"]}"')
            if "RANGE" in index_keys:
                lines.append(f'    range_key = "{index_keys["RANGE"]}"')
            if index["Projection"].get("NonKeyAttributes"):
                lines.append("    non_key_attributes = "
                             + json.dumps(index["Projection"]["NonKeyAttributes"]))
            lines.append("  }")
    if design["ttl"]:
        lines += ["  ttl {", f'    attribute_name = "{design["ttl"]}"', "    enabled = true", "  }"]
    if design["pitr_days"]:
        lines += ["  point_in_time_recovery {", "    enabled = true",
                  f"    recovery_period_in_days = {design['pitr_days']}", "  }"]
    lines.append("}")
    if design["policy"]:
        lines += ['resource "aws_dynamodb_resource_policy" "p" {',
                  '  resource_arn = aws_dynamodb_table.t.arn',
                  f"  policy = jsonencode({json.dumps(design['policy'])})", "}"]
    return "\n".join(lines) + "\n"


def _cloudformation(design: dict) -> str:
    create = design["create"]
    properties = {k: v for k, v in create.items()}
    properties["TableName"] = create["TableName"]
    if design["ttl"]:
        properties["TimeToLiveSpecification"] = {"AttributeName": design["ttl"], "Enabled": True}
    if design["pitr_days"]:
        properties["PointInTimeRecoverySpecification"] = {
            "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": design["pitr_days"]}
    if design["policy"]:
        properties["ResourcePolicy"] = {"PolicyDocument": design["policy"]}
    properties["StreamSpecification"] = {
        "StreamViewType": create["StreamSpecification"]["StreamViewType"]}
    text = yaml.safe_dump({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
        "Orders": {"Type": "AWS::DynamoDB::Table", "Properties": properties}}},
        allow_unicode=True, sort_keys=False)
    # the short intrinsic forms load too: an !If billing mode is not a literal, an !Ref
    # elsewhere is ignored
    return text + "Outputs:\n  Arn: {Value: !GetAtt Orders.Arn}\n  Name: {Value: !Ref Orders}\n"


def _design_findings(report: dict) -> set[tuple]:
    return {(f["rule"], f["severity"], f["index"]) for f in report["findings"]}


@pytest.mark.parametrize("rule", [None, *DESIGN_RULES])
def test_templates_find_what_the_live_table_shows(okura_server, tmp_path, rule):
    design = good_design() if rule is None else variant(BREAKERS[rule])
    build(okura_server.client(), design)
    live = advise("--endpoint", okura_server.url, "--sample", "0")
    tf, cfn = tmp_path / "main.tf", tmp_path / "template.yaml"
    tf.write_text(_terraform(design), encoding="utf-8")
    cfn.write_text(_cloudformation(design), encoding="utf-8")
    from_terraform = advise("--terraform", str(tf))
    from_cloudformation = advise("--cloudformation", str(cfn))
    assert _design_findings(from_terraform) == _design_findings(live)
    assert _design_findings(from_cloudformation) == _design_findings(live)
    if rule is not None:
        assert rule in {f["rule"] for f in live["findings"]}
    sources = {f["table"]: f for f in from_terraform["findings"]}
    assert all(f["table"] == design["create"]["TableName"] for f in sources.values())


def test_a_global_table_and_intrinsic_names(tmp_path):
    cfn = tmp_path / "sam.yaml"
    cfn.write_text("""
Transform: AWS::Serverless-2016-10-31
Parameters: {Env: {Type: String}}
Resources:
  Orders:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: !Sub "${Env}-shop-order"
      BillingMode: PAY_PER_REQUEST
      KeySchema: [{AttributeName: user_id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: user_id, AttributeType: S}]
      Replicas:
        - Region: us-east-1
          DeletionProtectionEnabled: true
          PointInTimeRecoverySpecification: {PointInTimeRecoveryEnabled: true}
        - Region: ap-northeast-1
  Sessions:
    Type: AWS::Serverless::SimpleTable
    Properties:
      TableName: !Join ["-", [!Ref Env, shop, session]]
""", encoding="utf-8")
    report = advise("--cloudformation", str(cfn), "--writes-per-second", "1")
    orders = {f["rule"] for f in report["findings"] if f["table"] == "${Env}-shop-order"}
    assert orders == set()
    # a name built by !Join is not a literal: the logical id stands in, and is judged
    sessions = {f["rule"] for f in report["findings"] if f["table"] == "Sessions"}
    assert {"table-name", "key-name", "deletion-protection-off", "pitr-off"} <= sessions
    line = next(c for c in report["cost"]["tables"] if c["table"] == "${Env}-shop-order")
    # one replica besides this region: each write once more at the replicated price
    assert line["replicated_writes"] == round(1 * 730 * 3600 / 1e6 * 0.625, 4)


def test_a_template_that_cannot_be_read(tmp_path, capsys):
    from okura import cli

    broken = tmp_path / "broken.tf"
    broken.write_text('resource "aws_dynamodb_table" "t" {', encoding="utf-8")
    with pytest.raises(SystemExit) as exit:
        cli.main(["advise", "--terraform", str(broken)])
    assert exit.value.code == 2
    assert "not valid HCL" in capsys.readouterr().err


def test_values_left_to_variables_and_functions(tmp_path):
    tf = tmp_path / "vars.tf"
    tf.write_text("""
variable "key" { type = string }
resource "aws_dynamodb_table" "t" {
  name = "${var.env}-shop-order"
  billing_mode = "PROVISIONED"
  read_capacity = var.reads
  write_capacity = 5
  hash_key = var.key
  deletion_protection_enabled = true
  attribute {
    name = var.key
    type = "S"
  }
  point_in_time_recovery {
    enabled = true
    recovery_period_in_days = var.days
  }
}
""", encoding="utf-8")
    cfn = tmp_path / "intrinsic.yaml"
    cfn.write_text("""
Resources:
  T:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${Env}-shop-order"
      BillingMode: PROVISIONED
      ProvisionedThroughput: {ReadCapacityUnits: !Ref Reads, WriteCapacityUnits: 5}
      KeySchema: [{AttributeName: !Ref Key, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: !Ref Key, AttributeType: S}]
      DeletionProtectionEnabled: true
      PointInTimeRecoverySpecification:
        PointInTimeRecoveryEnabled: true
        RecoveryPeriodInDays: !Ref Days
""", encoding="utf-8")
    for report in (advise("--terraform", str(tf), "--writes-per-second", "1"),
                   advise("--cloudformation", str(cfn), "--writes-per-second", "1")):
        # nothing is judged of what a variable holds; the declared capacity counts its
        # literal figures alone (5 WCU)
        assert report["findings"] == [], report["findings"]
        line = report["cost"]["tables"][0]
        assert line["provisioned_declared"] == round(5 * 0.00065 * 730, 4)
