"""TransactWriteItems through boto3: all or nothing, cancellation reasons, same-item
rule, idempotency tokens, capacity, and isolation under concurrent clients."""
from __future__ import annotations

import threading
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import error_of

CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons "


def put(table, pk, **attrs):
    item = {"pk": {"S": pk}, **attrs}
    return {"Put": {"TableName": table, "Item": item}}


def add(table, pk, amount="1", condition=None, values=None):
    update = {"TableName": table, "Key": {"pk": {"S": pk}}, "UpdateExpression": "ADD n :d",
              "ExpressionAttributeValues": {":d": {"N": amount}, **(values or {})}}
    if condition:
        update["ConditionExpression"] = condition
    return {"Update": update}


def cancelled(ddb, items, **extra):
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=items, **extra)
    response = excinfo.value.response
    return error_of(excinfo), response.get("CancellationReasons")


def item(ddb, table, pk):
    return ddb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item")


def test_all_actions_apply_together(ddb, table, make_table):
    other = make_table()
    ddb.put_item(TableName=table, Item={"pk": {"S": "gone"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "checked"}, "ok": {"BOOL": True}})
    ddb.transact_write_items(TransactItems=[
        put(table, "new", v={"S": "x"}),
        add(other, "counter", "5"),
        {"Delete": {"TableName": table, "Key": {"pk": {"S": "gone"}}}},
        {"ConditionCheck": {"TableName": table, "Key": {"pk": {"S": "checked"}},
                            "ConditionExpression": "ok = :t",
                            "ExpressionAttributeValues": {":t": {"BOOL": True}}}},
    ])
    assert item(ddb, table, "new") == {"pk": {"S": "new"}, "v": {"S": "x"}}
    assert item(ddb, other, "counter") == {"pk": {"S": "counter"}, "n": {"N": "5"}}
    assert item(ddb, table, "gone") is None


def test_failed_condition_cancels_everything(ddb, table):
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    (code, message), reasons = cancelled(ddb, [
        put(table, "b"),
        add(table, "a", condition="n = :two", values={":two": {"N": "2"}}),
        {"Delete": {"TableName": table, "Key": {"pk": {"S": "a2"}}}},
    ])
    assert code == "TransactionCanceledException"
    assert message == CANCELLED + "[None, ConditionalCheckFailed, None]"
    assert reasons == [{"Code": "None"},
                       {"Code": "ConditionalCheckFailed",
                        "Message": "The conditional request failed"},
                       {"Code": "None"}]
    assert item(ddb, table, "b") is None
    assert item(ddb, table, "a") == {"pk": {"S": "a"}, "n": {"N": "1"}}


def test_all_old_returns_the_item_in_the_reason(ddb, table):
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": {"S": "old"}})
    _, reasons = cancelled(ddb, [{"ConditionCheck": {
        "TableName": table, "Key": {"pk": {"S": "a"}},
        "ConditionExpression": "attribute_not_exists(pk)",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}])
    assert reasons == [{"Code": "ConditionalCheckFailed",
                        "Message": "The conditional request failed",
                        "Item": {"pk": {"S": "a"}, "v": {"S": "old"}}}]


def test_update_error_at_apply_time_is_a_validation_reason(ddb, table):
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "s": {"S": "text"}})
    (_, message), reasons = cancelled(ddb, [
        put(table, "b"),
        {"Update": {"TableName": table, "Key": {"pk": {"S": "a"}},
                    "UpdateExpression": "ADD s :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}}])
    assert message == CANCELLED + "[None, ValidationError]"
    assert reasons[1]["Code"] == "ValidationError"
    assert item(ddb, table, "b") is None


def test_two_actions_on_one_item_rejected(ddb, table):
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[
            put(table, "a"),
            {"ConditionCheck": {"TableName": table, "Key": {"pk": {"S": "a"}},
                                "ConditionExpression": "attribute_exists(pk)"}}])
    assert error_of(excinfo) == (
        "ValidationException",
        "Transaction request cannot include multiple operations on one item")


def test_aggregate_size_over_four_megabytes(ddb, table):
    big = {"d": {"S": "x" * 390_000}}
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[put(table, f"p{i}", **big) for i in range(11)])
    code, message = error_of(excinfo)
    # recorded: a ValidationException containing "size cannot exceed" (the rest unverified)
    assert code == "ValidationException" and "size cannot exceed" in message
    assert item(ddb, table, "p0") is None


@pytest.mark.parametrize("bad", [
    {"Put": {"Item": {"pk": {"N": "1"}}}},
    {"Update": {"Key": {"pk": {"N": "1"}}, "UpdateExpression": "SET v = :v",
                "ExpressionAttributeValues": {":v": {"S": "v"}}}},
    {"Delete": {"Key": {"pk": {"N": "1"}}}},
    {"ConditionCheck": {"Key": {"pk": {"N": "1"}}, "ConditionExpression": "attribute_exists(pk)"}},
])
@pytest.mark.parametrize("alone", [True, False])
def test_key_of_the_wrong_type_cancels(ddb, table, bad, alone):
    (kind, action), = bad.items()
    bad = {kind: {"TableName": table, **action}}
    items = [bad] if alone else [put(table, "a"), bad, put(table, "b")]
    (code, message), reasons = cancelled(ddb, items)
    assert code == "TransactionCanceledException"
    failed = {"Code": "ValidationError",
              "Message": "One or more parameter values were invalid: Type mismatch for key pk "
                         "expected: S actual: N" if kind == "Put"
              else "The provided key element does not match the schema"}
    if alone:
        assert reasons == [failed]
        assert message == CANCELLED + "[ValidationError]"
    else:
        assert reasons == [{"Code": "None"}, failed, {"Code": "None"}]
        assert message == CANCELLED + "[None, ValidationError, None]"
        assert item(ddb, table, "a") is None


def test_only_the_first_refused_key_has_a_reason(ddb, table):
    # recorded (issue 39): later refused keys, and a condition that would fail, are None
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    (code, message), reasons = cancelled(ddb, [
        {"ConditionCheck": {"TableName": table, "Key": {"pk": {"S": "a"}},
                            "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": table, "Item": {"pk": {"N": "1"}}}},
        {"Delete": {"TableName": table, "Key": {"pk": {"B": b"x"}}}},
        {"Put": {"TableName": table, "Item": {"pk": {"N": "2"}}}}])
    assert code == "TransactionCanceledException"
    assert message == CANCELLED + "[None, ValidationError, None, None]"
    assert reasons == [{"Code": "None"},
                       {"Code": "ValidationError", "Message": "One or more parameter values were "
                        "invalid: Type mismatch for key pk expected: S actual: N"},
                       {"Code": "None"}, {"Code": "None"}]


def test_one_action_per_entry(server, table):
    reply = server.post("TransactWriteItems", {"TransactItems": [
        {**put(table, "a"), "Delete": {"TableName": table, "Key": {"pk": {"S": "a"}}}}]})
    assert reply.status == 400
    assert reply.json["message"] == (
        "TransactItems can only contain one of Check, Put, Update or Delete")


def test_missing_table_and_key_attribute_update(ddb, table):
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[put("no-such-table", "a")])
    assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not found")
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[{"Update": {
            "TableName": table, "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET pk = :v",
            "ExpressionAttributeValues": {":v": {"S": "b"}}}}])
    assert error_of(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: Cannot update attribute pk. "
        "This attribute is part of the key")


def test_capacity_two_units_per_item(ddb, table, make_table):
    other = make_table()
    ddb.put_item(TableName=table, Item={"pk": {"S": "c"}})
    reply = ddb.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        put(table, "a", big={"S": "x" * 1500}),  # 2 KB: 2 units, doubled
        add(other, "b"),
        {"ConditionCheck": {"TableName": table, "Key": {"pk": {"S": "c"}},
                            "ConditionExpression": "attribute_exists(pk)"}}])
    assert reply["ConsumedCapacity"] == [
        {"TableName": table, "CapacityUnits": 6.0, "WriteCapacityUnits": 6.0},
        {"TableName": other, "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}]


def test_capacity_counts_index_writes(ddb):
    """A write that puts an index entry also spends on the index, at the standard rate."""
    from test_indexes import gsi, indexed_table
    table = indexed_table(ddb, [gsi("byg", ("g", "HASH"), projection={"ProjectionType": "KEYS_ONLY"})])
    reply = ddb.transact_write_items(ReturnConsumedCapacity="INDEXES", TransactItems=[
        {"Put": {"TableName": table, "Item": {"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "x"}}}},
        {"Put": {"TableName": table, "Item": {"pk": {"S": "b"}, "sk": {"S": "1"}}}}])
    assert reply["ConsumedCapacity"] == [{
        "TableName": table, "CapacityUnits": 5.0, "WriteCapacityUnits": 5.0,
        "Table": {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0},
        "GlobalSecondaryIndexes": {"byg": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}}}]


def test_legacy_members_are_no_part_of_an_action(server, table):
    """A transaction's Put, Update, Delete and ConditionCheck have no Expected,
    ConditionalOperator or AttributeUpdates: members the model does not know are ignored
    (a non-object Expected once crashed the handler)."""
    ddb = server.client()
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": {"N": "1"}})
    reply = server.post("TransactWriteItems", {"TransactItems": [
        {"Put": {"TableName": table, "Item": {"pk": {"S": "a"}, "v": {"N": "2"}},
                 "Expected": {"v": {"Exists": False}}, "ConditionalOperator": "OR"}},
        {"Update": {"TableName": table, "Key": {"pk": {"S": "b"}}, "UpdateExpression": "SET w = :w",
                    "ExpressionAttributeValues": {":w": {"N": "1"}},
                    "AttributeUpdates": {"x": {"Action": "PUT", "Value": {"N": "1"}}}}},
        {"Delete": {"TableName": table, "Key": {"pk": {"S": "c"}}, "Expected": 1}}]})
    assert (reply.status, reply.json) == (200, {})
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"]["v"] == {"N": "2"}
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "b"}})["Item"] == {
        "pk": {"S": "b"}, "w": {"N": "1"}}


def test_client_token_replays_without_writing(ddb, table):
    token = str(uuid.uuid4())
    items = [add(table, "a")]
    first = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token,
                                     ReturnConsumedCapacity="TOTAL")
    again = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token,
                                     ReturnConsumedCapacity="TOTAL")
    assert item(ddb, table, "a") == {"pk": {"S": "a"}, "n": {"N": "1"}}
    assert first["ConsumedCapacity"] == [
        {"TableName": table, "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}]
    assert again["ConsumedCapacity"] == [
        {"TableName": table, "CapacityUnits": 1.0, "ReadCapacityUnits": 1.0}]
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(TransactItems=[add(table, "a", "2")], ClientRequestToken=token)
    assert error_of(excinfo) == (
        "IdempotentParameterMismatchException",
        "The request uses the same client token as a previous, but non-identical request.")


def test_cancelled_transaction_frees_its_token(ddb, table):
    token = str(uuid.uuid4())
    guarded = [add(table, "a", condition="attribute_exists(pk)")]
    cancelled(ddb, guarded, ClientRequestToken=token)
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}})
    ddb.transact_write_items(TransactItems=guarded, ClientRequestToken=token)
    assert item(ddb, table, "a") == {"pk": {"S": "a"}, "n": {"N": "1"}}


def test_concurrent_optimistic_transactions_lose_no_update(server, table):
    """Clients read a version and write both items only if it is unchanged. Without
    isolation two clients would both pass the check and one increment would vanish:
    the counters would fall behind the count of successful transactions."""
    ddb = server.client()
    ddb.put_item(TableName=table, Item={"pk": {"S": "x"}, "v": {"N": "0"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "y"}, "v": {"N": "0"}})
    successes = []

    def worker():
        client = server.client()
        for _ in range(15):
            version = item(client, table, "x")["v"]["N"]
            step = {":v": {"N": version}, ":one": {"N": "1"}}
            try:
                client.transact_write_items(TransactItems=[
                    {"Update": {"TableName": table, "Key": {"pk": {"S": key}},
                                "UpdateExpression": "SET v = v + :one",
                                "ConditionExpression": "v = :v",
                                "ExpressionAttributeValues": step}} for key in ("x", "y")])
                successes.append(1)
            except ClientError as error:
                assert error.response["Error"]["Code"] == "TransactionCanceledException"

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert successes
    assert item(ddb, table, "x")["v"] == item(ddb, table, "y")["v"] == {"N": str(len(successes))}
