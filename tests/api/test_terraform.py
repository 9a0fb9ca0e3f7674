"""Terraform's AWS provider against okura (issues 21 and 25): a table with point-in-time
recovery, and one with a global secondary index, TTL, a stream, tags and deletion
protection, applied, planned a second time (nothing to change: every attribute reads back
as applied) and destroyed. Uses the terraform binary and an AWS provider already on the
machine (TF_PROVIDER_DIR, default /opt/tf-plugins: `terraform init -plugin-dir`);
skipped when either is missing, as nothing may be downloaded (a failure with
OKURA_REQUIRE_TOOLS=1). One backend and one
configuration for both tables: each terraform command starts the provider a few times
(about 4 s each here), which is nearly all the time."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import Server, unavailable

PLUGINS = os.environ.get("TF_PROVIDER_DIR", "/opt/tf-plugins")
CONFIG = """
provider "aws" {
  region                      = "us-east-1"
  access_key                  = "test"
  secret_key                  = "test"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  endpoints {
    dynamodb = "%(url)s"
  }
}

resource "aws_dynamodb_table" "orders" {
  name         = "tf-orders"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  point_in_time_recovery {
    enabled                 = true
    recovery_period_in_days = 7
  }
  deletion_protection_enabled = true
}

resource "aws_dynamodb_table" "events" {
  name             = "tf-events"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  range_key        = "at"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "at"
    type = "N"
  }
  attribute {
    name = "kind"
    type = "S"
  }
  global_secondary_index {
    name               = "by-kind"
    hash_key           = "kind"
    range_key          = "at"
    projection_type    = "INCLUDE"
    non_key_attributes = ["title"]
  }
  ttl {
    attribute_name = "expires"
    enabled        = true
  }
  tags = {
    team = "storage"
    env  = "test"
  }
  deletion_protection_enabled = true
}
"""


@pytest.mark.slow  # terraform (README.md, Tests)
# ~30 s on an idle machine, 100 s seen on a loaded one: past the suite's 120 s per test
@pytest.mark.timeout(600)
def test_tables_apply_plan_clean_and_destroy(tmp_path):
    if shutil.which("terraform") is None or not os.path.isdir(
            os.path.join(PLUGINS, "registry.terraform.io", "hashicorp", "aws")):
        unavailable("terraform or its AWS provider is not installed here")
    server = Server(data_dir=str(tmp_path / "data"))
    try:
        (tmp_path / "main.tf").write_text(CONFIG % {"url": server.url})
        environment = dict(os.environ, TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")

        def terraform(*args: str) -> tuple[int, str]:
            done = subprocess.run(["terraform", *args, "-input=false", "-no-color"],
                                  cwd=tmp_path, env=environment, capture_output=True,
                                  text=True, timeout=240)
            # 2: a plan with -detailed-exitcode found changes
            assert done.returncode in (0, 2), done.stdout + done.stderr
            return done.returncode, done.stdout

        terraform("init", "-plugin-dir", PLUGINS)
        assert "Apply complete! Resources: 2 added" in terraform("apply", "-auto-approve")[1]
        ddb = server.client()
        recovery = ddb.describe_continuous_backups(TableName="tf-orders")[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
        assert recovery["PointInTimeRecoveryStatus"] == "ENABLED"
        assert recovery["RecoveryPeriodInDays"] == 7
        assert ddb.describe_table(TableName="tf-orders")["Table"]["DeletionProtectionEnabled"]
        events = ddb.describe_table(TableName="tf-events")["Table"]
        assert events["GlobalSecondaryIndexes"][0]["Projection"] == {
            "ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]}
        assert events["StreamSpecification"] == {"StreamEnabled": True,
                                                 "StreamViewType": "NEW_AND_OLD_IMAGES"}
        assert events["DeletionProtectionEnabled"] is True
        assert ddb.describe_time_to_live(TableName="tf-events")["TimeToLiveDescription"] == {
            "TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}
        assert {tag["Key"]: tag["Value"] for tag in ddb.list_tags_of_resource(
            ResourceArn=events["TableArn"])["Tags"]} == {"team": "storage", "env": "test"}
        status, plan = terraform("plan", "-detailed-exitcode")
        assert status == 0 and "No changes." in plan, plan
        # AWS refuses to delete a protected table; an operator turns the protection off
        # first (here outside Terraform, to spare a third provider run)
        for name in ("tf-orders", "tf-events"):
            ddb.update_table(TableName=name, DeletionProtectionEnabled=False)
        assert "Destroy complete! Resources: 2 destroyed" in terraform(
            "destroy", "-auto-approve")[1]
        assert ddb.list_tables()["TableNames"] == []
    finally:
        server.stop()
