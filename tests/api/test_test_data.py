"""Test data: `okura serve --seed FILE` and POST /okura/seed create tables and items from
a JSON or YAML description; POST /okura/reset drops everything (issue 25). On servers
embedded in this process (okura.Server: the same serve() as `okura serve`, started in
milliseconds)."""
from __future__ import annotations

import http.client
import json

import pytest
from botocore.exceptions import ClientError

from okura import Server
from okura.config import StartupError

SEED_YAML = """
tables:
  - TableName: users
    KeySchema: [{AttributeName: pk, KeyType: HASH}]
    AttributeDefinitions:
      - {AttributeName: pk, AttributeType: S}
      - {AttributeName: team, AttributeType: S}
    GlobalSecondaryIndexes:
      - IndexName: by-team
        KeySchema: [{AttributeName: team, KeyType: HASH}]
        Projection: {ProjectionType: ALL}
    Items:
      - {pk: u1, team: red, age: 31, score: 2.5, tags: [a, b], active: true, note: null}
      - {pk: u2, team: red, profile: {city: Oslo}}
  - TableName: orders
    KeySchema: [{AttributeName: id, KeyType: HASH}]
    AttributeDefinitions: [{AttributeName: id, AttributeType: N}]
    ProvisionedThroughput: {ReadCapacityUnits: 5, WriteCapacityUnits: 5}
"""


def admin(server: Server, method: str, path: str, body=None) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request(method, path, None if body is None else json.dumps(body),
                           {"Content-Type": "application/json"})
        reply = connection.getresponse()
        return reply.status, json.loads(reply.read())
    finally:
        connection.close()


def test_a_yaml_seed_file_is_loaded_at_start_and_once(tmp_path):
    seed = tmp_path / "seed.yaml"
    seed.write_text(SEED_YAML)
    data = str(tmp_path / "data")
    with Server(seed=str(seed), data_dir=data) as server:
        ddb = server.client()
        assert ddb.list_tables()["TableNames"] == ["orders", "users"]
        assert ddb.get_item(TableName="users", Key={"pk": {"S": "u1"}})["Item"] == {
            "pk": {"S": "u1"}, "team": {"S": "red"}, "age": {"N": "31"},
            "score": {"N": "2.5"}, "tags": {"L": [{"S": "a"}, {"S": "b"}]},
            "active": {"BOOL": True}, "note": {"NULL": True}}
        assert ddb.query(TableName="users", IndexName="by-team",
                         KeyConditionExpression="team = :t",
                         ExpressionAttributeValues={":t": {"S": "red"}})["Count"] == 2
        users = ddb.describe_table(TableName="users")["Table"]
        assert users["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
        ddb.delete_item(TableName="users", Key={"pk": {"S": "u2"}})
    with Server(seed=str(seed), data_dir=data) as again:  # existing tables are left alone
        assert again.client().scan(TableName="users")["Count"] == 1


def test_seed_and_reset_through_the_admin_api():
    with Server() as server:
        status, done = admin(server, "POST", "/okura/seed", {"region": "eu-west-1", "tables": [
            {"TableName": "things", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
             "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
             "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
             "DeletionProtectionEnabled": True,
             "Items": [{"pk": "a"}, {"pk": "b", "n": 1.5}]}]})
        assert (status, done) == (200, {"created": ["things"], "existing": [], "items": 2})
        ddb = server.client(region_name="eu-west-1")
        assert ddb.scan(TableName="things")["Count"] == 2
        ddb.update_continuous_backups(TableName="things", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        ddb.create_backup(TableName="things", BackupName="before-reset")
        ddb.create_table(TableName="gone", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        ddb.update_continuous_backups(TableName="gone", PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True})
        ddb.delete_table(TableName="gone")  # its history is kept, until the reset
        server.client().create_table(
            TableName="other", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST")
        assert admin(server, "POST", "/okura/reset") == (200, {"dropped": 2})
        assert ddb.list_tables()["TableNames"] == []
        assert server.client().list_tables()["TableNames"] == []
        assert server.client("dynamodbstreams", region_name="eu-west-1").list_streams()[
            "Streams"] == []
        assert ddb.list_backups(BackupType="ALL")["BackupSummaries"] == []
        with pytest.raises(ClientError) as caught:
            ddb.restore_table_to_point_in_time(SourceTableName="gone", TargetTableName="back",
                                               UseLatestRestorableTime=True)
        assert caught.value.response["Error"]["Code"] == "TableNotFoundException"
        # the names are free at once
        assert admin(server, "POST", "/okura/seed", {"region": "eu-west-1", "tables": [
            {"TableName": "things", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
             "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}]})[0] == 200
        assert ddb.scan(TableName="things")["Count"] == 0


BAD_SEEDS = [
    ({"tables": "x"}, 'a seed description is a map with a list "tables"'),
    ({"tables": [{"TableName": "bad1"}]}, "table bad1: ValidationException: 2 validation "
     "errors detected: Value null at 'keySchema' failed to satisfy constraint: Member must not "
     "be null; Value null at 'attributeDefinitions' failed to satisfy constraint: Member must "
     "not be null"),
    ({"tables": [{"TableName": "bad2", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                  "Items": [{"pk": 1}]}]},
     "table bad2: item {'pk': 1}: ValidationException: One or more parameter values were "
     "invalid: Type mismatch for key pk expected: S actual: N"),
    ({"tables": [{"TableName": "bad3", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                  "Items": ["pk"]}]},
     "table bad3: each item must be a map of attribute names to values, not 'pk'"),
]


def test_a_bad_seed_is_refused_with_its_reason():
    with Server() as server:
        for body, message in BAD_SEEDS:
            assert admin(server, "POST", "/okura/seed", body) == (400, {"error": message})
        assert admin(server, "GET", "/okura/reset")[0] == 405


def test_a_bad_seed_file_stops_the_start(tmp_path):
    seed = tmp_path / "seed.json"
    seed.write_text('{"tables": [{"TableName": "x"}]')
    with pytest.raises(StartupError) as caught:
        Server(seed=str(seed)).start()
    assert str(caught.value).startswith(f"seed file {seed}: not JSON: ")
