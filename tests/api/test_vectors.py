"""Vector indexes and SearchVectors through boto3, on every backend: exact results for
each distance function against a brute-force reference, filters, projections, the
index kept on every write path, backfill, capacity and every validation error."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest
from botocore.exceptions import ClientError

from conftest import Server, error_of, new_database, unique_name
from test_clock import advance
from test_indexes_update import wait_for

DIMS = 8
ON_DEMAND = "PAY_PER_REQUEST"


def vector_index(name: str = "vix", distance: str = "EUCLIDEAN", dims: int = DIMS,
                 schema: list | None = None, projection: dict | None = None,
                 attribute: str = "v") -> dict:
    index = {"IndexName": name, "VectorAttribute": {"AttributeName": attribute},
             "Dimensions": dims, "DistanceFunction": distance,
             "Projection": projection or {"ProjectionType": "ALL"}}
    if schema is not None:
        index["SearchSchema"] = schema
    return index


def create(ddb, indexes: list[dict], definitions: list | None = None, **extra) -> str:
    name = unique_name()
    extra.setdefault("BillingMode", ON_DEMAND)
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           *(definitions or [])],
                     VectorIndexes=indexes, **extra)
    return name


def as_list(vector) -> dict:
    return {"L": [{"N": repr(float(x))} for x in vector]}


def search(ddb, table: str, vector, k: int = 5, index: str = "vix", **extra) -> list:
    return ddb.search_vectors(TableName=table, IndexName=index, TopK=k,
                              SearchVector=as_list(vector)["L"], **extra)["SearchResults"]


def reference(vectors: dict[str, np.ndarray], query, distance: str, k: int) -> list:
    """(key, score) of the k best, by brute force in float64."""
    q = np.asarray(query, np.float64)
    scored = []
    for key, v in vectors.items():
        v = np.asarray(v, np.float64)
        if distance == "EUCLIDEAN":
            score = float(np.linalg.norm(v - q))
        elif distance == "DOT_PRODUCT":
            score = float(v @ q)
        else:
            score = 1 - float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q)))
        scored.append((key, score))
    scored.sort(key=lambda pair: -pair[1] if distance == "DOT_PRODUCT" else pair[1])
    return scored[:k]


def fill(ddb, table: str, count: int, seed: int = 1, **attributes) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    vectors = {}
    for start in range(0, count, 25):
        writes = []
        for i in range(start, min(start + 25, count)):
            vector = rng.standard_normal(DIMS).astype(np.float32)
            vectors[f"k{i}"] = vector
            item = {"pk": {"S": f"k{i}"}, "v": as_list(vector), "n": {"N": str(i)}}
            for name, make in attributes.items():
                item[name] = make(i)
            writes.append({"PutRequest": {"Item": item}})
        ddb.batch_write_item(RequestItems={table: writes})
    return vectors


@pytest.mark.parametrize("distance", ["COSINE", "EUCLIDEAN", "DOT_PRODUCT"])
def test_search_matches_brute_force(ddb, distance):
    table = create(ddb, [vector_index(distance=distance)])
    vectors = fill(ddb, table, 100)
    rng = np.random.default_rng(7)
    for _ in range(3):
        query = rng.standard_normal(DIMS)
        found = search(ddb, table, query, k=10)
        expected = reference(vectors, query, distance, 10)
        assert [r["Item"]["pk"]["S"] for r in found] == [key for key, _ in expected]
        assert [r["Score"] for r in found] == pytest.approx([s for _, s in expected], abs=1e-4)
    if distance == "COSINE":  # 0 for the same direction, 2 for the opposite one
        same = search(ddb, table, vectors["k3"], k=1)[0]
        assert same["Item"]["pk"]["S"] == "k3" and same["Score"] == pytest.approx(0, abs=1e-5)
        opposite = search(ddb, table, -vectors["k3"], k=100)[-1]
        assert opposite["Item"]["pk"]["S"] == "k3" and opposite["Score"] == pytest.approx(2, abs=1e-5)


def test_ties_come_out_in_one_order(ddb):
    table = create(ddb, [vector_index()])
    for i in range(6):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"t{i}"}, "v": as_list([1.0] * DIMS)})
    orders = {tuple(r["Item"]["pk"]["S"] for r in search(ddb, table, [0.0] * DIMS, k=3))
              for _ in range(3)}
    assert len(orders) == 1


def test_every_write_path_keeps_the_index(ddb):
    table = create(ddb, [vector_index()])
    one = [1.0] + [0.0] * (DIMS - 1)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": as_list(one)})
    ddb.update_item(TableName=table, Key={"pk": {"S": "b"}}, UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": as_list([2.0] + [0.0] * (DIMS - 1))})
    ddb.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": {
        "pk": {"S": "c"}, "v": as_list([3.0] + [0.0] * (DIMS - 1))}}}])
    ddb.execute_statement(Statement=f"INSERT INTO \"{table}\" VALUE {{'pk': 'd', 'v': "
                                    f"[{', '.join(['4.0'] + ['0.0'] * (DIMS - 1))}]}}")
    found = [r["Item"]["pk"]["S"] for r in search(ddb, table, one, k=10)]
    assert found == ["a", "b", "c", "d"]
    ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    ddb.update_item(TableName=table, Key={"pk": {"S": "b"}}, UpdateExpression="REMOVE v")
    ddb.execute_statement(Statement=f"DELETE FROM \"{table}\" WHERE pk = 'c'")
    assert [r["Item"]["pk"]["S"] for r in search(ddb, table, one, k=10)] == ["d"]
    # an item without the attribute is simply not indexed
    ddb.put_item(TableName=table, Item={"pk": {"S": "e"}})
    assert [r["Item"]["pk"]["S"] for r in search(ddb, table, one, k=10)] == ["d"]


WRONG_LENGTH = ("ValidationException", "One or more parameter values were invalid: Vector "
                f"attribute v has 3 dimensions, but vector index vix expects {DIMS}")


def test_a_vector_of_the_wrong_length_is_refused_on_every_write_path(ddb):
    table = create(ddb, [vector_index()])
    short = as_list([1.0, 2.0, 3.0])
    attempts = [
        lambda: ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": short}),
        lambda: ddb.update_item(TableName=table, Key={"pk": {"S": "a"}},
                                UpdateExpression="SET v = :v",
                                ExpressionAttributeValues={":v": short}),
        lambda: ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": {"pk": {"S": "a"}, "v": short}}}]}),
        lambda: ddb.execute_statement(
            Statement=f"INSERT INTO \"{table}\" VALUE {{'pk': 'a', 'v': [1, 2, 3]}}"),
    ]
    for attempt in attempts:
        with pytest.raises(ClientError) as excinfo:
            attempt()
        assert error_of(excinfo) == WRONG_LENGTH
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[{"Put": {"TableName": table, "Item": {
            "pk": {"S": "a"}, "v": short}}}])
    assert excinfo.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert excinfo.value.response["CancellationReasons"][0]["Message"] == WRONG_LENGTH[1]
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": {"S": "x"}})
    assert error_of(excinfo) == (
        "ValidationException", "One or more parameter values were invalid: Invalid parameter "
        "type for vector attribute v: expected a list of numbers")
    assert ddb.scan(TableName=table)["Count"] == 0


def test_filters_and_the_hash_key(ddb):
    schema = [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"},
              {"AttributeName": "n", "SearchSchemaElementType": "INLINE_FILTER"}]
    table = create(ddb, [vector_index(schema=schema)],
                   [{"AttributeName": "cat", "AttributeType": "S"},
                    {"AttributeName": "n", "AttributeType": "N"}])
    vectors = fill(ddb, table, 90, cat=lambda i: {"S": "ab"[i % 2]})
    query = np.ones(DIMS)

    def keys(condition: str, values: dict) -> list[str]:
        found = search(ddb, table, query, k=100, SearchConditionExpression=condition,
                       ExpressionAttributeValues=values)
        return [r["Item"]["pk"]["S"] for r in found]

    def expected(test) -> list[str]:
        chosen = {key: v for key, v in vectors.items() if test(int(key[1:]))}
        return [key for key, _ in reference(chosen, query, "EUCLIDEAN", 100)]

    a = {":c": {"S": "a"}}
    assert keys("cat = :c", a) == expected(lambda i: i % 2 == 0)
    assert keys("cat = :c AND n BETWEEN :lo AND :hi", {**a, ":lo": {"N": "10"}, ":hi": {"N": "30"}}) \
        == expected(lambda i: i % 2 == 0 and 10 <= i <= 30)
    assert keys("cat = :c AND (n IN (:x, :y) OR n >= :z)",
                {**a, ":x": {"N": "4"}, ":y": {"N": "5"}, ":z": {"N": "80"}}) \
        == expected(lambda i: i % 2 == 0 and (i in (4, 5) or i >= 80))
    assert keys("cat = :c AND n < :z", {**a, ":z": {"N": "9"}}) == expected(
        lambda i: i % 2 == 0 and i < 9)

    def refused(condition: str | None, values: dict | None = None) -> tuple[str, str]:
        extra = {} if condition is None else {"SearchConditionExpression": condition}
        if values:
            extra["ExpressionAttributeValues"] = values
        with pytest.raises(ClientError) as excinfo:
            search(ddb, table, query, **extra)
        return error_of(excinfo)

    hash_needed = ("ValidationException", "SearchConditionExpression must be provided when "
                                          "SearchSchema has a HASH key")
    assert refused(None) == hash_needed
    assert refused("n = :z", {":z": {"N": "1"}}) == hash_needed
    assert refused("cat = :c AND n <> :z", {**a, ":z": {"N": "1"}}) == (
        "ValidationException", "Invalid comparator used in SearchConditionExpression")
    assert refused("cat = :c AND begins_with(pk, :z)", {**a, ":z": {"S": "k"}}) == (
        "ValidationException", "Invalid comparator used in SearchConditionExpression")
    assert refused("cat = :c AND pk = :z", {**a, ":z": {"S": "k1"}}) == (
        "ValidationException", "Attribute pk in SearchConditionExpression is not in the vector "
        "index's SearchSchema")


def test_projections(ddb):
    table = create(ddb, [vector_index("keys", projection={"ProjectionType": "KEYS_ONLY"}),
                         vector_index("some", projection={"ProjectionType": "INCLUDE",
                                                          "NonKeyAttributes": ["a"]})])
    ddb.put_item(TableName=table, Item={"pk": {"S": "x"}, "v": as_list([1.0] * DIMS),
                                        "a": {"S": "A"}, "b": {"S": "B"}})
    query = [1.0] * DIMS
    assert set(search(ddb, table, query, index="keys")[0]["Item"]) == {"pk", "v"}
    assert set(search(ddb, table, query, index="some")[0]["Item"]) == {"pk", "v", "a"}
    assert search(ddb, table, query, index="some", ProjectionExpression="a")[0]["Item"] == {
        "a": {"S": "A"}}
    with pytest.raises(ClientError) as excinfo:
        search(ddb, table, query, index="some", ProjectionExpression="b")
    assert error_of(excinfo) == (
        "ValidationException", "One or more parameter values were invalid: ProjectionExpression "
        "can only retrieve attributes projected into the vector index: b")


def test_capacity(ddb):
    table = create(ddb, [vector_index()])
    item = {"pk": {"S": "x"}, "v": as_list([1.0] * DIMS)}
    consumed = ddb.put_item(TableName=table, Item=item,
                            ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert consumed["VectorIndexes"] == {"vix": {"VectorWriteRequestBytes": 4 * DIMS + 1 + 3}}
    assert consumed["Table"] == {"CapacityUnits": 1.0}
    again = ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity="INDEXES")
    assert "VectorIndexes" not in again["ConsumedCapacity"]  # nothing indexed changed
    reply = ddb.search_vectors(TableName=table, IndexName="vix", TopK=1,
                               SearchVector=item["v"]["L"], ReturnConsumedCapacity="TOTAL")
    assert reply["ConsumedCapacity"]["VectorSearchRequestBytes"] > 0


def test_describe_and_backfill(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode=ON_DEMAND)
    vectors = fill(ddb, name, 600)
    reply = ddb.update_table(TableName=name, VectorIndexUpdates=[
        {"Create": vector_index(distance="DOT_PRODUCT")}])["TableDescription"]
    created = reply["VectorIndexes"][0]
    assert (created["IndexStatus"], created["Backfilling"]) == ("CREATING", True)

    def described() -> dict:
        return ddb.describe_table(TableName=name)["Table"]["VectorIndexes"][0]
    wait_for(lambda: described()["IndexStatus"] == "ACTIVE")
    done = described()
    assert done["Backfilling"] is False and done["ItemCount"] == 600
    assert done["IndexArn"].endswith(f"table/{name}/index/vix")
    assert (done["Dimensions"], done["DistanceFunction"]) == (DIMS, "DOT_PRODUCT")
    query = np.ones(DIMS)
    assert [r["Item"]["pk"]["S"] for r in search(ddb, name, query, k=10)] == [
        key for key, _ in reference(vectors, query, "DOT_PRODUCT", 10)]
    ddb.update_table(TableName=name, VectorIndexUpdates=[{"Delete": {"IndexName": "vix"}}])
    assert "VectorIndexes" not in ddb.describe_table(TableName=name)["Table"]
    with pytest.raises(ClientError) as excinfo:
        search(ddb, name, query)
    assert error_of(excinfo) == ("ValidationException",
                                 "The table does not have the specified index: vix")


def test_a_restart_keeps_the_vectors(tmp_path):
    first = Server(data_dir=str(tmp_path))
    try:
        ddb = first.client()
        table = create(ddb, [vector_index()])
        vectors = fill(ddb, table, 50)
    finally:
        first.stop()
    second = Server(data_dir=str(tmp_path))
    try:
        query = np.full(DIMS, 0.5)
        found = search(second.client(), table, query, k=5)
        assert [r["Item"]["pk"]["S"] for r in found] == [
            key for key, _ in reference(vectors, query, "EUCLIDEAN", 5)]
    finally:
        second.stop()


def _create_error(ddb, indexes: list[dict], definitions: list | None = None,
                  **extra) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        create(ddb, indexes, definitions, **extra)
    return error_of(excinfo)


INVALID = "One or more parameter values were invalid: "


def test_create_table_rules(ddb):
    assert _create_error(ddb, [vector_index()], BillingMode="PROVISIONED", ProvisionedThroughput={
        "ReadCapacityUnits": 1, "WriteCapacityUnits": 1}) == (
        "ValidationException",
        INVALID + "Vector indexes are supported only on tables with BillingMode PAY_PER_REQUEST")
    hashed = [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"}]
    assert _create_error(ddb, [vector_index(schema=hashed)]) == (
        "ValidationException", "One element in SearchSchema is not defined in attribute definitions")
    cat = [{"AttributeName": "cat", "AttributeType": "S"},
           {"AttributeName": "dog", "AttributeType": "S"}]
    two = hashed + [{"AttributeName": "dog", "SearchSchemaElementType": "HASH"}]
    assert _create_error(ddb, [vector_index(schema=two)], cat) == (
        "ValidationException", INVALID + "SearchSchema can have at most one HASH element")
    assert _create_error(ddb, [vector_index(), vector_index()]) == (
        "ValidationException", INVALID + "Duplicate index name: vix")
    assert _create_error(ddb, [vector_index(), vector_index("other", dims=4)]) == (
        "ValidationException", INVALID + "Vector indexes on attribute v must have the same "
        "number of dimensions: 8 and 4")
    assert _create_error(ddb, [vector_index(dims=5000)]) == (
        "ValidationException", INVALID + "Dimensions must be between 1 and 4096, but was 5000")
    assert _create_error(ddb, [vector_index(attribute="pk")]) == (
        "ValidationException", INVALID + "Vector attribute pk cannot be a key or a SearchSchema "
        "attribute")
    many = {"ProjectionType": "INCLUDE", "NonKeyAttributes": [f"a{i}" for i in range(20)]}
    assert _create_error(ddb, [vector_index(projection=many)]) == (
        "LimitExceededException", INVALID + "Number of projected attributes in vector index "
        "exceeds limit of 20, number of projected attributes:21")
    code, _ = _create_error(ddb, [dict(vector_index(), DistanceFunction="MANHATTAN")])
    assert code == "ValidationException"


def test_update_table_rules(ddb):
    name = unique_name()
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PROVISIONED",
                     ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName=name, VectorIndexUpdates=[{"Create": vector_index()}])
    assert error_of(excinfo)[1] == (INVALID + "Vector indexes are supported only on tables "
                                    "with BillingMode PAY_PER_REQUEST")
    table = create(ddb, [vector_index()])
    for updates, expected in [
            ([{"Create": vector_index("aaa")}, {"Create": vector_index("bbb")}],
             ("ValidationException", INVALID + "Only one vector index can be created or "
              "deleted per UpdateTable")),
            ([{}], ("ValidationException", INVALID + "One of VectorIndexUpdate.Create, "
                    "VectorIndexUpdate.Delete must be specified, and only one")),
            ([{"Delete": {"IndexName": "nope"}}],
             ("ResourceNotFoundException", "Requested resource not found: Index: nope not found")),
            ([{"Create": vector_index()}], ("ValidationException",
                                            INVALID + "Duplicate index name: vix"))]:
        with pytest.raises(ClientError) as excinfo:
            ddb.update_table(TableName=table, VectorIndexUpdates=updates)
        assert error_of(excinfo) == expected
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName=table, BillingMode="PROVISIONED", ProvisionedThroughput={
            "ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert error_of(excinfo)[1] == (INVALID + "Vector indexes are supported only on tables "
                                    "with BillingMode PAY_PER_REQUEST")


def test_search_rules(ddb):
    table = create(ddb, [vector_index()])

    def refused(**request) -> tuple[str, str]:
        request = {"TableName": table, "IndexName": "vix", "TopK": 1,
                   "SearchVector": as_list([0.0] * DIMS)["L"], **request}
        with pytest.raises(ClientError) as excinfo:
            ddb.search_vectors(**request)
        return error_of(excinfo)

    assert refused(TopK=101) == ("ValidationException", "Provided TopK value is out of valid range")
    assert refused(IndexName="nope") == ("ValidationException",
                                         "The table does not have the specified index: nope")
    assert refused(TableName=unique_name())[0] == "ResourceNotFoundException"
    assert refused(SearchVector=as_list([0.0] * 3)["L"]) == (
        "ValidationException", INVALID + f"SearchVector has 3 dimensions, but vector index vix "
        f"expects {DIMS}")
    assert refused(SearchVector=[{"S": "x"}] * DIMS) == (
        "ValidationException", INVALID + "SearchVector must be a list of numbers")
    assert refused(SearchConditionExpression="v = :x", ExpressionAttributeValues={
        ":x": {"N": "1"}}) == ("ValidationException", "Attribute v in SearchConditionExpression "
                                "is not in the vector index's SearchSchema")
    assert refused(ProjectionExpression="#a")[0] == "ValidationException"  # undefined name
    assert search(ddb, table, [0.0] * DIMS) == []


def test_search_while_backfilling_is_refused(tmp_path):
    slow = Server("--status-delay", "300", data_dir=str(tmp_path))  # a backfill waits as long
    try:
        ddb = slow.client()
        name = unique_name()
        ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode=ON_DEMAND)
        advance(slow, 300)
        vectors = fill(ddb, name, 30)
        ddb.update_table(TableName=name, VectorIndexUpdates=[{"Create": vector_index()}])
        with pytest.raises(ClientError) as excinfo:
            search(ddb, name, np.ones(DIMS))
        assert error_of(excinfo) == ("ValidationException",
                                     "Cannot search backfilling vector index: vix")
        advance(slow, 300)
        wait_for(lambda: ddb.describe_table(TableName=name)["Table"]["VectorIndexes"][0][
            "IndexStatus"] == "ACTIVE")
        assert [r["Item"]["pk"]["S"] for r in search(ddb, name, np.ones(DIMS), k=3)] == [
            key for key, _ in reference(vectors, np.ones(DIMS), "EUCLIDEAN", 3)]
    finally:
        slow.stop()


def test_random_data_with_many_ties_matches_reference(ddb):
    table = create(ddb, [vector_index(distance="EUCLIDEAN")])
    rng = random.Random(3)
    vectors = {}
    for i in range(40):
        vector = np.array([rng.choice([0.0, 1.0]) for _ in range(DIMS)], np.float32)
        vectors[f"r{i}"] = vector
        ddb.put_item(TableName=table, Item={"pk": {"S": f"r{i}"}, "v": as_list(vector)})
    query = np.zeros(DIMS)
    found = search(ddb, table, query, k=40)
    scores = [r["Score"] for r in found]
    assert scores == sorted(scores)
    expected = sorted(math.sqrt(float(v @ v)) for v in vectors.values())
    assert scores == pytest.approx(expected, abs=1e-5)


def test_a_ttl_deletion_leaves_the_index():
    own = Server()
    try:
        ddb = own.client()
        table = create(ddb, [vector_index()])
        ddb.update_time_to_live(TableName=table, TimeToLiveSpecification={
            "Enabled": True, "AttributeName": "exp"})
        now = advance(own, 0)
        ddb.put_item(TableName=table, Item={"pk": {"S": "gone"}, "v": as_list([1.0] * DIMS),
                                            "exp": {"N": str(int(now) + 60)}})
        ddb.put_item(TableName=table, Item={"pk": {"S": "kept"}, "v": as_list([2.0] * DIMS)})
        assert len(search(ddb, table, [1.0] * DIMS)) == 2
        advance(own, 120)
        wait_for(lambda: ddb.scan(TableName=table)["Count"] == 1)
        assert [r["Item"]["pk"]["S"] for r in search(ddb, table, [1.0] * DIMS)] == ["kept"]
    finally:
        own.stop()


def test_two_nodes_over_one_database_see_each_others_writes():
    with new_database() as url:
        first, second = Server("--postgres", url), Server("--postgres", url)
        try:
            a, b = first.client(), second.client()
            table = create(a, [vector_index()])
            one = [1.0] * DIMS
            a.put_item(TableName=table, Item={"pk": {"S": "x"}, "v": as_list(one)})
            assert [r["Item"]["pk"]["S"] for r in search(b, table, one)] == ["x"]
            a.put_item(TableName=table, Item={"pk": {"S": "y"}, "v": as_list([2.0] * DIMS)})
            a.delete_item(TableName=table, Key={"pk": {"S": "x"}})
            assert [r["Item"]["pk"]["S"] for r in search(b, table, one)] == ["y"]
            b.put_item(TableName=table, Item={"pk": {"S": "z"}, "v": as_list(one)})
            assert [r["Item"]["pk"]["S"] for r in search(a, table, one)] == ["z", "y"]
        finally:
            first.stop()
            second.stop()
