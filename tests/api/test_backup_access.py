"""Access control of backups and point-in-time recovery (--auth enforce): CreateBackup
and RestoreTableToPointInTime are checked on their (source) table; DescribeBackup,
DeleteBackup and RestoreTableFromBackup on the backup's ARN (under its table's ARN, so
a policy on table/dev_* covers the backups of those tables); ListBackups on "*"."""
from __future__ import annotations

from tests.api.test_access import _arn, _denied, client, error_of, start
from test_backups import available

KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}


def test_backups_are_checked_on_their_resources(tmp_path_factory):
    server = start(tmp_path_factory, "enforce")
    try:
        dev, admin = client(server, "AKIADEV"), client(server, "AKIAADMIN")
        for name in ("dev_saved", "prod_saved"):
            admin.create_table(TableName=name, **KEYS)
            admin.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
                "PointInTimeRecoveryEnabled": True})
        mine = dev.create_backup(TableName="dev_saved", BackupName="mine")[
            "BackupDetails"]["BackupArn"]
        available(dev, mine)
        assert error_of(dev.create_backup, TableName="prod_saved", BackupName="theirs") == (
            "AccessDeniedException", _denied("dev", "CreateBackup", _arn("prod_saved")))
        theirs = admin.create_backup(TableName="prod_saved", BackupName="theirs")[
            "BackupDetails"]["BackupArn"]
        available(admin, theirs)
        for call, action in ((dev.describe_backup, "DescribeBackup"),
                             (dev.delete_backup, "DeleteBackup")):
            assert error_of(call, BackupArn=theirs) == (
                "AccessDeniedException", _denied("dev", action, theirs))
        assert error_of(dev.restore_table_from_backup, BackupArn=theirs,
                        TargetTableName="dev_copy") == (
            "AccessDeniedException", _denied("dev", "RestoreTableFromBackup", theirs))
        assert error_of(dev.restore_table_to_point_in_time, SourceTableName="prod_saved",
                        TargetTableName="dev_copy", UseLatestRestorableTime=True) == (
            "AccessDeniedException",
            _denied("dev", "RestoreTableToPointInTime", _arn("prod_saved")))
        assert error_of(dev.list_backups) == (
            "AccessDeniedException", _denied("dev", "ListBackups", "*"))
        dev.restore_table_to_point_in_time(SourceTableName="dev_saved",
                                           TargetTableName="dev_copy",
                                           UseLatestRestorableTime=True)
        assert dev.describe_backup(BackupArn=mine)["BackupDescription"]["BackupDetails"][
            "BackupName"] == "mine"
    finally:
        server.stop()
