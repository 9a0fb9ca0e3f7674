"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction through boto3."""
from __future__ import annotations

import threading
import uuid

import pytest
from botocore.exceptions import ClientError

from conftest import error_of


@pytest.fixture
def pt(ddb, sorted_table):
    """A table (pk S, sk S) holding a/1, a/2, a/3 and b/1."""
    for pk, sk in (("a", "1"), ("a", "2"), ("a", "3"), ("b", "1")):
        ddb.put_item(TableName=sorted_table, Item={"pk": {"S": pk}, "sk": {"S": sk},
                                                   "n": {"N": sk}})
    return sorted_table


def run(ddb, statement, *parameters, **extra):
    if parameters:
        extra["Parameters"] = list(parameters)
    return ddb.execute_statement(Statement=statement, **extra)


def fails(ddb, statement, *parameters, **extra):
    with pytest.raises(ClientError) as excinfo:
        run(ddb, statement, *parameters, **extra)
    return error_of(excinfo)


def keys(items):
    return [(i["pk"]["S"], i["sk"]["S"]) for i in items]


def test_select_key_read_query_and_scan(ddb, pt):
    got = run(ddb, f'SELECT n FROM "{pt}" WHERE pk = ? AND sk = ?', {"S": "a"}, {"S": "2"},
              ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
    assert got["Items"] == [{"n": {"N": "2"}}]
    assert got["ConsumedCapacity"] == {"TableName": pt, "CapacityUnits": 1.0}
    assert keys(run(ddb, f"SELECT * FROM \"{pt}\" WHERE pk = 'a' AND n >= 2")["Items"]) == [
        ("a", "2"), ("a", "3")]
    assert sorted(keys(run(ddb, f"SELECT * FROM \"{pt}\" WHERE pk IN ['a', 'b'] "
                                "AND begins_with(sk, '1')")["Items"])) == [("a", "1"), ("b", "1")]
    assert keys(run(ddb, f"SELECT * FROM \"{pt}\" WHERE n BETWEEN 3 AND 9")["Items"]) == [
        ("a", "3")]
    assert run(ddb, f"SELECT * FROM \"{pt}\" WHERE n IS MISSING")["Items"] == []
    ddb.put_item(TableName=pt, Item={"pk": {"S": "c"}, "sk": {"S": "1"}, "n": {"NULL": True}})
    # PartiQL: IS NULL holds for a NULL and for a missing value, IS NOT NULL for neither
    assert sorted(keys(run(ddb, f"SELECT * FROM \"{pt}\" WHERE n IS NULL OR x IS NULL")[
        "Items"])) == [("a", "1"), ("a", "2"), ("a", "3"), ("b", "1"), ("c", "1")]
    assert keys(run(ddb, f"SELECT * FROM \"{pt}\" WHERE n IS NULL")["Items"]) == [("c", "1")]
    assert len(run(ddb, f"SELECT * FROM \"{pt}\" WHERE n IS NOT NULL")["Items"]) == 4


def test_limit_and_next_token_page_through_every_item(ddb, pt):
    seen, token = [], None
    while True:
        extra = {"NextToken": token} if token else {}
        page = run(ddb, f'SELECT * FROM "{pt}"', Limit=3, **extra)
        seen += keys(page["Items"])
        token = page.get("NextToken")
        if token is None:
            break
    assert sorted(seen) == [("a", "1"), ("a", "2"), ("a", "3"), ("b", "1")]


def test_insert_fails_if_the_item_exists(ddb, pt):
    run(ddb, f"INSERT INTO \"{pt}\" VALUE {{'pk': 'c', 'sk': '1', 's': <<'x', 'y'>>}}")
    assert ddb.get_item(TableName=pt, Key={"pk": {"S": "c"}, "sk": {"S": "1"}})["Item"][
        "s"] == {"SS": ["x", "y"]}
    assert fails(ddb, f"INSERT INTO \"{pt}\" VALUE {{'pk': 'c', 'sk': '1'}}") == (
        "DuplicateItemException", "Duplicate primary key exists in table")


def test_update_and_delete(ddb, pt):
    run(ddb, f"UPDATE \"{pt}\" SET n = n + 10 SET m = ? REMOVE x WHERE pk = 'a' AND sk = '1'",
        {"L": [{"S": "v"}]})
    item = ddb.get_item(TableName=pt, Key={"pk": {"S": "a"}, "sk": {"S": "1"}})["Item"]
    assert item["n"] == {"N": "11"} and item["m"] == {"L": [{"S": "v"}]}
    assert fails(ddb, f"UPDATE \"{pt}\" SET n = 1 WHERE pk = 'a' AND sk = '1' AND n = 5") == (
        "ConditionalCheckFailedException", "The conditional request failed")
    assert fails(ddb, f"UPDATE \"{pt}\" SET n = 1 WHERE pk = 'zz' AND sk = '1'") == (
        "ConditionalCheckFailedException", "The conditional request failed")
    assert fails(ddb, f"UPDATE \"{pt}\" SET n = 1 WHERE pk = 'a'") == (
        "ValidationException",
        "Where clause does not contain a mandatory equality on all key attributes")
    run(ddb, f"DELETE FROM \"{pt}\" WHERE pk = 'nobody' AND sk = '1'")
    run(ddb, f"DELETE FROM \"{pt}\" WHERE pk = 'a' AND sk = '2'")
    assert "Item" not in ddb.get_item(TableName=pt, Key={"pk": {"S": "a"}, "sk": {"S": "2"}})


def item_of(ddb, table, pk, sk):
    return ddb.get_item(TableName=table, Key={"pk": {"S": pk}, "sk": {"S": sk}}).get("Item")


def test_update_returning_each_choice(ddb, pt):
    where = "WHERE pk = 'a' AND sk = '1'"
    a1 = {"pk": {"S": "a"}, "sk": {"S": "1"}}
    assert run(ddb, f'UPDATE "{pt}" SET n = n + 1 {where} RETURNING ALL OLD *')["Items"] == [
        {**a1, "n": {"N": "1"}}]
    assert run(ddb, f'UPDATE "{pt}" SET n = n + 1, m = 5 {where} RETURNING ALL NEW *')[
        "Items"] == [{**a1, "n": {"N": "3"}, "m": {"N": "5"}}]
    assert run(ddb, f'UPDATE "{pt}" SET n = 7 REMOVE m {where} returning modified old *')[
        "Items"] == [{"n": {"N": "3"}, "m": {"N": "5"}}]
    assert run(ddb, f'UPDATE "{pt}" SET n = 8 SET x = 1 {where} RETURNING MODIFIED NEW *')[
        "Items"] == [{"n": {"N": "8"}, "x": {"N": "1"}}]
    # nothing modified is left to return: no item, as UpdateItem returns no Attributes
    assert run(ddb, f'UPDATE "{pt}" REMOVE x {where} RETURNING MODIFIED NEW *')["Items"] == []
    assert run(ddb, f'UPDATE "{pt}" SET n = 9 {where}')["Items"] == []
    assert fails(ddb, f'UPDATE "{pt}" SET n = 1 {where} RETURNING ALL *')[0] == (
        "ValidationException")
    assert fails(ddb, f'UPDATE "{pt}" SET n = 1 {where} RETURNING ALL NEW')[0] == (
        "ValidationException")


def test_delete_returning_the_old_item(ddb, pt):
    statement = f"DELETE FROM \"{pt}\" WHERE pk = 'a' AND sk = '2' RETURNING ALL OLD *"
    assert run(ddb, statement)["Items"] == [{"pk": {"S": "a"}, "sk": {"S": "2"}, "n": {"N": "2"}}]
    assert item_of(ddb, pt, "a", "2") is None
    assert run(ddb, statement)["Items"] == []  # nothing was there: nothing deleted
    for choice in ("ALL NEW", "MODIFIED OLD", "MODIFIED NEW"):
        assert fails(ddb, f"DELETE FROM \"{pt}\" WHERE pk = 'a' AND sk = '1' "
                          f"RETURNING {choice} *")[0] == "ValidationException"
    assert item_of(ddb, pt, "a", "1") is not None


def test_set_add_and_set_delete(ddb, pt):
    where = "WHERE pk = 'b' AND sk = '1'"
    run(ddb, f"UPDATE \"{pt}\" SET s = set_add(s, <<'x', 'y'>>) {where}")  # creates the set
    run(ddb, f"UPDATE \"{pt}\" SET s = SET_ADD(s, <<'y', 'z'>>), ns = set_add(ns, ?) {where}",
        {"NS": ["1", "2.50"]})
    item = item_of(ddb, pt, "b", "1")
    assert sorted(item["s"]["SS"]) == ["x", "y", "z"] and sorted(item["ns"]["NS"]) == ["1", "2.5"]
    assert run(ddb, f"UPDATE \"{pt}\" SET s = set_delete(s, <<'x', 'nope'>>) {where} "
                    "RETURNING MODIFIED NEW *")["Items"] == [{"s": {"SS": ["y", "z"]}}]
    run(ddb, f"UPDATE \"{pt}\" SET s = set_delete(s, <<'y', 'z'>>) {where}")
    assert "s" not in item_of(ddb, pt, "b", "1")  # an emptied set goes: there are no empty sets
    assert fails(ddb, f"UPDATE \"{pt}\" SET ns = set_add(ns, <<'a'>>) {where}") == (
        "ValidationException", "An operand in the update expression has an incorrect data type")
    assert fails(ddb, f"UPDATE \"{pt}\" SET n = set_add(n, <<1>>) {where}") == (
        "ValidationException", "An operand in the update expression has an incorrect data type")
    for bad in ("set_add(ns, 1)", "set_add(ns, [1])", "set_delete(ns, ?)"):
        assert fails(ddb, f"UPDATE \"{pt}\" SET ns = {bad} {where}",
                     *([{"N": "1"}] if "?" in bad else []))[0] == "ValidationException"
    assert fails(ddb, f"UPDATE \"{pt}\" SET ns = set_add(other, <<1>>) {where}")[0] == (
        "ValidationException")
    assert sorted(item_of(ddb, pt, "b", "1")["ns"]["NS"]) == ["1", "2.5"]


def test_order_by_the_keys(ddb, pt):
    def ordered(statement, **extra):
        seen, token = [], None
        while True:
            page = run(ddb, statement, **extra, **({"NextToken": token} if token else {}))
            seen += keys(page["Items"])
            token = page.get("NextToken")
            if token is None:
                return seen

    assert ordered(f"SELECT * FROM \"{pt}\" WHERE pk = 'a' ORDER BY sk DESC") == [
        ("a", "3"), ("a", "2"), ("a", "1")]
    assert ordered(f"SELECT * FROM \"{pt}\" WHERE pk = 'a' ORDER BY sk ASC", Limit=2) == [
        ("a", "1"), ("a", "2"), ("a", "3")]
    for limit in ({}, {"Limit": 1}, {"Limit": 2}):
        assert ordered(f"SELECT * FROM \"{pt}\" WHERE pk IN ['a', 'b'] "
                       "ORDER BY pk DESC, sk DESC", **limit) == [
            ("b", "1"), ("a", "3"), ("a", "2"), ("a", "1")]
    assert ordered(f"SELECT * FROM \"{pt}\" WHERE pk IN ['b', 'a'] ORDER BY pk") == [
        ("a", "1"), ("a", "2"), ("a", "3"), ("b", "1")]
    assert ordered(f"SELECT * FROM \"{pt}\" WHERE pk = 'a' AND n > 1 ORDER BY sk DESC") == [
        ("a", "3"), ("a", "2")]
    for statement in (f'SELECT * FROM "{pt}" ORDER BY sk', f"SELECT * FROM \"{pt}\" "
                      "WHERE n = 1 ORDER BY pk", f"SELECT * FROM \"{pt}\" WHERE pk = 'a' "
                      "ORDER BY n"):
        assert fails(ddb, statement)[0] == "ValidationException"


def test_returning_in_batches_and_transactions(ddb, pt):
    reply = ddb.batch_execute_statement(Statements=[
        {"Statement": f"UPDATE \"{pt}\" SET n = 5 WHERE pk = 'b' AND sk = '1' "
                      "RETURNING MODIFIED OLD *"},
        {"Statement": f"DELETE FROM \"{pt}\" WHERE pk = 'a' AND sk = '3' RETURNING ALL OLD *"}])
    assert reply["Responses"] == [
        {"TableName": pt, "Item": {"n": {"N": "1"}}},
        {"TableName": pt, "Item": {"pk": {"S": "a"}, "sk": {"S": "3"}, "n": {"N": "3"}}}]
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": f"UPDATE \"{pt}\" SET n = 6 WHERE pk = 'b' AND sk = '1' "
                          "RETURNING ALL NEW *"}])
    assert error_of(excinfo)[0] == "ValidationException"
    assert item_of(ddb, pt, "b", "1")["n"] == {"N": "5"}


def test_condition_failure_returns_the_old_item(server, pt):
    reply = server.post("ExecuteStatement", {
        "Statement": f"DELETE FROM \"{pt}\" WHERE pk = 'a' AND sk = '3' AND n = 0",
        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"})
    assert reply.status == 400
    assert reply.json["Item"] == {"pk": {"S": "a"}, "sk": {"S": "3"}, "n": {"N": "3"}}


def test_statement_errors(ddb, pt):
    assert fails(ddb, "DROP TABLE x") == (
        "ValidationException",
        "Statement wasn't well formed, can't be processed: Expected data manipulation")
    assert fails(ddb, f'SELECT * FROM "{pt}" WHERE pk = ?') == (
        "ValidationException", "Number of parameters in request and statement don't match.")
    assert fails(ddb, 'SELECT * FROM "no-such-table"') == (
        "ResourceNotFoundException", "Requested resource not found")


def test_batch_reports_each_statement(ddb, pt):
    reply = ddb.batch_execute_statement(Statements=[
        {"Statement": f"INSERT INTO \"{pt}\" VALUE {{'pk': 'b', 'sk': '1'}}"},
        {"Statement": f"INSERT INTO \"{pt}\" VALUE {{'pk': ?, 'sk': '9'}}",
         "Parameters": [{"S": "b"}]}])
    assert reply["Responses"] == [
        {"Error": {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}},
        {"TableName": pt}]
    reply = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT * FROM \"{pt}\" WHERE pk = 'b' AND sk = '1'"},
        {"Statement": f"SELECT * FROM \"{pt}\" WHERE pk = 'b'"}])
    assert reply["Responses"] == [
        {"TableName": pt, "Item": {"pk": {"S": "b"}, "sk": {"S": "1"}, "n": {"N": "1"}}},
        {"Error": {"Code": "ValidationError", "Message":
                   "Where clause does not contain a mandatory equality on all key attributes"}}]


def test_transaction_is_all_or_nothing_and_idempotent(ddb, pt):
    statements = [
        {"Statement": f"INSERT INTO \"{pt}\" VALUE {{'pk': 'new', 'sk': '1'}}"},
        {"Statement": f"EXISTS(SELECT * FROM \"{pt}\" WHERE pk = 'a' AND sk = '1' AND n = 9)"}]
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=statements)
    assert excinfo.value.response["CancellationReasons"] == [
        {"Code": "None"},
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}]
    assert "Item" not in ddb.get_item(TableName=pt, Key={"pk": {"S": "new"}, "sk": {"S": "1"}})
    token = str(uuid.uuid4())
    counter = [{"Statement": f"UPDATE \"{pt}\" SET n = n + 1 WHERE pk = 'b' AND sk = '1'"}]
    for _ in range(2):
        ddb.execute_transaction(TransactStatements=counter, ClientRequestToken=token)
    item = ddb.get_item(TableName=pt, Key={"pk": {"S": "b"}, "sk": {"S": "1"}})["Item"]
    assert item["n"] == {"N": "2"}
    reads = ddb.execute_transaction(TransactStatements=[
        {"Statement": f"SELECT n FROM \"{pt}\" WHERE pk = 'b' AND sk = '1'"},
        {"Statement": f"SELECT * FROM \"{pt}\" WHERE pk = 'zz' AND sk = '1'"}])
    assert reads["Responses"] == [{"Item": {"n": {"N": "2"}}}, {}]


def test_concurrent_conditional_updates_lose_nothing(server, pt):
    """Read-then-conditional-UPDATE from several clients: each success must show in
    the counter, which a server without isolation would under-count."""
    successes = []

    def worker():
        client = server.client()
        for _ in range(15):
            n = run(client, f"SELECT n FROM \"{pt}\" WHERE pk = 'a' AND sk = '1'")["Items"][0]
            try:
                run(client, f"UPDATE \"{pt}\" SET n = n + 1 WHERE pk = 'a' AND sk = '1' AND n = ?",
                    n["n"])
                successes.append(1)
            except ClientError as error:
                assert error.response["Error"]["Code"] == "ConditionalCheckFailedException"

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = run(server.client(), f"SELECT n FROM \"{pt}\" WHERE pk = 'a' AND sk = '1'")
    assert final["Items"] == [{"n": {"N": str(1 + len(successes))}}]


def test_an_or_of_key_equalities_reads_those_partitions(ddb, pt):
    """The developer guide counts `pk = x OR pk = y` among the statements that do not
    scan the table."""
    reply = run(ddb, f"SELECT * FROM \"{pt}\" WHERE pk = 'b' OR pk = 'a' ORDER BY pk DESC",
                ReturnConsumedCapacity="TOTAL")
    assert keys(reply["Items"]) == [("b", "1"), ("a", "1"), ("a", "2"), ("a", "3")]
    assert "NextToken" not in reply
    # a key read of two partitions costs what reading their 4 small items costs, not a scan
    assert reply["ConsumedCapacity"]["CapacityUnits"] == 0.5


def test_a_stopped_page_says_where(ddb, pt):
    reply = run(ddb, f"SELECT * FROM \"{pt}\" WHERE pk = 'a'", Limit=2)
    assert keys(reply["Items"]) == [("a", "1"), ("a", "2")]
    assert reply["LastEvaluatedKey"] == {"pk": {"S": "a"}, "sk": {"S": "2"}}
    assert "LastEvaluatedKey" not in run(ddb, f"SELECT * FROM \"{pt}\" WHERE pk = 'a'")


def test_failed_conditions_return_the_item_a_statement_asked_for(ddb, pt):
    failing = f"UPDATE \"{pt}\" SET n = 0 WHERE pk = 'b' AND sk = '1' AND n = 9"
    b1 = {"pk": {"S": "b"}, "sk": {"S": "1"}, "n": {"N": "1"}}
    reply = ddb.batch_execute_statement(Statements=[
        {"Statement": failing, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"},
        {"Statement": failing}])
    assert reply["Responses"] == [
        {"Error": {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
                   "Item": b1}},
        {"Error": {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}}]
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": failing, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}])
    assert excinfo.value.response["CancellationReasons"] == [
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
         "Item": b1}]


def test_a_batch_is_all_reads_or_all_writes(ddb, pt):
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_execute_statement(Statements=[
            {"Statement": f"SELECT * FROM \"{pt}\" WHERE pk = 'b' AND sk = '1'"},
            {"Statement": f"UPDATE \"{pt}\" SET n = 5 WHERE pk = 'b' AND sk = '1'"}])
    assert error_of(excinfo)[0] == "ValidationException"
    assert ddb.get_item(TableName=pt, Key={"pk": {"S": "b"}, "sk": {"S": "1"}})["Item"]["n"] == {
        "N": "1"}


@pytest.mark.parametrize("statement", [
    "UPDATE \"{t}\" SET l = list_append(l) WHERE pk = 'a' AND sk = '1'",
    "UPDATE \"{t}\" SET n = set_add(s, <<1>>) + 1 WHERE pk = 'a' AND sk = '1'",
    "UPDATE \"{t}\" SET n = 1 + set_add(s, <<1>>) WHERE pk = 'a' AND sk = '1'",
    "UPDATE \"{t}\" SET l = list_append(set_delete(s, <<1>>), [1]) WHERE pk = 'a' AND sk = '1'",
    "SELECT * FROM \"{t}\" WHERE size(1) = 1",
    "SELECT * FROM \"{t}\" WHERE size(size(l)) = 1",
    "SELECT * FROM \"{t}\" WHERE size(l, n) = 1",
    "SELECT * FROM \"{t}\" WHERE n IN [" + ", ".join(map(str, range(101))) + "]",
    "SELECT * FROM \"{t}\" WHERE pk IN [" + ", ".join(f"'{i}'" for i in range(51)) + "]",
])
def test_malformed_functions_and_lists_are_refused(ddb, pt, statement):
    """Each of these once reached the evaluator and failed as a 500 (or, for IN, read past
    the developer guide's limits: 50 partition key values, 100 others)."""
    statement = statement.format(t=pt)
    assert fails(ddb, statement)[0] == "ValidationException"
    reply = ddb.batch_execute_statement(Statements=[{"Statement": statement}])
    assert reply["Responses"][0]["Error"]["Code"] == "ValidationError"


def test_index_reads(ddb):
    from test_indexes import gsi, indexed_table
    table = indexed_table(ddb, [gsi("byg", ("g", "HASH"))])
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "x"}})
    statement = f'SELECT * FROM "{table}"."byg" WHERE g = \'x\''
    assert fails(ddb, statement, ConsistentRead=True) == (
        "ValidationException", "Consistent reads are not supported on global secondary indexes")
    reply = run(ddb, statement, ReturnConsumedCapacity="INDEXES")
    assert len(reply["Items"]) == 1
    assert reply["ConsumedCapacity"] == {
        "TableName": table, "CapacityUnits": 0.5, "Table": {"CapacityUnits": 0.0},
        "GlobalSecondaryIndexes": {"byg": {"CapacityUnits": 0.5}}}


def test_a_token_this_server_did_not_make_is_invalid(ddb, pt, make_table):
    """NextTokens are sealed: made up (an earlier okura's base64 JSON of a position
    included), edited, or made for another table's read, they are invalid."""
    import base64
    statement = f'SELECT * FROM "{pt}"'
    token = run(ddb, statement, Limit=1)["NextToken"]
    other = make_table("S")
    for pk in ("a", "b"):
        ddb.put_item(TableName=other, Item={"pk": {"S": pk}, "sk": {"S": "1"}})
    forged = [base64.b64encode(text.encode()).decode()
              for text in ('["x", "", ""]', '[-1, "", ""]', '[1.5, "", ""]', "[]",
                           '[0, "", ""]')]
    forged += [token[:10] + ("A" if token[10] != "A" else "B") + token[11:],
               run(ddb, f'SELECT * FROM "{other}"', Limit=1)["NextToken"]]
    for text in forged:
        assert fails(ddb, statement, NextToken=text) == (
            "ValidationException", "Invalid NextToken")
    assert len(run(ddb, statement, NextToken=token)["Items"]) == 3


def test_select_of_a_nested_path_names_the_value_by_its_last_name(ddb, table):
    # recorded from DynamoDB: SELECT mymap.nested gives {"nested": ...}, not {"mymap": ...}
    nested = {"M": {"deep": {"N": "1"}}}
    ddb.put_item(TableName=table, Item={"pk": {"S": "x"}, "mymap": {"M": {
        "nested": nested, "other": {"S": "o"}}}})
    got = run(ddb, f"SELECT mymap.nested FROM \"{table}\" WHERE pk = 'x'")
    assert got["Items"] == [{"nested": nested}]
