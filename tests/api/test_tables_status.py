"""Table status over time (CREATING, UPDATING, DELETING with a status delay),
DescribeLimits and DescribeEndpoints."""
from __future__ import annotations

import time

import boto3
import pytest
from botocore.exceptions import ClientError

from conftest import Server, error_of, unique_name

DELAY = 0.6
HASH = [{"AttributeName": "pk", "KeyType": "HASH"}]
PK = [{"AttributeName": "pk", "AttributeType": "S"}]


@pytest.fixture(scope="module")
def slow():
    """A server whose tables take DELAY seconds to change status."""
    instance = Server("--status-delay", str(DELAY))
    yield instance.client()
    instance.stop()


def failure(call, **request) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**request)
    return error_of(excinfo)


def create(client) -> str:
    name = unique_name()
    client.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                        BillingMode="PAY_PER_REQUEST")
    return name


def test_creating_until_the_delay_passes(slow):
    name = create(slow)
    assert slow.describe_table(TableName=name)["Table"]["TableStatus"] == "CREATING"
    assert failure(slow.delete_table, TableName=name) == (
        "ResourceInUseException",
        f"Attempt to change a resource which is still in use: Table is being created: {name}")
    assert failure(slow.update_table, TableName=name, BillingMode="PROVISIONED",
                   ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}) == (
        "ResourceInUseException",
        f"Attempt to change a resource which is still in use: Table is being created: {name}")
    # the TTL and tag settings of a table being created, with the same message
    arn = slow.describe_table(TableName=name)["Table"]["TableArn"]
    for call, request in ((slow.update_time_to_live, {"TableName": name, "TimeToLiveSpecification": {
            "Enabled": True, "AttributeName": "e"}}), (slow.tag_resource, {
            "ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]})):
        assert failure(call, **request) == (
            "ResourceInUseException",
            f"Attempt to change a resource which is still in use: Table is being created: {name}")
    slow.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 0.2})
    assert slow.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"


def test_updating_then_active(slow):
    name = create(slow)
    time.sleep(DELAY)
    slow.update_table(TableName=name, TableClass="STANDARD_INFREQUENT_ACCESS")
    assert slow.describe_table(TableName=name)["Table"]["TableStatus"] == "UPDATING"
    assert failure(slow.update_table, TableName=name, TableClass="STANDARD") == (
        "ResourceInUseException",
        f"Attempt to change a resource which is still in use: Table is being updated: {name}")
    time.sleep(DELAY)
    assert slow.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"


def test_deleting_keeps_the_name_until_the_delay_passes(slow):
    name = create(slow)
    time.sleep(DELAY)
    slow.delete_table(TableName=name)
    assert slow.describe_table(TableName=name)["Table"]["TableStatus"] == "DELETING"
    assert name in slow.list_tables()["TableNames"]
    assert slow.delete_table(TableName=name)["TableDescription"]["TableStatus"] == "DELETING"
    assert failure(slow.create_table, TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                   BillingMode="PAY_PER_REQUEST") == (
        "ResourceInUseException", f"Table already exists: {name}")
    slow.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig={"Delay": 0.2})
    assert name not in slow.list_tables()["TableNames"]


def test_describe_limits(ddb):
    limits = ddb.describe_limits()
    del limits["ResponseMetadata"]
    assert limits == {"AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
                      "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000}


def test_describe_endpoints_gives_a_usable_address(server, ddb, table):
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints == [{"Address": f"127.0.0.1:{server.port}", "CachePeriodInMinutes": 1440}]
    client = boto3.client("dynamodb", endpoint_url=f"http://{endpoints[0]['Address']}",
                          region_name="us-east-1", aws_access_key_id="a",
                          aws_secret_access_key="b")
    assert client.describe_table(TableName=table)["Table"]["TableName"] == table
