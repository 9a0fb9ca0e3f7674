"""What the backup and point-in-time recovery operations share: finding the source
table (their errors differ from the table operations'), and the replies' descriptions."""
from __future__ import annotations

from okura import errors
from okura.core import backups, history, table_lookup
from okura.core.backups import CREATING, Backup
from okura.core.catalog import Table
from okura.core.context import Context


async def source_table(ctx: Context, value: str) -> Table:
    """The table a backup or point-in-time operation names: TableNotFoundException
    if there is none (these operations do not answer ResourceNotFoundException)."""
    return await table_lookup.any_status_table(ctx, value, errors.backup_table_not_found)


async def continuous_backups(ctx: Context, table: Table) -> dict:
    """ContinuousBackupsDescription: continuous backups are always on; point-in-time
    recovery with its window when enabled."""
    found = await history.of_table(ctx.db, table)
    if found is None:
        recovery: dict = {"PointInTimeRecoveryStatus": "DISABLED"}
    else:
        earliest, latest = found.window(ctx.clock.now())
        recovery = {"PointInTimeRecoveryStatus": "ENABLED",
                    "RecoveryPeriodInDays": found.doc["Period"],
                    "EarliestRestorableDateTime": earliest,
                    "LatestRestorableDateTime": latest}
    return {"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": recovery}


def _summary(doc: dict) -> dict:
    """ProvisionedThroughput as a backup's source details show it."""
    throughput = doc.get("ProvisionedThroughput") or {}
    return {"ReadCapacityUnits": throughput.get("ReadCapacityUnits", 0),
            "WriteCapacityUnits": throughput.get("WriteCapacityUnits", 0)}


def billing_mode(doc: dict) -> str:
    """A table document's billing mode (PROVISIONED unless it says otherwise)."""
    return doc.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED")


def backup_details(backup: Backup) -> dict:
    doc = backup.doc
    details = {"BackupArn": backup.arn, "BackupName": doc["Name"],
               "BackupStatus": doc["Status"], "BackupType": doc["Type"],
               "BackupCreationDateTime": doc["Created"]}
    if doc["Status"] != CREATING:
        details["BackupSizeBytes"] = doc["SizeBytes"]
    if "Expiry" in doc:
        details["BackupExpiryDateTime"] = round(doc["Expiry"], 3)
    return details


def backup_summary(backup: Backup) -> dict:
    """A ListBackups entry."""
    table = backup.doc["Table"]
    return {"TableName": table["TableName"], "TableId": table["TableId"],
            "TableArn": backup.doc["TableArn"], **backup_details(backup)}


def backup_description(backup: Backup, status: str | None = None) -> dict:
    """BackupDescription: the backup, its table as it was, and the table's features."""
    table = backup.doc["Table"]
    details = backup_details(backup)
    if status is not None:
        details["BackupStatus"] = status
    source = {"TableName": table["TableName"], "TableId": table["TableId"],
              "TableArn": backup.doc["TableArn"], "TableSizeBytes": backup.doc["SizeBytes"],
              "KeySchema": table["KeySchema"],
              "TableCreationDateTime": table["CreationDateTime"],
              "ProvisionedThroughput": _summary(table), "ItemCount": backup.doc["ItemCount"],
              "BillingMode": billing_mode(table)}
    if "OnDemandThroughput" in table:
        source["OnDemandThroughput"] = table["OnDemandThroughput"]
    features: dict = {}
    if table.get("LocalSecondaryIndexes"):
        features["LocalSecondaryIndexes"] = [
            {"IndexName": index["IndexName"], "KeySchema": index["KeySchema"],
             "Projection": index["Projection"]} for index in table["LocalSecondaryIndexes"]]
    if table.get("GlobalSecondaryIndexes"):
        features["GlobalSecondaryIndexes"] = [
            {"IndexName": index["IndexName"], "KeySchema": index["KeySchema"],
             "Projection": index["Projection"], "ProvisionedThroughput": _summary(index),
             **({"OnDemandThroughput": index["OnDemandThroughput"]}
                if "OnDemandThroughput" in index else {})}
            for index in table["GlobalSecondaryIndexes"]]
    if "StreamSpecification" in table:
        features["StreamDescription"] = table["StreamSpecification"]
    if "TimeToLive" in table:
        features["TimeToLiveDescription"] = {
            "TimeToLiveStatus": "ENABLED",
            "AttributeName": table["TimeToLive"]["AttributeName"]}
    if "SSEDescription" in table:
        features["SSEDescription"] = table["SSEDescription"]
    return {"BackupDetails": details, "SourceTableDetails": source,
            "SourceTableFeatureDetails": features}


async def existing_backup(ctx: Context, arn: str) -> Backup:
    backup = await backups.find(ctx.db, ctx.region, arn)
    if backup is None:
        raise errors.backup_error("BackupNotFoundException",
                                  f"Backup not found: {arn}")  # users' reports (DescribeBackup)
    return backup
