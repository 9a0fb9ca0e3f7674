"""Query's validation through boto3: key condition structure, Select and its
combinations, indexes, ExclusiveStartKey. Whole messages are compared; the texts
quoted in public reports of DynamoDB's replies are marked "verified"."""
from __future__ import annotations

import pytest

from items_common import NOT_FOUND, fails

P = {":p": {"S": "p"}}


def invalid(message: str) -> tuple[str, str]:
    return "ValidationException", message


@pytest.fixture
def indexed(ddb) -> str:
    """A table (pk, sk) with a KEYS_ONLY GSI on g, an INCLUDE GSI on (g, h) keeping
    `kept`, and an LSI on l."""
    from conftest import unique_name
    name = unique_name()
    attributes = [("pk", "S"), ("sk", "S"), ("g", "S"), ("h", "N"), ("l", "S")]
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in attributes],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {"IndexName": "keys", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}},
            {"IndexName": "incl", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                {"AttributeName": "h", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["kept"]}}],
        LocalSecondaryIndexes=[
            {"IndexName": "local", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                 {"AttributeName": "l", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    return name


def query_fails(ddb, table, condition, values=None, **params) -> tuple[str, str]:
    if condition is not None:
        params["KeyConditionExpression"] = condition
    if values is not None:
        params["ExpressionAttributeValues"] = values
    return fails(ddb.query, TableName=table, **params)


def test_key_condition_required(ddb, sorted_table):  # verified
    assert query_fails(ddb, sorted_table, None) == invalid(
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the "
        "request.")


@pytest.mark.parametrize("condition, operator", [
    ("pk = :p OR sk = :s", "OR"),  # verified
    ("pk = :p AND sk IN (:s)", "IN"),  # verified
    ("pk = :p AND NOT sk = :s", "NOT"),
    ("pk = :p AND sk <> :s", "<>"),
    ("pk = :p AND contains(sk, :s)", "contains"),
])
def test_operators_a_key_condition_refuses(ddb, sorted_table, condition, operator):
    assert query_fails(ddb, sorted_table, condition, P | {":s": {"S": "s"}}) == invalid(
        f"Invalid operator used in KeyConditionExpression: {operator}")


def test_partition_key_required(ddb, sorted_table):  # verified
    assert query_fails(ddb, sorted_table, "sk = :s", {":s": {"S": "s"}}) == invalid(
        "Query condition missed key schema element: pk")


def test_wrong_attribute_reports_the_missing_partition_key(ddb, sorted_table):
    assert query_fails(ddb, sorted_table, "zzz = :p", P) == invalid(
        "Query condition missed key schema element: pk")


def test_one_condition_per_key(ddb, sorted_table):  # verified
    values = P | {":a": {"S": "a"}, ":b": {"S": "b"}}
    assert query_fails(ddb, sorted_table, "pk = :p AND sk > :a AND sk < :b", values) == invalid(
        "KeyConditionExpressions must only contain one condition per key")


@pytest.mark.parametrize("condition", ["pk > :p", "begins_with(pk, :p)", "pk = :p AND x = :p"])
def test_conditions_dynamodb_does_not_support(ddb, sorted_table, condition):
    assert query_fails(ddb, sorted_table, condition, P) == invalid(
        "Query key condition not supported")


@pytest.mark.parametrize("condition, names", [
    ("pk.b = :p", None),
    ("pk[0] = :p", None),
    ("pk = :p AND sk.b = :p", None),
    ("pk = :p AND begins_with(sk.b, :p)", None),
    ("pk = :p AND sk.b BETWEEN :p AND :p", None),
    ("#d.b = :p", {"#d": "pk"}),
])
def test_key_condition_on_a_nested_attribute(ddb, sorted_table, condition, names):
    # as captured from DynamoDB with the AWS CLI (a public report)
    extra = {} if names is None else {"ExpressionAttributeNames": names}
    assert query_fails(ddb, sorted_table, condition, P, **extra) == invalid(
        "Invalid KeyConditionExpression: KeyConditionExpressions cannot have conditions on "
        "nested attributes")


def test_value_type_must_match_the_key(ddb, sorted_table):
    assert query_fails(ddb, sorted_table, "pk = :p AND sk = :n",
                       P | {":n": {"N": "1"}}) == invalid(
        "One or more parameter values were invalid: Condition parameter type does not match "
        "schema type")


def test_filter_may_not_name_a_key(ddb, sorted_table):
    assert query_fails(ddb, sorted_table, "pk = :p", P | {":s": {"S": "s"}},
                       FilterExpression="sk = :s") == invalid(
        "Filter Expression can only contain non-primary key attributes: "
        "Primary key attribute: sk")


def test_missing_table(ddb):
    assert query_fails(ddb, "no-such-table", "pk = :p", P) == NOT_FOUND


@pytest.mark.parametrize("select", ["ALL_ATTRIBUTES", "COUNT", "ALL_PROJECTED_ATTRIBUTES"])
def test_projection_needs_specific_attributes(ddb, sorted_table, select):  # verified wording
    assert query_fails(ddb, sorted_table, "pk = :p", P, Select=select,
                       ProjectionExpression="a") == invalid(
        f"Cannot specify the ProjectionExpression when choosing to get {select}")


def test_specific_attributes_needs_a_projection(ddb, sorted_table):
    assert query_fails(ddb, sorted_table, "pk = :p", P, Select="SPECIFIC_ATTRIBUTES") == invalid(
        "Must specify the ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")


def test_all_projected_attributes_needs_an_index(ddb, sorted_table):
    assert query_fails(ddb, sorted_table, "pk = :p", P,
                       Select="ALL_PROJECTED_ATTRIBUTES") == invalid(
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")


def test_shape_errors_come_first(server, sorted_table):
    reply = server.post("Query", {"TableName": sorted_table, "Limit": 0,
                                  "Select": "SPECIFIC_ATTRIBUTES"})
    assert reply.status == 400
    assert reply.json["message"] == (
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1")


def test_limit_zero(server, sorted_table):  # verified
    reply = server.post("Query", {"TableName": sorted_table, "KeyConditionExpression": "pk = :p",
                                  "ExpressionAttributeValues": P, "Limit": 0})
    assert (reply.status, reply.json["message"]) == (400, (
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1"))


def test_invalid_select(server, sorted_table):  # verified
    reply = server.post("Query", {"TableName": sorted_table, "KeyConditionExpression": "pk = :p",
                                  "ExpressionAttributeValues": P, "Select": "INVALID_VALUE"})
    assert (reply.status, reply.json["message"]) == (400, (
        "1 validation error detected: Value 'INVALID_VALUE' at 'select' failed to satisfy "
        "constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, "
        "ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"))


def test_unknown_index(ddb, indexed):
    assert query_fails(ddb, indexed, "g = :p", P, IndexName="nope") == invalid(
        "The table does not have the specified index: nope")


def test_consistent_read_on_a_global_index(ddb, indexed):  # verified
    assert query_fails(ddb, indexed, "g = :p", P, IndexName="keys",
                       ConsistentRead=True) == invalid(
        "Consistent reads are not supported on global secondary indexes")


def test_all_attributes_from_a_partial_global_index(ddb, indexed):  # verified
    assert query_fails(ddb, indexed, "g = :p", P, IndexName="keys",
                       Select="ALL_ATTRIBUTES") == invalid(
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported "
        "for global secondary index keys because its projection type is not ALL")


def test_projection_beyond_a_global_index(ddb, indexed):  # verified
    assert query_fails(ddb, indexed, "g = :p", P, IndexName="incl",
                       ProjectionExpression="kept, zzz, pk") == invalid(
        "One or more parameter values were invalid: Global secondary index incl does not project "
        "[zzz]")


def test_index_key_condition_names_the_index_keys(ddb, indexed):
    assert query_fails(ddb, indexed, "pk = :p", P, IndexName="keys") == invalid(
        "Query condition missed key schema element: g")
    assert query_fails(ddb, indexed, "g = :p AND sk = :p", P, IndexName="incl") == invalid(
        "Query key condition not supported")


@pytest.mark.parametrize("params", [
    {"IndexName": "local"},
    {"IndexName": "local", "Select": "ALL_ATTRIBUTES", "ConsistentRead": True},
    {"IndexName": "local", "ProjectionExpression": "zzz"},
    {"IndexName": "incl", "Select": "ALL_PROJECTED_ATTRIBUTES"},
])
def test_index_queries_dynamodb_accepts(ddb, indexed, params):
    condition = "pk = :p" if params["IndexName"] == "local" else "g = :p"
    reply = ddb.query(TableName=indexed, KeyConditionExpression=condition,
                      ExpressionAttributeValues=P, **params)
    assert (reply["Items"], reply["Count"]) == ([], 0)


@pytest.mark.parametrize("start", [
    {"pk": {"S": "p"}},
    {"pk": {"S": "p"}, "sk": {"S": "s"}, "x": {"S": "x"}},
])
def test_start_key_must_match_the_schema(ddb, sorted_table, start):
    # a Query does not say why (a Scan does: test_scan.py)
    assert query_fails(ddb, sorted_table, "pk = :p", P, ExclusiveStartKey=start) == invalid(
        "The provided starting key is invalid")


@pytest.mark.parametrize("start", [
    {"pk": {"S": "p"}, "sk": {"N": "1"}},
    {"pk": {"N": "1"}, "sk": {"S": "s"}},
])
def test_start_key_of_the_wrong_types(ddb, sorted_table, start):
    # issue 39 (recorded): the schema's names with other types, as for a Scan
    assert query_fails(ddb, sorted_table, "pk = :p", P, ExclusiveStartKey=start) == invalid(
        "The provided key element does not match the schema")


# A table without a sort key: DynamoDB's message is recorded up to the colon (issue 39);
# the reason after it is unverified.
@pytest.mark.parametrize("start, message", [
    ({"x": {"S": "p"}}, "The provided exclusive start key is invalid: The provided key "
                        "element does not match the schema"),
    ({"pk": {"S": "p"}, "x": {"S": "x"}}, "The provided exclusive start key is invalid: The "
                                          "provided key element does not match the schema"),
    ({"pk": {"N": "1"}}, "The provided key element does not match the schema"),
])
def test_start_key_on_a_table_without_sort_key(ddb, table, start, message):
    assert query_fails(ddb, table, "pk = :p", P, ExclusiveStartKey=start) == invalid(message)


def test_start_key_on_a_table_without_sort_key_continues_a_query(ddb, table):
    # okura's reading: the LastEvaluatedKey a Query returned is a valid start (unrecorded)
    ddb.put_item(TableName=table, Item={"pk": {"S": "p"}})
    first = ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues=P, Limit=1)
    rest = ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues=P, ExclusiveStartKey=first["LastEvaluatedKey"])
    assert (first["Count"], rest["Count"]) == (1, 0)


def test_start_key_of_another_partition(ddb, sorted_table):
    assert query_fails(ddb, sorted_table, "pk = :p", P,
                       ExclusiveStartKey={"pk": {"S": "q"}, "sk": {"S": "a"}}) == invalid(
        "The provided starting key is outside query boundaries based on provided condition(s)")


@pytest.mark.parametrize("condition", ["pk = :e", "pk = :p AND sk = :e"])
def test_key_values_are_never_empty(ddb, sorted_table, condition):
    name = "pk" if condition == "pk = :e" else "sk"
    values = {":e": {"S": ""}} | (P if ":p" in condition else {})
    assert query_fails(ddb, sorted_table, condition, values) == invalid(
        "One or more parameter values are not valid. The AttributeValue for a key attribute "
        f"cannot contain an empty string value. Key: {name}")


def test_start_key_outside_the_range(ddb, sorted_table):
    assert query_fails(ddb, sorted_table, "pk = :p AND sk > :s", P | {":s": {"S": "m"}},
                       ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"S": "a"}}) == invalid(
        "The provided starting key does not match the range key predicate")
