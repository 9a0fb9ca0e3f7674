"""Where the one read path and the one write loop order and bound what a request
reads and bills (found in review of the capacity ledger)."""
from __future__ import annotations

import uuid


def _tables(ddb, count: int) -> list[str]:
    names = [f"order{i}-{uuid.uuid4().hex[:8]}" for i in range(count)]
    for name in names:
        ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
    return names


def test_batch_write_lists_consumed_capacity_in_request_order(ddb):
    """Writes are locked in table-id order; the reply still names the tables in the
    order the request gives them (as before the ledger: users match them by position)."""
    first, second = _tables(ddb, 2)
    for order in ((second, first), (first, second)):
        reply = ddb.batch_write_item(RequestItems={
            name: [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}] for name in order},
            ReturnConsumedCapacity="TOTAL")
        assert [entry["TableName"] for entry in reply["ConsumedCapacity"]] == list(order)


def test_a_select_over_several_partitions_stops_at_1_mb(ddb, sorted_table):
    """A page holds at most 1 MB of items read, whatever number of partitions a WHERE
    ... IN names (each partition's reads count toward the same page)."""
    big = "x" * 350_000
    for pk in "abc":
        for sk in "12":
            ddb.put_item(TableName=sorted_table, Item={"pk": {"S": pk}, "sk": {"S": sk},
                                                       "big": {"S": big}})
    statement = f"SELECT pk, sk FROM \"{sorted_table}\" WHERE pk IN ['a', 'b', 'c']"
    reply = ddb.execute_statement(Statement=statement)
    # 350,009 B each: the third item read reaches 1 MB
    assert len(reply["Items"]) == 3 and "NextToken" in reply
    rest = ddb.execute_statement(Statement=statement, NextToken=reply["NextToken"])
    assert len(rest["Items"]) == 3 and "NextToken" in rest
    assert ddb.execute_statement(Statement=statement, NextToken=rest["NextToken"])["Items"] == []
