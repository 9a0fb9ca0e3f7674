"""CreateTable with secondary indexes: their rules and their descriptions."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name

INVALID = "One or more parameter values were invalid: "
HASH_RANGE = [{"AttributeName": "pk", "KeyType": "HASH"},
              {"AttributeName": "sk", "KeyType": "RANGE"}]


def definitions(*names: str) -> list[dict]:
    return [{"AttributeName": n, "AttributeType": "S"} for n in names]


def index(name: str, *keys: str, projection: dict | None = None, **extra) -> dict:
    return {"IndexName": name,
            "KeySchema": [{"AttributeName": k, "KeyType": t} for k, t in zip(keys, ("HASH", "RANGE"))],
            "Projection": {"ProjectionType": "ALL"} if projection is None else projection,
            **extra}


def create(ddb, name=None, **request) -> dict:
    """BillingMode PAY_PER_REQUEST unless the request says otherwise (None: left out)."""
    request.setdefault("BillingMode", "PAY_PER_REQUEST")
    if request["BillingMode"] is None:
        del request["BillingMode"]
    return ddb.create_table(TableName=name or unique_name(), KeySchema=HASH_RANGE, **request)


def create_error(ddb, **request) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        create(ddb, **request)
    return error_of(excinfo)


def test_indexes_are_described(ddb):
    name = unique_name()
    created = create(ddb, name, AttributeDefinitions=definitions("pk", "sk", "g", "l"),
                     GlobalSecondaryIndexes=[index("byg", "g", projection={
                         "ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]})],
                     LocalSecondaryIndexes=[index("byl", "pk", "l", projection={
                         "ProjectionType": "KEYS_ONLY"})])["TableDescription"]
    assert created["GlobalSecondaryIndexes"][0]["IndexStatus"] == "CREATING"
    table = ddb.describe_table(TableName=name)["Table"]
    arn = table["TableArn"]
    assert table["GlobalSecondaryIndexes"] == [{
        "IndexName": "byg", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "b"]},
        "IndexStatus": "ACTIVE",
        "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0,
                                  "WriteCapacityUnits": 0},
        "IndexSizeBytes": 0, "ItemCount": 0, "IndexArn": f"{arn}/index/byg",
        "WarmThroughput": {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000,
                           "Status": "ACTIVE"}}]
    assert table["LocalSecondaryIndexes"] == [{
        "IndexName": "byl", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                          {"AttributeName": "l", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "KEYS_ONLY"},
        "IndexSizeBytes": 0, "ItemCount": 0, "IndexArn": f"{arn}/index/byl"}]


def test_provisioned_index_throughput(ddb):
    name = unique_name()
    create(ddb, name, BillingMode="PROVISIONED",
           ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 2},
           AttributeDefinitions=definitions("pk", "sk", "g"),
           GlobalSecondaryIndexes=[index("byg", "g", ProvisionedThroughput={
               "ReadCapacityUnits": 3, "WriteCapacityUnits": 4})])
    described = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert described["ProvisionedThroughput"] == {
        "NumberOfDecreasesToday": 0, "ReadCapacityUnits": 3, "WriteCapacityUnits": 4}


def test_provisioned_index_without_throughput(ddb):
    assert create_error(ddb, BillingMode="PROVISIONED",
                        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 2},
                        AttributeDefinitions=definitions("pk", "sk", "g"),
                        GlobalSecondaryIndexes=[index("byg", "g")]) == (
        "ValidationException", "No provisioned throughput specified for the global secondary index")
    # provisioned because BillingMode is left out: DynamoDB words it another way
    assert create_error(ddb, BillingMode=None,
                        ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 2},
                        AttributeDefinitions=definitions("pk", "sk", "g"),
                        GlobalSecondaryIndexes=[index("byg", "g")]) == (
        "ValidationException", "One or more parameter values were invalid: ProvisionedThroughput "
        "is not specified for index: byg")


def test_on_demand_index_with_throughput(ddb):
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", "g"),
                        GlobalSecondaryIndexes=[index("byg", "g", ProvisionedThroughput={
                            "ReadCapacityUnits": 3, "WriteCapacityUnits": 4})]) == (
        "ValidationException", INVALID + "ProvisionedThroughput should not be specified for "
        "index: byg when BillingMode is PAY_PER_REQUEST")


def test_index_key_schema_order(ddb):
    bad = {"IndexName": "byg", "Projection": {"ProjectionType": "ALL"},
           "KeySchema": [{"AttributeName": "g", "KeyType": "RANGE"}]}
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", "g"),
                        GlobalSecondaryIndexes=[bad]) == (
        "ValidationException", "Invalid KeySchema: The first KeySchemaElement is not a HASH key type")


def test_duplicate_index_names(ddb):
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", "g", "l"),
                        GlobalSecondaryIndexes=[index("same", "g")],
                        LocalSecondaryIndexes=[index("same", "pk", "l")]) == (
        "ValidationException", INVALID + "Duplicate index name: same")


def test_empty_index_lists(ddb):
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk"),
                        GlobalSecondaryIndexes=[]) == (
        "ValidationException", INVALID + "List of GlobalSecondaryIndexes is empty")
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk"),
                        LocalSecondaryIndexes=[]) == (
        "ValidationException", INVALID + "List of LocalSecondaryIndexes is empty")


def test_index_counts(ddb):
    names = [f"g{i}" for i in range(21)]
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", *names),
                        GlobalSecondaryIndexes=[index(f"idx{n}", n) for n in names]) == (
        "ValidationException", "GlobalSecondaryIndex count exceeds the per-table limit of 20")
    names = [f"l{i}" for i in range(6)]
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", *names),
                        LocalSecondaryIndexes=[index(f"idx{n}", "pk", n) for n in names]) == (
        "ValidationException", "Cannot have more than 5 local secondary indexes per table")


def test_twenty_global_and_five_local_indexes(ddb):
    gs, ls = [f"g{i}" for i in range(20)], [f"l{i}" for i in range(5)]
    name = unique_name()
    create(ddb, name, AttributeDefinitions=definitions("pk", "sk", *gs, *ls),
           GlobalSecondaryIndexes=[index(f"idx{n}", n) for n in gs],
           LocalSecondaryIndexes=[index(f"idx{n}", "pk", n) for n in ls])
    table = ddb.describe_table(TableName=name)["Table"]
    assert (len(table["GlobalSecondaryIndexes"]), len(table["LocalSecondaryIndexes"])) == (20, 5)


def test_local_index_rules(ddb):
    assert ddb_error_hash_only(ddb) == (
        "ValidationException", INVALID + "Table KeySchema does not have a range key, which is "
        "required when specifying a LocalSecondaryIndex")
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk"),
                        LocalSecondaryIndexes=[index("byl", "pk")]) == (
        "ValidationException", INVALID + "Index KeySchema does not have a range key for index: byl")
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", "o", "l"),
                        LocalSecondaryIndexes=[index("byl", "o", "l")]) == (
        "ValidationException", INVALID + "Index KeySchema does not have the same leading hash "
        "key as table KeySchema for index: byl. index hash key: o, table hash key: pk")


def ddb_error_hash_only(ddb) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        ddb.create_table(TableName=unique_name(), BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=definitions("pk", "l"),
                         LocalSecondaryIndexes=[index("byl", "pk", "l")])
    return error_of(excinfo)


@pytest.mark.parametrize("projection, message", [
    ({"ProjectionType": "INCLUDE"},
     INVALID + "ProjectionType is INCLUDE, but NonKeyAttributes is not specified"),
    ({"ProjectionType": "ALL", "NonKeyAttributes": ["a"]},
     INVALID + "ProjectionType is ALL, but NonKeyAttributes is specified"),
    ({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a", "a"]},
     INVALID + "Duplicate NonKeyAttributes in Projection"),
    ({}, INVALID + "Unknown ProjectionType: null"),
])
def test_projection_rules(ddb, projection, message):
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", "g"),
                        GlobalSecondaryIndexes=[index("byg", "g", projection=projection)]) == (
        "ValidationException", message)


def test_projected_attributes_over_all_indexes(ddb):
    def included(start: int) -> dict:
        return {"ProjectionType": "INCLUDE",
                "NonKeyAttributes": [f"a{i}" for i in range(start, start + 20)]}
    names = [f"g{i}" for i in range(6)]
    assert create_error(ddb, AttributeDefinitions=definitions("pk", "sk", *names),
                        GlobalSecondaryIndexes=[index(f"idx{n}", n, projection=included(20 * i))
                                                for i, n in enumerate(names)]) == (
        "LimitExceededException", INVALID + "Number of projected attributes in all indexes "
        "exceeds limit of 100, number of projected attributes:120")
