"""UpdateTable and DeleteTable's refusals: billing, throughput, stream, settings."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name

HASH = [{"AttributeName": "pk", "KeyType": "HASH"}]
PK = [{"AttributeName": "pk", "AttributeType": "S"}]
INVALID = "One or more parameter values were invalid: "
NOTHING = ("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
           "GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, "
           "MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, "
           "DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is "
           "required")  # recorded
G_INDEX = {"IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
           "Projection": {"ProjectionType": "KEYS_ONLY"}}


@pytest.fixture
def provisioned(ddb) -> str:
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                     ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    return name


def update_error(ddb, **request) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(**request)
    return error_of(excinfo)


def throughput(read: int, write: int) -> dict:
    return {"ReadCapacityUnits": read, "WriteCapacityUnits": write}


def test_nothing_to_update(ddb, table):
    assert update_error(ddb, TableName=table) == (
        "ValidationException", NOTHING)


def test_empty_index_updates_change_nothing(ddb, table):
    """Recorded: an empty GlobalSecondaryIndexUpdates counts as absent; beside a change it
    is refused, and the change is not applied."""
    assert update_error(ddb, TableName=table, GlobalSecondaryIndexUpdates=[]) == (
        "ValidationException", NOTHING)
    assert update_error(ddb, TableName=table, GlobalSecondaryIndexUpdates=[],
                        DeletionProtectionEnabled=True) == (
        "ValidationException", INVALID + "List of GlobalSecondaryIndexUpdates is empty")
    assert ddb.describe_table(TableName=table)["Table"]["DeletionProtectionEnabled"] is False


def test_index_update_with_two_actions(ddb, table):
    assert update_error(ddb, TableName=table, AttributeDefinitions=[
        {"AttributeName": "g", "AttributeType": "S"}], GlobalSecondaryIndexUpdates=[
        {"Create": G_INDEX, "Delete": {"IndexName": "byg"}}]) == (
        "ValidationException", INVALID + "Only one global secondary index action is allowed per "
        "GlobalSecondaryIndexUpdate object")  # recorded
    assert update_error(ddb, TableName=table, GlobalSecondaryIndexUpdates=[{}]) == (
        "ValidationException", INVALID + "One of GlobalSecondaryIndexUpdate.Update, "
        "GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")


def test_index_may_not_redefine_an_attribute(ddb):
    """Recorded: a new index giving an indexed attribute another type."""
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=PK + [{"AttributeName": "g", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[G_INDEX])
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.1})
    assert update_error(ddb, TableName=name, AttributeDefinitions=[
        {"AttributeName": "g", "AttributeType": "N"}], GlobalSecondaryIndexUpdates=[
        {"Create": dict(G_INDEX, IndexName="byg2")}]) == (
        "ValidationException", INVALID + "Attributes cannot be redefined. Please check that your "
        "attribute has the same type as previously defined. Existing schema: "
        "Schema:[SchemaElement: key{g:S:HASH}] New schema: Schema:[SchemaElement: key{g:N:HASH}]")


def test_update_missing_table(ddb):
    assert update_error(ddb, TableName="no-such-table", DeletionProtectionEnabled=True) == (
        "ResourceNotFoundException", "Requested resource not found: Table: no-such-table not found")


def test_increase_then_decrease_throughput(ddb, provisioned):
    updated = ddb.update_table(TableName=provisioned, ProvisionedThroughput=throughput(10, 5))
    assert updated["TableDescription"]["TableStatus"] == "UPDATING"
    ddb.get_waiter("table_exists").wait(TableName=provisioned, WaiterConfig={"Delay": 0.1})
    summary = ddb.describe_table(TableName=provisioned)["Table"]["ProvisionedThroughput"]
    assert (summary["ReadCapacityUnits"], summary["WriteCapacityUnits"]) == (10, 5)
    assert "LastIncreaseDateTime" in summary and "LastDecreaseDateTime" not in summary
    assert summary["NumberOfDecreasesToday"] == 0
    ddb.update_table(TableName=provisioned, ProvisionedThroughput=throughput(10, 1))
    summary = ddb.describe_table(TableName=provisioned)["Table"]["ProvisionedThroughput"]
    assert summary["NumberOfDecreasesToday"] == 1
    assert summary["LastDecreaseDateTime"] >= summary["LastIncreaseDateTime"]


def test_unchanged_throughput(ddb, provisioned):
    assert update_error(ddb, TableName=provisioned, ProvisionedThroughput=throughput(5, 5)) == (
        "ValidationException", "The provisioned throughput for the table will not change. The "
        "requested value equals the current value. Current ReadCapacityUnits provisioned for the "
        "table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the "
        "table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide "
        "for current limits and how to request higher limits.")


def test_switch_billing_modes(ddb, provisioned):
    ddb.update_table(TableName=provisioned, BillingMode="PAY_PER_REQUEST")
    table = ddb.describe_table(TableName=provisioned)["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "LastUpdateToPayPerRequestDateTime" in table["BillingModeSummary"]
    assert (table["ProvisionedThroughput"]["ReadCapacityUnits"],
            table["ProvisionedThroughput"]["WriteCapacityUnits"]) == (0, 0)
    assert update_error(ddb, TableName=provisioned, ProvisionedThroughput=throughput(1, 1)) == (
        "ValidationException", INVALID + "Neither ReadCapacityUnits nor WriteCapacityUnits can be "
        "specified when BillingMode is PAY_PER_REQUEST")
    assert update_error(ddb, TableName=provisioned, BillingMode="PROVISIONED") == (
        "ValidationException", INVALID + "ReadCapacityUnits and WriteCapacityUnits must both be "
        "specified when BillingMode is PROVISIONED")
    ddb.update_table(TableName=provisioned, BillingMode="PROVISIONED",
                     ProvisionedThroughput=throughput(2, 3))
    table = ddb.describe_table(TableName=provisioned)["Table"]
    assert table["BillingModeSummary"] == {"BillingMode": "PROVISIONED"}
    assert (table["ProvisionedThroughput"]["ReadCapacityUnits"],
            table["ProvisionedThroughput"]["WriteCapacityUnits"]) == (2, 3)


def test_enable_and_disable_stream(ddb, table):
    ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": True,
                                                           "StreamViewType": "KEYS_ONLY"})
    described = ddb.describe_table(TableName=table)["Table"]
    assert described["StreamSpecification"] == {"StreamEnabled": True,
                                                "StreamViewType": "KEYS_ONLY"}
    arn = described["LatestStreamArn"]
    assert update_error(ddb, TableName=table, StreamSpecification={
        "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}) == (
        "ValidationException", f"Table already has an enabled stream: TableName: {table}")
    ddb.update_table(TableName=table, StreamSpecification={"StreamEnabled": False})
    described = ddb.describe_table(TableName=table)["Table"]
    assert "StreamSpecification" not in described
    assert described["LatestStreamArn"] == arn
    assert update_error(ddb, TableName=table, StreamSpecification={"StreamEnabled": False}) == (
        "ValidationException", f"Table has no stream to disable: TableName: {table}")
    assert update_error(ddb, TableName=table, StreamSpecification={
        "StreamEnabled": False, "StreamViewType": "KEYS_ONLY"}) == (
        "ValidationException", INVALID + "You cannot specify a StreamViewType when disabling a "
        "stream")


def test_table_class_sse_and_deletion_protection(ddb, table):
    ddb.update_table(TableName=table, TableClass="STANDARD_INFREQUENT_ACCESS")
    ddb.update_table(TableName=table, SSESpecification={"Enabled": True})
    updated = ddb.update_table(TableName=table, DeletionProtectionEnabled=True)
    assert updated["TableDescription"]["TableStatus"] == "ACTIVE"
    described = ddb.describe_table(TableName=table)["Table"]
    assert described["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    assert "LastUpdateDateTime" in described["TableClassSummary"]
    assert described["SSEDescription"] == {
        "Status": "ENABLED", "SSEType": "KMS",
        "KMSMasterKeyArn": "arn:aws:kms:us-east-1:000000000000:alias/aws/dynamodb"}
    assert described["DeletionProtectionEnabled"] is True


def test_deletion_protection_refuses_delete(ddb, table):
    ddb.update_table(TableName=table, DeletionProtectionEnabled=True)
    with pytest.raises(ClientError) as excinfo:
        ddb.delete_table(TableName=table)
    assert error_of(excinfo) == (
        "ValidationException", "Resource cannot be deleted as it is currently protected against "
        "deletion. Disable deletion protection first.")
    ddb.update_table(TableName=table, DeletionProtectionEnabled=False)
    assert ddb.delete_table(TableName=table)["TableDescription"]["TableStatus"] == "DELETING"


def test_on_demand_switch_zeroes_index_throughput(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=HASH, ProvisionedThroughput=throughput(2, 2),
                     AttributeDefinitions=PK + [{"AttributeName": "g", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "byg", "Projection": {"ProjectionType": "ALL"},
                         "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                         "ProvisionedThroughput": throughput(3, 3)}])
    ddb.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")
    index = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert index["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0,
                                              "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    # and back: each index needs its capacity in the same request, as the table does
    assert update_error(ddb, TableName=name, BillingMode="PROVISIONED",
                        ProvisionedThroughput=throughput(1, 1)) == (
        "ValidationException", INVALID + "ProvisionedThroughput must be specified for index: byg")
    ddb.update_table(TableName=name, BillingMode="PROVISIONED",
                     ProvisionedThroughput=throughput(1, 1), GlobalSecondaryIndexUpdates=[
                         {"Update": {"IndexName": "byg", "ProvisionedThroughput": throughput(4, 5)}}])
    index = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert (index["ProvisionedThroughput"]["ReadCapacityUnits"],
            index["ProvisionedThroughput"]["WriteCapacityUnits"]) == (4, 5)


def test_attribute_definitions_alone_change_nothing(ddb, table):
    assert update_error(ddb, TableName=table, AttributeDefinitions=PK) == (
        "ValidationException", NOTHING)


def warm(read: int, write: int, status: str = "ACTIVE") -> dict:
    return {"ReadUnitsPerSecond": read, "WriteUnitsPerSecond": write, "Status": status}


def test_warm_throughput_starts_at_the_default_and_only_grows(ddb):
    """Developer guide, "Understanding DynamoDB warm throughput": a new table (and
    global index) starts at 12,000 reads and 4,000 writes a second; UpdateTable raises
    it, as does provisioned capacity above it."""
    name = unique_name()
    g = [{"AttributeName": "g", "AttributeType": "S"}]
    created = ddb.create_table(
        TableName=name, KeySchema=HASH, AttributeDefinitions=PK + g, BillingMode="PROVISIONED",
        ProvisionedThroughput=throughput(1, 1), WarmThroughput={"ReadUnitsPerSecond": 15000},
        GlobalSecondaryIndexes=[{
            "IndexName": "byg", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "ProvisionedThroughput": throughput(1, 1)}])["TableDescription"]
    assert created["WarmThroughput"] == warm(15000, 4000, "CREATING")
    ddb.update_table(TableName=name, WarmThroughput={"WriteUnitsPerSecond": 5000})
    ddb.update_table(TableName=name, ProvisionedThroughput=throughput(20000, 2))
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["WarmThroughput"] == warm(20000, 5000)
    assert table["GlobalSecondaryIndexes"][0]["WarmThroughput"] == warm(12000, 4000)
    ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Update": {
        "IndexName": "byg", "WarmThroughput": {"ReadUnitsPerSecond": 13000,
                                               "WriteUnitsPerSecond": 4500}}}])
    index = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert index["WarmThroughput"] == warm(13000, 4500)
    code, _ = update_error(ddb, TableName=name, WarmThroughput={"ReadUnitsPerSecond": 12000})
    assert code == "ValidationException"
    assert ddb.describe_table(TableName=name)["Table"]["WarmThroughput"] == warm(20000, 5000)


def test_on_demand_maximums(ddb):
    name = unique_name()
    g = [{"AttributeName": "g", "AttributeType": "S"}]
    ddb.create_table(
        TableName=name, KeySchema=HASH, AttributeDefinitions=PK + g,
        BillingMode="PAY_PER_REQUEST", OnDemandThroughput={"MaxReadRequestUnits": 10},
        GlobalSecondaryIndexes=[{
            "IndexName": "byg", "Projection": {"ProjectionType": "ALL"},
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "OnDemandThroughput": {"MaxWriteRequestUnits": 7}}])
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["OnDemandThroughput"] == {"MaxReadRequestUnits": 10}
    assert table["GlobalSecondaryIndexes"][0]["OnDemandThroughput"] == {"MaxWriteRequestUnits": 7}
    ddb.update_table(TableName=name, OnDemandThroughput={"MaxReadRequestUnits": -1,
                                                         "MaxWriteRequestUnits": 50})
    ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Update": {
        "IndexName": "byg", "OnDemandThroughput": {"MaxReadRequestUnits": 5}}}])
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["OnDemandThroughput"] == {"MaxReadRequestUnits": -1, "MaxWriteRequestUnits": 50}
    # a member left out keeps its value
    assert table["GlobalSecondaryIndexes"][0]["OnDemandThroughput"] == {
        "MaxReadRequestUnits": 5, "MaxWriteRequestUnits": 7}
    ddb.update_table(TableName=name, OnDemandThroughput={"MaxReadRequestUnits": 20})
    assert ddb.describe_table(TableName=name)["Table"]["OnDemandThroughput"] == {
        "MaxReadRequestUnits": 20, "MaxWriteRequestUnits": 50}
    # provisioned capacity has no on-demand maximums
    ddb.update_table(TableName=name, BillingMode="PROVISIONED",
                     ProvisionedThroughput=throughput(1, 1), GlobalSecondaryIndexUpdates=[
                         {"Update": {"IndexName": "byg", "ProvisionedThroughput": throughput(1, 1)}}])
    table = ddb.describe_table(TableName=name)["Table"]
    assert "OnDemandThroughput" not in table
    assert "OnDemandThroughput" not in table["GlobalSecondaryIndexes"][0]
    code, _ = update_error(ddb, TableName=name, OnDemandThroughput={"MaxReadRequestUnits": 5})
    assert code == "ValidationException"
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(TableName=unique_name(), KeySchema=HASH, AttributeDefinitions=PK,
                         ProvisionedThroughput=throughput(1, 1),
                         OnDemandThroughput={"MaxReadRequestUnits": 5})
    assert error_of(excinfo)[0] == "ValidationException"


def test_null_warm_throughput_members_are_absent(server):
    """A JSON null member is an absent one (it once reached a comparison: a 500)."""
    name = unique_name()
    reply = server.post("CreateTable", {
        "TableName": name, "KeySchema": HASH, "AttributeDefinitions": PK,
        "BillingMode": "PAY_PER_REQUEST",
        "WarmThroughput": {"ReadUnitsPerSecond": None, "WriteUnitsPerSecond": 5000}})
    assert reply.status == 200
    assert reply.json["TableDescription"]["WarmThroughput"] == warm(12000, 5000, "CREATING")
    reply = server.post("UpdateTable", {"TableName": name,
                                        "WarmThroughput": {"ReadUnitsPerSecond": None}})
    assert reply.status == 200
    # the reply's statuses agree: the table and its warm throughput are both UPDATING
    assert reply.json["TableDescription"]["WarmThroughput"] == warm(12000, 5000, "UPDATING")
