"""A global table's replica statuses over time, with a status delay: CREATING while
its items are copied and for the delay, UPDATING after an override, DELETING for the
delay after its removal; no other change of the table meanwhile."""
from __future__ import annotations

import time

import pytest
from botocore.exceptions import ClientError

from conftest import Server, error_of, unique_name
from test_global_tables import AWAY, HASH, HOME, PK, admin, wait_active

DELAY = 3.0  # long enough for a loaded machine to look within it


@pytest.fixture(scope="module")
def slow():
    instance = Server("--status-delay", str(DELAY))
    yield instance.client(region=HOME), instance.client(region=AWAY)
    instance.stop()


def status(client, name: str) -> str:
    return client.describe_table(TableName=name)["Table"]["Replicas"][0]["ReplicaStatus"]


def test_replica_statuses_follow_the_delay(slow):
    home, away = slow
    name = unique_name()
    home.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                      BillingMode="PAY_PER_REQUEST")
    wait_active(home, name)
    home.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": AWAY}}])
    assert status(home, name) == "CREATING"
    assert away.describe_table(TableName=name)["Table"]["TableStatus"] == "CREATING"
    with pytest.raises(ClientError) as caught:
        away.put_item(TableName=name, Item={"pk": {"S": "a"}})  # a replica being created
    assert error_of(caught)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as caught:  # no other change meanwhile
        home.update_table(TableName=name, DeletionProtectionEnabled=True)
    assert error_of(caught) == (
        "ResourceInUseException",
        f"Attempt to change a resource which is still in use: Table is being updated: {name}")
    wait_active(home, name)
    home.update_table(TableName=name, ReplicaUpdates=[{"Update": {
        "RegionName": AWAY, "TableClassOverride": "STANDARD_INFREQUENT_ACCESS"}}])
    assert status(home, name) == "UPDATING"
    wait_active(home, name)
    home.update_table(TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": AWAY}}])
    assert status(home, name) == "DELETING"
    assert away.describe_table(TableName=name)["Table"]["TableStatus"] == "DELETING"
    while home.describe_table(TableName=name)["Table"]["Replicas"]:
        time.sleep(0.05)
    assert "GlobalTableVersion" not in home.describe_table(TableName=name)["Table"]


def test_a_replication_delay_from_the_start():
    server = Server("--replication-delay", "60")
    try:
        home, away = server.client(region=HOME), server.client(region=AWAY)
        name = unique_name()
        home.create_table(TableName=name, KeySchema=HASH, AttributeDefinitions=PK,
                          BillingMode="PAY_PER_REQUEST")
        home.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": AWAY}}])
        wait_active(away, name)
        home.put_item(TableName=name, Item={"pk": {"S": "later"}})
        assert admin(server, "POST", "/okura/settle") == {"applied": 0, "settled": 0}
        assert admin(server, "GET", "/okura/replication")["delay"] == 60
        admin(server, "POST", "/okura/clock", {"advance": 61})
        admin(server, "POST", "/okura/settle")
        assert away.get_item(TableName=name, Key={"pk": {"S": "later"}})["Item"]
    finally:
        server.stop()
