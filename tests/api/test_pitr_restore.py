"""RestoreTableToPointInTime on servers whose clock the tests move: a restore holds
the table exactly as of the second asked for (items and index entries), within the
window DescribeContinuousBackups reports; a table deleted with point-in-time recovery
on can be restored (by time, or from its system backup); times out of the window and
tables without recovery get DynamoDB's errors."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest
from botocore.exceptions import ClientError
from conftest import error_of, unique_name
from test_backups import indexed_table, item, restored, scan_all, wait_for
from test_clock import advance, clocked  # noqa: F401 - clocked is a fixture
from test_pitr import pitr
from test_streams_time import ddb, node  # noqa: F401 - fixtures: a server of this module's own

DAY = 86400


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def second_after(node) -> int:
    """A whole second after every write so far; the clock is moved past it."""
    boundary = int(advance(node, 0)) + 1
    advance(node, 2)
    return boundary


def window(ddb, name: str) -> tuple[float, float]:
    recovery = ddb.describe_continuous_backups(TableName=name)[
        "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    return (recovery["EarliestRestorableDateTime"].timestamp(),
            recovery["LatestRestorableDateTime"].timestamp())


def restore(ddb, name: str, when: float | None = None, **source) -> list[dict]:
    target = unique_name("pitr")
    timing = {"UseLatestRestorableTime": True} if when is None else {
        "RestoreDateTime": at(when)}
    reply = ddb.restore_table_to_point_in_time(
        TargetTableName=target, **(source or {"SourceTableName": name}), **timing)
    assert reply["TableDescription"]["TableStatus"] == "CREATING"
    summary = reply["TableDescription"]["RestoreSummary"]
    assert summary["RestoreInProgress"] is True and "SourceBackupArn" not in summary
    restored(ddb, target)
    return scan_all(ddb, target)


def test_restore_equals_the_table_at_each_second(node, ddb):
    name = indexed_table(ddb)
    ddb.put_item(TableName=name, Item=item("a", "1", g="x", l="1"))
    pitr(ddb, name, True)
    ddb.put_item(TableName=name, Item=item("b", "1", g="x", l="2"))
    first = second_after(node)
    ddb.update_item(TableName=name, Key={"pk": {"S": "a"}, "sk": {"S": "1"}},
                    UpdateExpression="SET g = :g", ExpressionAttributeValues={":g": {"S": "y"}})
    ddb.delete_item(TableName=name, Key={"pk": {"S": "b"}, "sk": {"S": "1"}})
    ddb.put_item(TableName=name, Item=item("c", "1", l="3"))
    second = second_after(node)
    ddb.put_item(TableName=name, Item=item("d", "1"))
    earliest, latest = window(ddb, name)
    assert latest < second  # five minutes have not passed
    advance(node, 300)
    earliest_now, latest = window(ddb, name)
    assert earliest_now == earliest and latest >= second + 1
    at_first = [item("a", "1", g="x", l="1"), item("b", "1", g="x", l="2")]
    assert restore(ddb, name, first) == at_first
    at_second = [item("a", "1", g="y", l="1"), item("c", "1", l="3")]
    target_items = restore(ddb, name, second)
    assert target_items == at_second
    assert restore(ddb, name, None) == at_second + [item("d", "1")]
    assert restore(ddb, name, earliest) == [item("a", "1", g="x", l="1")]
    # the indexes of a restored table hold the entries of that time
    target = unique_name("pitr")
    ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=target,
                                       RestoreDateTime=at(first))
    table = restored(ddb, target)
    source = ddb.describe_table(TableName=name)["Table"]
    for member in ("KeySchema", "AttributeDefinitions"):
        assert table[member] == source[member], member
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        assert [(i["IndexName"], i["KeySchema"], i["Projection"]) for i in table[kind]] == [
            (i["IndexName"], i["KeySchema"], i["Projection"]) for i in source[kind]]
    assert table["RestoreSummary"]["RestoreDateTime"].timestamp() == first
    assert table["RestoreSummary"]["SourceTableArn"] == ddb.describe_table(
        TableName=name)["Table"]["TableArn"]
    by_g = ddb.query(TableName=target, IndexName="by_g", KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": {"S": "x"}})["Items"]
    assert sorted(i["pk"]["S"] for i in by_g) == ["a", "b"]
    by_l = ddb.query(TableName=target, IndexName="by_l", KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": {"S": "b"}})["Items"]
    assert by_l == [{"pk": {"S": "b"}, "sk": {"S": "1"}, "l": {"S": "2"}}]
    # not restored: point-in-time recovery itself
    assert ddb.describe_continuous_backups(TableName=target)["ContinuousBackupsDescription"][
        "PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}


def test_times_outside_the_window_are_refused(node, ddb, make_table_here):
    name = make_table_here()
    pitr(ddb, name, True, RecoveryPeriodInDays=1)
    advance(node, 2 * DAY)
    earliest, latest = window(ddb, name)
    now = advance(node, 0)
    assert abs(earliest - (now - DAY)) < 2 and abs(latest - (now - 300)) < 2
    for when in (earliest - 10, latest + 10):
        with pytest.raises(ClientError) as caught:
            ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=unique_name(),
                                               RestoreDateTime=at(when))
        assert error_of(caught)[0] == "InvalidRestoreTimeException"
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=name,
                                           UseLatestRestorableTime=True)
    assert error_of(caught) == ("TableAlreadyExistsException", f"Table already exists: {name}")


def test_errors_without_recovery_or_table(ddb, make_table_here):
    name = make_table_here()
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=unique_name(),
                                           UseLatestRestorableTime=True)
    assert error_of(caught)[0] == "PointInTimeRecoveryUnavailableException"
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_to_point_in_time(SourceTableName="never-was", TargetTableName="x-y-z",
                                           UseLatestRestorableTime=True)
    assert error_of(caught) == ("TableNotFoundException", "Table not found: never-was")


def test_a_deleted_table_is_restored(node, ddb, make_table_here):
    name = make_table_here()
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    pitr(ddb, name, True)
    ddb.put_item(TableName=name, Item={"pk": {"S": "kept"}})
    middle = second_after(node)
    ddb.put_item(TableName=name, Item={"pk": {"S": "last"}})
    advance(node, 1)
    ddb.delete_table(TableName=name)
    advance(node, 400)
    system = wait_for(lambda: ddb.list_backups(TableName=name, BackupType="SYSTEM")[
        "BackupSummaries"], "system backup")
    assert [b["BackupType"] for b in system] == ["SYSTEM"]
    assert system[0]["BackupStatus"] == "AVAILABLE" and "BackupExpiryDateTime" in system[0]
    assert ddb.list_backups(TableName=name)["BackupSummaries"] == []  # USER by default
    assert restore(ddb, name, middle, SourceTableArn=arn) == [{"pk": {"S": "kept"}}]
    assert restore(ddb, name, None, SourceTableArn=arn) == [
        {"pk": {"S": "kept"}}, {"pk": {"S": "last"}}]
    target = unique_name("sys")
    ddb.restore_table_from_backup(TargetTableName=target, BackupArn=system[0]["BackupArn"])
    restored(ddb, target)
    assert scan_all(ddb, target) == [{"pk": {"S": "kept"}}, {"pk": {"S": "last"}}]


@pytest.fixture
def make_table_here(ddb):
    def make() -> str:
        name = unique_name()
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        return name
    return make
