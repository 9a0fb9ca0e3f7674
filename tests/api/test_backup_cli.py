"""`okura backup` and `okura restore` against a running server."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import unique_name


def okura(server, *args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "okura", *args, "--endpoint", server.url,
                           "--wait", "--timeout", "30"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_backup_and_restore_verbs(server, ddb, make_table):
    name = make_table()
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    details = okura(server, "backup", name, "--name", "from-cli")
    assert details["BackupStatus"] == "AVAILABLE" and details["BackupName"] == "from-cli"
    target = unique_name("cli")
    restored = okura(server, "restore", target, "--backup-arn", details["BackupArn"])
    assert restored["TableStatus"] == "ACTIVE" and restored["ItemCount"] == 1
    assert restored["RestoreSummary"]["SourceBackupArn"] == details["BackupArn"]
    ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    in_time = okura(server, "restore", unique_name("cli"), "--table", name)
    assert in_time["TableStatus"] == "ACTIVE" and in_time["ItemCount"] == 1
