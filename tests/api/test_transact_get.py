"""TransactGetItems through boto3: projections, absent items, capacity, and one
consistent state under concurrent transfers."""
from __future__ import annotations

import threading

import pytest
from botocore.exceptions import ClientError

from conftest import error_of


def get(table, pk, **extra):
    return {"Get": {"TableName": table, "Key": {"pk": {"S": pk}}, **extra}}


def test_gets_with_projection_and_absent_items(ddb, table, make_table):
    other = make_table()
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "x": {"N": "1"},
                                        "m": {"M": {"y": {"S": "z"}, "w": {"S": "v"}}}})
    ddb.put_item(TableName=other, Item={"pk": {"S": "b"}})
    reply = ddb.transact_get_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
        get(table, "a", ProjectionExpression="#m.y", ExpressionAttributeNames={"#m": "m"}),
        get(table, "missing"),
        get(other, "b")])
    assert reply["Responses"] == [{"Item": {"m": {"M": {"y": {"S": "z"}}}}}, {},
                                  {"Item": {"pk": {"S": "b"}}}]
    assert reply["ConsumedCapacity"] == [
        {"TableName": table, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0},
        {"TableName": other, "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}]


def test_unused_name_and_missing_table(ddb, table):
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_get_items(TransactItems=[
            get(table, "a", ExpressionAttributeNames={"#m": "m"}, ProjectionExpression="x")])
    assert error_of(excinfo) == (
        "ValidationException",
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#m}")
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_get_items(TransactItems=[get("no-such-table", "a")])
    assert error_of(excinfo) == ("ResourceNotFoundException", "Requested resource not found")


@pytest.mark.parametrize("key", [{}, {"pk": {"N": "1"}}])
@pytest.mark.parametrize("alone", [True, False])
def test_a_key_the_schema_refuses_cancels(ddb, table, key, alone):
    bad = {"Get": {"TableName": table, "Key": key}}
    items = [bad] if alone else [get(table, "a"), bad]
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_get_items(TransactItems=items)
    code, message = error_of(excinfo)
    failed = {"Code": "ValidationError",
              "Message": "The provided key element does not match the schema"}
    assert code == "TransactionCanceledException"
    assert excinfo.value.response["CancellationReasons"] == (
        [failed] if alone else [{"Code": "None"}, failed])
    assert message.endswith("[ValidationError]" if alone else "[None, ValidationError]")


def test_one_item_twice(ddb, table):
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_get_items(TransactItems=[get(table, "a"), get(table, "a")])
    assert error_of(excinfo) == (  # unverified wording (a ValidationException: recorded)
        "ValidationException",
        "Transaction request cannot include multiple operations on one item")


def test_reads_one_state_while_transfers_run(server, table):
    """Transfers move amounts between two accounts in transactions; every
    TransactGetItems must see a total of 100. Reading the two accounts from different
    states would catch a transfer half done."""
    ddb = server.client()
    for pk, amount in (("a", "100"), ("b", "0")):
        ddb.put_item(TableName=table, Item={"pk": {"S": pk}, "n": {"N": amount}})
    done = threading.Event()

    def transfer():
        client = server.client()
        try:
            for i in range(60):
                source, target = ("a", "b") if i % 2 == 0 else ("b", "a")
                step = {":d": {"N": "7"}}
                while True:
                    try:
                        client.transact_write_items(TransactItems=[
                            {"Update": {"TableName": table, "Key": {"pk": {"S": source}},
                                        "UpdateExpression": "SET n = n - :d",
                                        "ExpressionAttributeValues": step}},
                            {"Update": {"TableName": table, "Key": {"pk": {"S": target}},
                                        "UpdateExpression": "SET n = n + :d",
                                        "ExpressionAttributeValues": step}}])
                        break
                    except ClientError as error:  # a conflict with an audit in flight: retry
                        assert error.response["Error"]["Code"] == "TransactionCanceledException"
        finally:
            done.set()

    totals = []

    def audit():
        client = server.client()
        while not done.is_set():
            try:
                reply = client.transact_get_items(TransactItems=[get(table, "a"), get(table, "b")])
            except ClientError as error:  # a conflict with a transfer in flight
                assert error.response["Error"]["Code"] == "TransactionCanceledException"
                continue
            totals.append(sum(int(r["Item"]["n"]["N"]) for r in reply["Responses"]))

    threads = [threading.Thread(target=transfer)] + [threading.Thread(target=audit)
                                                      for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert totals and set(totals) == {100}
