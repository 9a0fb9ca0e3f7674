"""An agent's session with `okura mcp --allow-writes` on an okura it started over a data
directory, through the SDK's client over stdio: create a table, write, query, ask the
advisor."""
from __future__ import annotations

import base64

import pytest

from mcp_session import Session

TABLE = "dev-shop-order"
DESIGN = {
    "TableName": TABLE,
    "KeySchema": [{"AttributeName": "customer_id", "KeyType": "HASH"},
                  {"AttributeName": "created_at", "KeyType": "RANGE"}],
    "AttributeDefinitions": [{"AttributeName": "customer_id", "AttributeType": "S"},
                             {"AttributeName": "created_at", "AttributeType": "S"},
                             {"AttributeName": "order_status", "AttributeType": "S"}],
    "GlobalSecondaryIndexes": [{
        "IndexName": "gsi1",
        "KeySchema": [{"AttributeName": "order_status", "KeyType": "HASH"},
                      {"AttributeName": "created_at", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "KEYS_ONLY"}}],
    "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"},
}


def order(customer: str, day: int, status: str | None = None) -> dict:
    item = {"customer_id": {"S": customer}, "created_at": {"S": f"2026-01-{day:02}"},
            "order_total": {"N": str(day * 10)}}
    if status:
        item["order_status"] = {"S": status}
    return item


@pytest.fixture(scope="module")
def mcp(tmp_path_factory):
    session = Session("--allow-writes", "--data-dir", str(tmp_path_factory.mktemp("mcp")))
    yield session
    session.close()


def test_a_session_creates_writes_queries_and_asks_the_advisor(mcp):
    assert "items may be written" in mcp.client.instructions
    assert mcp.json("create_table", description=DESIGN)["TableName"] == TABLE
    assert mcp.json("put_item", table_name=TABLE, item=order("c1", 1, "open"))[
        "ConsumedCapacity"]["CapacityUnits"] > 0
    reply = mcp.json("batch_write_item", request_items={TABLE: [
        {"PutRequest": {"Item": order("c1", day)}} for day in range(2, 6)] + [
        {"PutRequest": {"Item": order("c2", 1, "open")}}]})
    assert reply["UnprocessedItems"] == {}
    updated = mcp.json("update_item", table_name=TABLE,
                       key={"customer_id": {"S": "c1"}, "created_at": {"S": "2026-01-02"}},
                       update_expression="SET order_status = :s ADD order_total :n",
                       expression_attribute_values={":s": {"S": "open"}, ":n": {"N": "5"}},
                       return_values="ALL_NEW")
    assert updated["Attributes"]["order_total"] == {"N": "25"}
    assert mcp.json("delete_item", table_name=TABLE,
                    key={"customer_id": {"S": "c1"}, "created_at": {"S": "2026-01-05"}},
                    return_values="ALL_OLD")["Attributes"]["order_total"] == {"N": "50"}

    newest = mcp.json("query", table_name=TABLE, key_condition_expression="customer_id = :c",
                      expression_attribute_values={":c": {"S": "c1"}},
                      scan_index_forward=False, limit=2)
    assert [item["created_at"]["S"] for item in newest["Items"]] == ["2026-01-04", "2026-01-03"]
    rest = mcp.json("query", table_name=TABLE, key_condition_expression="customer_id = :c",
                    expression_attribute_values={":c": {"S": "c1"}}, scan_index_forward=False,
                    exclusive_start_key=newest["LastEvaluatedKey"])
    assert [item["created_at"]["S"] for item in rest["Items"]] == ["2026-01-02", "2026-01-01"]
    open_orders = mcp.json("query", table_name=TABLE, index_name="gsi1",
                           key_condition_expression="order_status = :s",
                           expression_attribute_values={":s": {"S": "open"}})
    assert open_orders["Count"] == 3

    report = mcp.json("advise_table", table_name=TABLE)
    rules = {finding["rule"] for finding in report["findings"]}
    assert "pitr-off" in rules and "deletion-protection-off" in rules
    assert not rules & {"table-name", "key-name", "index-name", "attribute-snake-case"}
    assert report["cost"]["table"]["billing_mode"] == "PAY_PER_REQUEST"

    events = [r["eventName"] for r in mcp.json("stream_records", table_name=TABLE)["Records"]]
    assert events == ["INSERT"] * 6 + ["MODIFY", "REMOVE"]


def test_partiql_writes(mcp):
    mcp.json("create_table", description={
        "TableName": "dev-shop-note",
        "KeySchema": [{"AttributeName": "note_id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "note_id", "AttributeType": "S"}]})
    mcp.json("execute_statement", statement="INSERT INTO \"dev-shop-note\" VALUE "
                                            "{'note_id': 'n1', 'body': ?}",
             parameters=[{"S": "hello"}])
    mcp.json("execute_statement",
             statement="UPDATE \"dev-shop-note\" SET body = 'bye' WHERE note_id = 'n1'")
    assert mcp.json("execute_statement", statement="SELECT body FROM \"dev-shop-note\"")[
        "Items"] == [{"body": {"S": "bye"}}]
    text = mcp.error("execute_statement", statement="INSERT INTO \"dev-shop-note\" VALUE "
                                                    "{'note_id': 'n1'}")
    assert text.startswith("DuplicateItemException: ")


def test_conditional_write_fails_with_dynamodbs_text(mcp):
    mcp.json("create_table", description={
        "TableName": "dev-shop-user",
        "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "user_id", "AttributeType": "S"}]})
    item = {"user_id": {"S": "u1"}}
    mcp.json("put_item", table_name="dev-shop-user", item=item)
    text = mcp.error("put_item", table_name="dev-shop-user", item=item,
                     condition_expression="attribute_not_exists(user_id)")
    assert text == "ConditionalCheckFailedException: The conditional request failed"


def test_binary_values_are_base64_both_ways(mcp):
    raw = bytes(range(256))
    item = {"user_id": {"S": "u2"}, "photo": {"B": base64.b64encode(raw).decode()},
            "keys": {"BS": [base64.b64encode(b"\x00").decode()]}}
    mcp.json("put_item", table_name="dev-shop-user", item=item)
    got = mcp.json("get_item", table_name="dev-shop-user", key={"user_id": {"S": "u2"}})
    assert got["Item"] == item
    assert mcp.error("put_item", table_name="dev-shop-user", item={
        "user_id": {"S": "u3"}, "photo": {"B": "not base64!"}}).startswith("SerializationException")
