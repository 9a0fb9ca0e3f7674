"""UpdateContinuousBackups and DescribeContinuousBackups (API reference): continuous
backups are always on; point-in-time recovery is off until enabled, with a recovery
period of 1-35 days (35 when not given)."""
from __future__ import annotations

import time

import pytest
from botocore.exceptions import ClientError
from conftest import error_of


def pitr(ddb, name: str, enabled: bool, **extra) -> dict:
    spec = {"PointInTimeRecoveryEnabled": enabled, **extra}
    return ddb.update_continuous_backups(
        TableName=name, PointInTimeRecoverySpecification=spec)["ContinuousBackupsDescription"]


def test_recovery_is_off_until_enabled_and_reports_its_window(ddb, make_table):
    name = make_table()
    described = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert described == {"ContinuousBackupsStatus": "ENABLED",
                         "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}
    before = time.time()
    enabled = pitr(ddb, name, True)
    recovery = enabled["PointInTimeRecoveryDescription"]
    assert enabled["ContinuousBackupsStatus"] == "ENABLED"
    assert recovery["PointInTimeRecoveryStatus"] == "ENABLED"
    assert recovery["RecoveryPeriodInDays"] == 35
    earliest = recovery["EarliestRestorableDateTime"].timestamp()
    assert before - 1 <= earliest <= time.time() + 1
    # right after enabling there is no earlier point than the start
    assert recovery["LatestRestorableDateTime"] == recovery["EarliestRestorableDateTime"]
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    assert ddb.describe_continuous_backups(TableName=arn)["ContinuousBackupsDescription"] == enabled
    shorter = pitr(ddb, name, True, RecoveryPeriodInDays=7)["PointInTimeRecoveryDescription"]
    assert shorter["RecoveryPeriodInDays"] == 7
    assert shorter["EarliestRestorableDateTime"] == recovery["EarliestRestorableDateTime"]
    assert pitr(ddb, name, False)["PointInTimeRecoveryDescription"] == {
        "PointInTimeRecoveryStatus": "DISABLED"}
    assert "PointInTime" not in ddb.describe_table(TableName=name)["Table"]


@pytest.mark.parametrize("days,message", [
    (0, "1 validation error detected: Value '0' at "
        "'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy "
        "constraint: Member must have value greater than or equal to 1"),
    (36, "1 validation error detected: Value '36' at "
         "'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy "
         "constraint: Member must have value less than or equal to 35"),
])
def test_recovery_period_out_of_range(server, make_table, days, message):
    name = make_table()  # boto3 checks the range itself: sent raw
    reply = server.post("UpdateContinuousBackups", {
        "TableName": name, "PointInTimeRecoverySpecification": {
            "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": days}})
    assert reply.status == 400
    assert reply.json == {"__type": "com.amazon.coral.validate#ValidationException",
                          "message": message}


def test_a_missing_table_is_table_not_found(ddb):
    for call in (lambda: ddb.describe_continuous_backups(TableName="missing-table"),
                 lambda: pitr(ddb, "missing-table", True)):
        with pytest.raises(ClientError) as caught:
            call()
        assert error_of(caught) == ("TableNotFoundException", "Table not found: missing-table")
