"""Backups and point-in-time recovery on two okura nodes over one PostgreSQL database:
their state lives in the database, so a backup made through one node is described,
listed and restored through the other, and a history enabled through one node records
the writes made through both."""
from __future__ import annotations

from datetime import datetime, timezone

from conftest import unique_name
from test_backups import available, restored, scan_all
from test_clock import advance
from test_multinode import clients, database, nodes  # noqa: F401 - fixtures


def test_backups_and_history_are_shared(nodes, clients):  # noqa: F811
    a, b = clients
    name = unique_name()
    a.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                   KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    a.put_item(TableName=name, Item={"pk": {"S": "from-a"}})
    arn = a.create_backup(TableName=name, BackupName="shared")["BackupDetails"]["BackupArn"]
    b.put_item(TableName=name, Item={"pk": {"S": "from-b-later"}})
    assert available(b, arn)["SourceTableDetails"]["ItemCount"] == 1
    assert [s["BackupArn"] for s in b.list_backups(TableName=name)["BackupSummaries"]] == [arn]
    copy = unique_name("copy")
    b.restore_table_from_backup(TargetTableName=copy, BackupArn=arn)
    restored(a, copy)
    assert scan_all(a, copy) == [{"pk": {"S": "from-a"}}]

    b.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    a.put_item(TableName=name, Item={"pk": {"S": "a-after"}})
    b.put_item(TableName=name, Item={"pk": {"S": "b-after"}})
    a.delete_item(TableName=name, Key={"pk": {"S": "from-a"}})
    when = int(advance(nodes[0], 0)) + 1
    advance(nodes[0], 400)
    in_time = unique_name("time")
    a.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=in_time,
                                     RestoreDateTime=datetime.fromtimestamp(when, timezone.utc))
    restored(b, in_time)
    assert scan_all(b, in_time) == [{"pk": {"S": k}} for k in ("a-after", "b-after",
                                                               "from-b-later")]
