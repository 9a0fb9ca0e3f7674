"""Terraform's AWS provider against okura: a table with point-in-time recovery
applies cleanly (issue 21). Uses the terraform binary and an AWS provider already on
the machine (TF_PROVIDER_DIR, default /opt/tf-plugins: `terraform init -plugin-dir`);
skipped when either is missing, as nothing may be downloaded. One backend: the
provider's own start-up dominates the time."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import Server

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
"""


@pytest.mark.skipif(shutil.which("terraform") is None or not os.path.isdir(
    os.path.join(PLUGINS, "registry.terraform.io", "hashicorp", "aws")),
    reason="terraform or its AWS provider is not installed here")
def test_a_table_with_point_in_time_recovery_applies_cleanly(tmp_path):
    server = Server(data_dir=str(tmp_path / "data"))
    try:
        (tmp_path / "main.tf").write_text(CONFIG % {"url": server.url})
        environment = dict(os.environ, TF_IN_AUTOMATION="1", CHECKPOINT_DISABLE="1")

        def terraform(*args: str) -> str:
            done = subprocess.run(["terraform", *args, "-input=false", "-no-color"],
                                  cwd=tmp_path, env=environment, capture_output=True,
                                  text=True, timeout=240)
            assert done.returncode == 0, done.stdout + done.stderr
            return done.stdout

        terraform("init", "-plugin-dir", PLUGINS)
        assert "Apply complete! Resources: 1 added" in terraform("apply", "-auto-approve")
        ddb = server.client()
        recovery = ddb.describe_continuous_backups(TableName="tf-orders")[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
        assert recovery["PointInTimeRecoveryStatus"] == "ENABLED"
        assert recovery["RecoveryPeriodInDays"] == 7
        assert ddb.describe_table(TableName="tf-orders")["Table"]["DeletionProtectionEnabled"]
    finally:
        server.stop()
