"""CreateTable, DescribeTable, ListTables and DeleteTable: the table life cycle."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import error_of, examples, unique_name

HASH = [{"AttributeName": "pk", "KeyType": "HASH"}]
PK = [{"AttributeName": "pk", "AttributeType": "S"}]


def test_create_on_demand_table_is_described(ddb):
    name = unique_name()
    created = ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                               BillingMode="PAY_PER_REQUEST")["TableDescription"]
    assert created["TableStatus"] == "CREATING"
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.1})
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert table["TableName"] == name
    assert table["KeySchema"] == HASH
    assert table["AttributeDefinitions"] == PK
    assert table["TableArn"] == f"arn:aws:dynamodb:us-east-1:000000000000:table/{name}"
    assert table["TableId"] == created["TableId"]
    assert table["CreationDateTime"] == created["CreationDateTime"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert table["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0,
                                              "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    assert (table["ItemCount"], table["TableSizeBytes"]) == (0, 0)
    assert table["DeletionProtectionEnabled"] is False


def test_create_provisioned_table_with_sort_key(ddb):
    name = unique_name()
    ddb.create_table(TableName=name,
                     KeySchema=HASH + [{"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=PK + [{"AttributeName": "sk", "AttributeType": "N"}],
                     ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 7})
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0,
                                              "ReadCapacityUnits": 5, "WriteCapacityUnits": 7}
    assert "BillingModeSummary" not in table
    assert [k["AttributeName"] for k in table["KeySchema"]] == ["pk", "sk"]


def test_create_existing_table(ddb, table):
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(TableName=table, KeySchema=HASH, AttributeDefinitions=PK,
                         BillingMode="PAY_PER_REQUEST")
    assert error_of(excinfo) == ("ResourceInUseException", f"Table already exists: {table}")


def test_tables_are_per_region(server, table):
    other = server.client(region="eu-west-1")
    assert table not in other.list_tables()["TableNames"]
    with pytest.raises(ClientError) as excinfo:
        other.describe_table(TableName=table)
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 f"Requested resource not found: Table: {table} not found")


def test_describe_by_arn(ddb, table):
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    assert ddb.describe_table(TableName=arn)["Table"]["TableName"] == table


def test_describe_missing_table(ddb):
    with pytest.raises(ClientError) as excinfo:
        ddb.describe_table(TableName="no-such-table")
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 "Requested resource not found: Table: no-such-table not found")


def test_delete_table(ddb, table):
    deleted = ddb.delete_table(TableName=table)["TableDescription"]
    assert deleted["TableStatus"] == "DELETING"
    assert deleted["TableName"] == table
    ddb.get_waiter("table_not_exists").wait(TableName=table, WaiterConfig={"Delay": 0.1})
    assert table not in ddb.list_tables()["TableNames"]
    with pytest.raises(ClientError) as excinfo:
        ddb.delete_table(TableName=table)
    assert error_of(excinfo) == ("ResourceNotFoundException",
                                 f"Requested resource not found: Table: {table} not found")


def test_delete_table_description_omits_schema_and_indexes(ddb):
    """Recorded: DeleteTable's TableDescription has no CreationDateTime, KeySchema,
    AttributeDefinitions, GlobalSecondaryIndexes nor LocalSecondaryIndexes."""
    name = unique_name()
    schema = HASH + [{"AttributeName": "sk", "KeyType": "RANGE"}]
    defined = PK + [{"AttributeName": "sk", "AttributeType": "S"},
                    {"AttributeName": "g", "AttributeType": "S"}]
    ddb.create_table(
        TableName=name, KeySchema=schema, AttributeDefinitions=defined,
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[{"IndexName": "byg",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        LocalSecondaryIndexes=[{"IndexName": "local",
                                "KeySchema": HASH + [{"AttributeName": "g", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.1})
    deleted = ddb.delete_table(TableName=name)["TableDescription"]
    assert (deleted["TableName"], deleted["TableStatus"]) == (name, "DELETING")
    for member in ("CreationDateTime", "KeySchema", "AttributeDefinitions",
                   "GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
        assert member not in deleted, member


def test_deleted_name_can_be_reused(ddb, make_table):
    name = make_table()
    ddb.delete_table(TableName=name)
    ddb.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                     BillingMode="PAY_PER_REQUEST")
    assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"


def test_list_tables_pages_in_name_order(server):
    client = server.client(region="ap-south-2")  # a region no other test uses
    names = sorted(unique_name() for _ in range(5))
    for name in reversed(names):
        client.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                            BillingMode="PAY_PER_REQUEST")
    assert client.list_tables()["TableNames"] == names
    first = client.list_tables(Limit=2)
    assert first["TableNames"] == names[:2]
    assert first["LastEvaluatedTableName"] == names[1]
    rest = client.list_tables(ExclusiveStartTableName=first["LastEvaluatedTableName"], Limit=3)
    assert rest["TableNames"] == names[2:]
    assert "LastEvaluatedTableName" not in rest
    paged = [n for page in client.get_paginator("list_tables").paginate(
        PaginationConfig={"PageSize": 2}) for n in page["TableNames"]]
    assert paged == names


@pytest.fixture(scope="module")
def listed(server) -> tuple:
    """A client of a region holding only seven tables, and their names in order."""
    client = server.client(region="sa-east-1")
    names = sorted(unique_name() for _ in range(7))
    for name in names:
        client.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                            BillingMode="PAY_PER_REQUEST")
    return client, names


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.integers(1, 9), start=st.one_of(st.none(), st.text("abt-0123456789", min_size=3)))
def test_list_tables_page_is_the_next_names(listed, limit, start):
    client, names = listed
    request = {"Limit": limit} if start is None else {"Limit": limit, "ExclusiveStartTableName": start}
    page = client.list_tables(**request)
    after = [n for n in names if start is None or n > start]
    assert page["TableNames"] == after[:limit]
    assert page.get("LastEvaluatedTableName") == (after[limit - 1] if len(after) > limit else None)
