"""On-demand backups through boto3 (API reference: CreateBackup, DescribeBackup,
ListBackups, DeleteBackup, RestoreTableFromBackup): a backup is CREATING, then
AVAILABLE with its real size; it holds the table as of the CreateBackup call even
while writes go on, outlives its table, and restores into a new table with the
source's indexes and settings or the request's overrides."""
from __future__ import annotations

import random
import threading
import time

import pytest
from botocore.exceptions import ClientError
from conftest import error_of, unique_name

GSI = {"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
       "Projection": {"ProjectionType": "ALL"}}
LSI = {"IndexName": "by_l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                          {"AttributeName": "l", "KeyType": "RANGE"}],
       "Projection": {"ProjectionType": "KEYS_ONLY"}}


def indexed_table(ddb, **extra) -> str:
    name = unique_name()
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                              for n in ("pk", "sk", "g", "l")],
        GlobalSecondaryIndexes=[GSI], LocalSecondaryIndexes=[LSI], **extra)
    return name


def item(pk: str, sk: str, **more) -> dict:
    return {"pk": {"S": pk}, "sk": {"S": sk}, **{k: {"S": v} for k, v in more.items()}}


def wait_for(check, what: str, timeout: float = 60.0):
    """Poll a background job's outcome (it runs on the server's own time; a backup
    took over 20 s at load 17 on 2 cores)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.02)
    raise AssertionError(f"{what} did not happen within {timeout} s")


def available(ddb, arn: str) -> dict:
    def check():
        described = ddb.describe_backup(BackupArn=arn)["BackupDescription"]
        return described if described["BackupDetails"]["BackupStatus"] == "AVAILABLE" else None
    return wait_for(check, "backup AVAILABLE")


def restored(ddb, name: str) -> dict:
    def check():
        table = ddb.describe_table(TableName=name)["Table"]
        return table if table["TableStatus"] == "ACTIVE" else None
    return wait_for(check, "restore")


def scan_all(ddb, name: str, **extra) -> list[dict]:
    items, start = [], {}
    while True:
        page = ddb.scan(TableName=name, ConsistentRead=True, **extra, **start)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return sorted(items, key=lambda i: (i["pk"]["S"], i.get("sk", {}).get("S", "")))
        start = {"ExclusiveStartKey": page["LastEvaluatedKey"]}


def test_backup_describes_its_table_and_restores_it_after_the_table_is_gone(ddb):
    name = indexed_table(ddb, SSESpecification={"Enabled": True},
                         StreamSpecification={"StreamEnabled": True,
                                              "StreamViewType": "NEW_IMAGE"},
                         Tags=[{"Key": "team", "Value": "a"}])
    for n in range(5):
        ddb.put_item(TableName=name, Item=item(f"p{n % 2}", f"s{n}", g=f"g{n % 3}", l=f"l{n}"))
    table = ddb.describe_table(TableName=name)["Table"]
    before = time.time()
    details = ddb.create_backup(TableName=name, BackupName="nightly")["BackupDetails"]
    assert details["BackupName"] == "nightly" and details["BackupType"] == "USER"
    assert details["BackupStatus"] in ("CREATING", "AVAILABLE")
    assert details["BackupArn"].startswith(table["TableArn"] + "/backup/")
    assert before - 1 <= details["BackupCreationDateTime"].timestamp() <= time.time() + 1
    # written after CreateBackup answered: not in the backup
    ddb.put_item(TableName=name, Item=item("p9", "late", g="g9", l="l9"))
    ddb.delete_item(TableName=name, Key={"pk": {"S": "p0"}, "sk": {"S": "s0"}})
    described = available(ddb, details["BackupArn"])
    assert described["BackupDetails"]["BackupSizeBytes"] == table["TableSizeBytes"] > 0
    source = described["SourceTableDetails"]
    assert (source["TableName"], source["TableId"], source["TableArn"]) == (
        name, table["TableId"], table["TableArn"])
    assert source["ItemCount"] == 5 and source["TableSizeBytes"] == table["TableSizeBytes"]
    assert source["KeySchema"] == table["KeySchema"] and source["BillingMode"] == "PAY_PER_REQUEST"
    features = described["SourceTableFeatureDetails"]
    assert [i["IndexName"] for i in features["GlobalSecondaryIndexes"]] == ["by_g"]
    assert features["LocalSecondaryIndexes"] == [LSI]
    assert features["StreamDescription"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
    assert features["SSEDescription"]["Status"] == "ENABLED"

    original = scan_all(ddb, name)
    ddb.delete_table(TableName=name)
    target = unique_name("restored")
    reply = ddb.restore_table_from_backup(TargetTableName=target,
                                          BackupArn=details["BackupArn"])["TableDescription"]
    assert reply["TableStatus"] == "CREATING"
    assert reply["RestoreSummary"]["SourceBackupArn"] == details["BackupArn"]
    assert reply["RestoreSummary"]["SourceTableArn"] == table["TableArn"]
    assert reply["RestoreSummary"]["RestoreInProgress"] is True
    done = restored(ddb, target)
    assert done["RestoreSummary"]["RestoreInProgress"] is False
    assert done["RestoreSummary"]["RestoreDateTime"] == details["BackupCreationDateTime"]
    assert done["ItemCount"] == 5 and done["TableSizeBytes"] == table["TableSizeBytes"]
    assert done["SSEDescription"] == table["SSEDescription"]
    # not restored: streams, tags, deletion protection
    assert "StreamSpecification" not in done and "LatestStreamArn" not in done
    assert ddb.list_tags_of_resource(ResourceArn=done["TableArn"])["Tags"] == []
    assert [i["IndexStatus"] for i in done["GlobalSecondaryIndexes"]] == ["ACTIVE"]
    expected = [i for i in original if not (i["pk"]["S"] == "p9")]
    expected.append(item("p0", "s0", g="g0", l="l0"))
    assert scan_all(ddb, target) == sorted(expected, key=lambda i: (i["pk"]["S"], i["sk"]["S"]))
    by_g = ddb.query(TableName=target, IndexName="by_g", KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": {"S": "g0"}})["Items"]
    assert sorted(i["sk"]["S"] for i in by_g) == ["s0", "s3"]
    by_l = ddb.query(TableName=target, IndexName="by_l",
                     KeyConditionExpression="pk = :p AND l > :l",
                     ExpressionAttributeValues={":p": {"S": "p1"}, ":l": {"S": "l1"}})["Items"]
    assert [i["sk"]["S"] for i in by_l] == ["s3"]


def test_restore_overrides(ddb):
    name = indexed_table(ddb)
    ddb.put_item(TableName=name, Item=item("a", "1", g="x", l="y", h="z"))
    arn = ddb.create_backup(TableName=name, BackupName="bkp")["BackupDetails"]["BackupArn"]
    available(ddb, arn)
    target = unique_name("over")
    h_index = {"IndexName": "by_h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
               "Projection": {"ProjectionType": "KEYS_ONLY"},
               "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}
    with pytest.raises(ClientError) as caught:  # h is not defined by the source
        ddb.restore_table_from_backup(
            TargetTableName=target, BackupArn=arn, GlobalSecondaryIndexOverride=[h_index])
    assert error_of(caught)[0] == "ValidationException"
    gsi = dict(GSI, ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 3})
    ddb.restore_table_from_backup(
        TargetTableName=target, BackupArn=arn, GlobalSecondaryIndexOverride=[gsi],
        LocalSecondaryIndexOverride=[], BillingModeOverride="PROVISIONED",
        ProvisionedThroughputOverride={"ReadCapacityUnits": 4, "WriteCapacityUnits": 5},
        SSESpecificationOverride={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": "my-key"})
    done = restored(ddb, target)
    assert done["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert (done["ProvisionedThroughput"]["ReadCapacityUnits"],
            done["ProvisionedThroughput"]["WriteCapacityUnits"]) == (4, 5)
    assert "LocalSecondaryIndexes" not in done
    assert done["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"] == 2
    assert done["SSEDescription"]["KMSMasterKeyArn"].endswith(":key/my-key")
    assert sorted(a["AttributeName"] for a in done["AttributeDefinitions"]) == ["g", "pk", "sk"]
    assert scan_all(ddb, target) == [item("a", "1", g="x", l="y", h="z")]
    without = unique_name("bare")
    ddb.restore_table_from_backup(TargetTableName=without, BackupArn=arn,
                                  GlobalSecondaryIndexOverride=[],
                                  LocalSecondaryIndexOverride=[])
    bare = restored(ddb, without)
    assert "GlobalSecondaryIndexes" not in bare and "LocalSecondaryIndexes" not in bare


def test_list_backups_filters_and_pages(ddb, make_table):
    first, second = make_table(), make_table()
    start = time.time() - 1
    arns = []
    for n, table in enumerate([first, second, first]):
        if n == 1:  # boto3 sends whole seconds: the upper bound below must exclude only this one
            time.sleep(1 - time.time() % 1)
        arns.append(ddb.create_backup(TableName=table, BackupName=f"bk{n}")["BackupDetails"][
            "BackupArn"])
    for arn in arns:
        available(ddb, arn)
    listed = ddb.list_backups(TableName=first)["BackupSummaries"]
    assert [b["BackupArn"] for b in listed] == [arns[0], arns[2]]
    assert listed[0]["TableName"] == first and listed[0]["BackupStatus"] == "AVAILABLE"
    assert listed[0]["BackupType"] == "USER" and listed[0]["BackupSizeBytes"] == 0
    mine = [b["BackupArn"] for b in ddb.list_backups(TimeRangeLowerBound=start)["BackupSummaries"]
            if b["BackupArn"] in arns]
    assert mine == arns
    upper = ddb.describe_backup(BackupArn=arns[1])["BackupDescription"]["BackupDetails"][
        "BackupCreationDateTime"]
    below = [b["BackupArn"] for b in ddb.list_backups(
        TimeRangeLowerBound=start, TimeRangeUpperBound=upper)["BackupSummaries"]
             if b["BackupArn"] in arns]
    assert below == [arns[0]]
    assert ddb.list_backups(TableName=first, BackupType="SYSTEM")["BackupSummaries"] == []
    assert len(ddb.list_backups(TableName=first, BackupType="ALL")["BackupSummaries"]) == 2
    page = ddb.list_backups(TableName=first, Limit=1)
    assert [b["BackupArn"] for b in page["BackupSummaries"]] == [arns[0]]
    assert page["LastEvaluatedBackupArn"] == arns[0]
    rest = ddb.list_backups(TableName=first, Limit=1,
                            ExclusiveStartBackupArn=page["LastEvaluatedBackupArn"])
    assert [b["BackupArn"] for b in rest["BackupSummaries"]] == [arns[2]]
    assert "LastEvaluatedBackupArn" not in rest


def test_delete_backup(ddb, make_table):
    name = make_table()
    arn = ddb.create_backup(TableName=name, BackupName="gone")["BackupDetails"]["BackupArn"]
    available(ddb, arn)
    deleted = ddb.delete_backup(BackupArn=arn)["BackupDescription"]
    assert deleted["BackupDetails"]["BackupStatus"] == "DELETED"
    for call in (lambda: ddb.describe_backup(BackupArn=arn),
                 lambda: ddb.delete_backup(BackupArn=arn),
                 lambda: ddb.restore_table_from_backup(TargetTableName=unique_name(),
                                                       BackupArn=arn)):
        with pytest.raises(ClientError) as caught:
            call()
        assert error_of(caught) == ("BackupNotFoundException", f"Backup not found: {arn}")


def test_bad_input_errors(ddb, make_table):
    with pytest.raises(ClientError) as caught:
        ddb.create_backup(TableName="no-such-table", BackupName="xxx")
    assert error_of(caught) == ("TableNotFoundException", "Table not found: no-such-table")
    name = make_table()
    arn = ddb.create_backup(TableName=name, BackupName="xxx")["BackupDetails"]["BackupArn"]
    available(ddb, arn)
    with pytest.raises(ClientError) as caught:
        ddb.restore_table_from_backup(TargetTableName=name, BackupArn=arn)
    assert error_of(caught) == ("TableAlreadyExistsException", f"Table already exists: {name}")
    with pytest.raises(ClientError) as caught:
        ddb.create_backup(TableName=name, BackupName="bad name!")
    assert error_of(caught)[0] == "ValidationException"


def test_writes_during_a_backup_do_not_tear_it(ddb, make_table):
    """Transfers keep the total constant, and markers are written one after another:
    the backup holds a whole number of transfers and a prefix of the markers, none
    written after CreateBackup answered."""
    name = make_table()
    accounts = 700  # several copy chunks
    for start in range(0, accounts, 25):
        ddb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": f"a{n:04}"}, "v": {"N": "10"}}}}
            for n in range(start, min(start + 25, accounts))]})
    stop = threading.Event()
    markers = [0]
    rng = random.Random(7)

    failures: list[Exception] = []

    def write():
        try:
            transfer()
        except Exception as failure:  # a backup must never refuse a write
            failures.append(failure)

    def transfer():
        while not stop.is_set():
            x, y = rng.sample(range(accounts), 2)
            ddb.transact_write_items(TransactItems=[
                {"Update": {"TableName": name, "Key": {"pk": {"S": f"a{x:04}"}},
                            "UpdateExpression": "SET v = v - :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}}},
                {"Update": {"TableName": name, "Key": {"pk": {"S": f"a{y:04}"}},
                            "UpdateExpression": "SET v = v + :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}}}}])
            ddb.put_item(TableName=name, Item={"pk": {"S": f"m{markers[0]:06}"}})
            markers[0] += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        wait_for(lambda: markers[0] >= 5, "writes")
        before = markers[0]
        arn = ddb.create_backup(TableName=name, BackupName="busy")["BackupDetails"]["BackupArn"]
        after = markers[0]
        available(ddb, arn)
    finally:
        stop.set()
        writer.join()
    assert failures == []
    target = unique_name("busy")
    ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
    restored(ddb, target)
    items = scan_all(ddb, target)
    balances = [int(i["v"]["N"]) for i in items if i["pk"]["S"].startswith("a")]
    assert len(balances) == accounts and sum(balances) == 10 * accounts
    kept = sorted(i["pk"]["S"] for i in items if i["pk"]["S"].startswith("m"))
    assert kept == [f"m{n:06}" for n in range(len(kept))]
    assert before <= len(kept) <= after + 1
