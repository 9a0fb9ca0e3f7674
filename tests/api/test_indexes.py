"""Secondary index entries kept in step with every write: projections, sparse
indexes, key type checks, multi-attribute keys, counts and item collections."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of, unique_name

HASH_RANGE = [{"AttributeName": "pk", "KeyType": "HASH"},
              {"AttributeName": "sk", "KeyType": "RANGE"}]


def schema(*keys: tuple[str, str]) -> list[dict]:
    return [{"AttributeName": name, "KeyType": kind} for name, kind in keys]


def indexed_table(ddb, globals_=(), locals_=(), types=None) -> str:
    """A table (pk S, sk S) with the given indexes; other key attributes are S unless
    `types` says otherwise."""
    names = {"pk", "sk"} | {e["AttributeName"] for i in (*globals_, *locals_)
                            for e in i["KeySchema"]}
    types = types or {}
    request = {"TableName": unique_name(), "KeySchema": HASH_RANGE,
               "BillingMode": "PAY_PER_REQUEST",
               "AttributeDefinitions": [{"AttributeName": n, "AttributeType": types.get(n, "S")}
                                        for n in sorted(names)]}
    if globals_:
        request["GlobalSecondaryIndexes"] = list(globals_)
    if locals_:
        request["LocalSecondaryIndexes"] = list(locals_)
    ddb.create_table(**request)
    return request["TableName"]


def gsi(name: str, *keys, projection=None) -> dict:
    return {"IndexName": name, "KeySchema": schema(*keys),
            "Projection": projection or {"ProjectionType": "ALL"}}


def query_index(ddb, table: str, index: str, condition: str, values: dict, **extra) -> list:
    return ddb.query(TableName=table, IndexName=index, KeyConditionExpression=condition,
                     ExpressionAttributeValues={f":{k}": v for k, v in values.items()},
                     **extra)["Items"]


def item(pk: str, sk: str, **attributes) -> dict:
    return {"pk": {"S": pk}, "sk": {"S": sk}, **attributes}


def test_projections(ddb):
    table = indexed_table(ddb, [
        gsi("keys", ("g", "HASH"), projection={"ProjectionType": "KEYS_ONLY"}),
        gsi("some", ("g", "HASH"), projection={"ProjectionType": "INCLUDE",
                                                "NonKeyAttributes": ["a"]}),
        gsi("all", ("g", "HASH"))])
    full = item("p", "1", g={"S": "x"}, a={"N": "1"}, b={"S": "y"})
    ddb.put_item(TableName=table, Item=full)
    assert query_index(ddb, table, "keys", "g = :g", {"g": {"S": "x"}}) == [
        item("p", "1", g={"S": "x"})]
    assert query_index(ddb, table, "some", "g = :g", {"g": {"S": "x"}}) == [
        item("p", "1", g={"S": "x"}, a={"N": "1"})]
    assert query_index(ddb, table, "all", "g = :g", {"g": {"S": "x"}}) == [full]


def test_sparse_index_and_moving_entries(ddb):
    table = indexed_table(ddb, [gsi("byg", ("g", "HASH"), ("r", "RANGE"))])
    ddb.put_item(TableName=table, Item=item("p", "1", g={"S": "x"}))  # no r: not indexed
    ddb.put_item(TableName=table, Item=item("p", "2", g={"S": "x"}, r={"S": "b"}))
    ddb.put_item(TableName=table, Item=item("p", "3", g={"S": "x"}, r={"S": "a"}))
    found = query_index(ddb, table, "byg", "g = :g", {"g": {"S": "x"}})
    assert [i["sk"]["S"] for i in found] == ["3", "2"]
    ddb.update_item(TableName=table, Key=item("p", "3"), UpdateExpression="SET g = :y",
                    ExpressionAttributeValues={":y": {"S": "y"}})
    ddb.update_item(TableName=table, Key=item("p", "2"), UpdateExpression="REMOVE r")
    assert query_index(ddb, table, "byg", "g = :g", {"g": {"S": "x"}}) == []
    assert query_index(ddb, table, "byg", "g = :g", {"g": {"S": "y"}}) == [
        item("p", "3", g={"S": "y"}, r={"S": "a"})]
    ddb.delete_item(TableName=table, Key=item("p", "3"))
    assert ddb.scan(TableName=table, IndexName="byg")["Items"] == []


def test_key_only_item_from_an_update_without_actions_is_not_indexed(ddb):
    table = indexed_table(ddb, [gsi("byg", ("g", "HASH"))])
    ddb.update_item(TableName=table, Key=item("p", "1"))  # creates the key alone
    assert ddb.scan(TableName=table)["Items"] == [item("p", "1")]
    assert ddb.scan(TableName=table, IndexName="byg")["Items"] == []


def test_wrong_index_key_type_stores_nothing(ddb):
    table = indexed_table(ddb, [gsi("byg", ("g", "HASH"))], types={"g": "N"})
    ddb.put_item(TableName=table, Item=item("p", "1", g={"N": "1"}, v={"S": "old"}))
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item=item("p", "1", g={"S": "one"}, v={"S": "new"}))
    assert error_of(excinfo) == (
        "ValidationException", "One or more parameter values were invalid: Type mismatch for "
        "Index Key g Expected: N Actual: S IndexName: byg")
    assert ddb.get_item(TableName=table, Key=item("p", "1"))["Item"]["v"] == {"S": "old"}
    assert query_index(ddb, table, "byg", "g = :g", {"g": {"N": "1"}})[0]["v"] == {"S": "old"}
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": item("p", "2")}},
            {"PutRequest": {"Item": item("p", "3", g={"S": "x"})}}]})
    assert error_of(excinfo)[1].endswith("IndexName: byg")
    assert "Item" not in ddb.get_item(TableName=table, Key=item("p", "2"))


def test_multi_attribute_keys(ddb):
    table = indexed_table(ddb, [gsi("multi", ("t", "HASH"), ("region", "HASH"),
                                    ("round", "RANGE"), ("n", "RANGE"))], types={"n": "N"})
    for sk, region, round_, n in [("1", "eu", "final", "2"), ("2", "eu", "final", "10"),
                                  ("3", "eu", "semi", "1"), ("4", "us", "final", "1")]:
        ddb.put_item(TableName=table, Item=item("p", sk, t={"S": "cup"}, region={"S": region},
                                                round={"S": round_}, n={"N": n}))
    ddb.put_item(TableName=table, Item=item("p", "5", t={"S": "cup"}, round={"S": "final"}))
    found = ddb.scan(TableName=table, IndexName="multi")["Items"]
    assert sorted(i["sk"]["S"] for i in found) == ["1", "2", "3", "4"]  # 5 lacks region
    described = ddb.describe_table(TableName=table)["Table"]["GlobalSecondaryIndexes"][0]
    assert described["KeySchema"] == schema(("t", "HASH"), ("region", "HASH"),
                                            ("round", "RANGE"), ("n", "RANGE"))


_INVALID = "One or more parameter values were invalid: "


@pytest.mark.parametrize("keys, message", [  # DynamoDB's texts, as recorded
    ([("a", "HASH"), ("b", "RANGE"), ("c", "HASH")],
     _INVALID + "All HASH key attributes must precede RANGE key attributes in the KeySchema"),
    ([(f"h{i}", "HASH") for i in range(5)],
     _INVALID + "The KeySchema exceeds the maximum allowed number of HASH key attributes"),
    ([("a", "HASH"), *[(f"r{i}", "RANGE") for i in range(5)]],
     _INVALID + "The KeySchema exceeds the maximum allowed number of RANGE key attributes"),
    ([("a", "HASH"), ("a", "HASH")],
     "The KeySchema contains multiple key attributes with the same name"),
    ([("a", "HASH"), ("r", "RANGE"), ("r", "RANGE")],
     "The KeySchema contains multiple key attributes with the same name"),
])
def test_multi_attribute_key_rules(ddb, keys, message):
    with pytest.raises(ClientError) as excinfo:
        indexed_table(ddb, [gsi("bad", *keys)])
    assert error_of(excinfo) == ("ValidationException", message)


def test_described_counts(ddb):
    table = indexed_table(ddb, [gsi("byg", ("g", "HASH"),
                                    projection={"ProjectionType": "KEYS_ONLY"})],
                          [gsi("byl", ("pk", "HASH"), ("l", "RANGE"))])
    ddb.put_item(TableName=table, Item=item("p", "1", g={"S": "x"}, l={"S": "y"}, v={"S": "z"}))
    ddb.put_item(TableName=table, Item=item("p", "2", g={"S": "x"}))
    described = ddb.describe_table(TableName=table)["Table"]
    assert described["ItemCount"] == 2
    # KEYS_ONLY entries hold pk, sk and g: 3 + 3 + 2 bytes each.
    assert [(i["ItemCount"], i["IndexSizeBytes"]) for i in described["GlobalSecondaryIndexes"]] \
        == [(2, 16)]
    assert [(i["ItemCount"], i["IndexSizeBytes"]) for i in described["LocalSecondaryIndexes"]] \
        == [(1, 12)]


def test_item_collection_metrics(ddb):
    table = indexed_table(ddb, locals_=[gsi("byl", ("pk", "HASH"), ("l", "RANGE"))])
    reply = ddb.put_item(TableName=table, Item=item("p", "1", l={"S": "x"}),
                         ReturnItemCollectionMetrics="SIZE")
    assert reply["ItemCollectionMetrics"] == {"ItemCollectionKey": {"pk": {"S": "p"}},
                                              "SizeEstimateRangeGB": [0.0, 1.0]}
    reply = ddb.batch_write_item(RequestItems={table: [
        {"PutRequest": {"Item": item("p", "2")}},
        {"DeleteRequest": {"Key": item("q", "1")}}]}, ReturnItemCollectionMetrics="SIZE")
    assert reply["ItemCollectionMetrics"] == {table: [
        {"ItemCollectionKey": {"pk": {"S": "p"}}, "SizeEstimateRangeGB": [0.0, 1.0]},
        {"ItemCollectionKey": {"pk": {"S": "q"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]}

    plain = indexed_table(ddb)
    reply = ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": item("p", "3")}},
        {"Update": {"TableName": table, "Key": item("r", "1"), "UpdateExpression": "SET v = :v",
                    "ExpressionAttributeValues": {":v": {"S": "w"}}}},
        {"ConditionCheck": {"TableName": table, "Key": item("p", "1"),
                            "ConditionExpression": "attribute_exists(pk)"}},
        {"Put": {"TableName": plain, "Item": item("p", "1")}}],
        ReturnItemCollectionMetrics="SIZE")
    # only the writes to a table with local indexes: not the check, not the plain table
    assert reply["ItemCollectionMetrics"] == {table: [
        {"ItemCollectionKey": {"pk": {"S": "p"}}, "SizeEstimateRangeGB": [0.0, 1.0]},
        {"ItemCollectionKey": {"pk": {"S": "r"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]}
    assert "ItemCollectionMetrics" not in ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": table, "Item": item("p", "4")}}])
