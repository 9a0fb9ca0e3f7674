"""`okura mcp --endpoint URL` (read-only, the default) driven by the SDK's client over stdio:
every tool's schema, the read tools against data written beside it with boto3, refusal of
every write, DynamoDB's own error text, pages cut to --max-output, resources and the prompt."""
from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError

from conftest import Server, error_of
from mcp_session import Session

MAX_OUTPUT = 4000
TOOLS = {"list_tables", "describe_table", "create_table", "get_item", "query", "scan",
         "execute_statement", "put_item", "update_item", "delete_item", "batch_write_item",
         "advise_table", "table_metrics", "stream_records", "get_clock", "advance_clock",
         "list_faults", "add_fault", "clear_faults", "get_throttling", "set_throttling"}
WRITES = {"put_item", "update_item", "delete_item", "batch_write_item"}
ORDERS = "Orders"  # breaks the naming rules, for the advisor


@pytest.fixture(scope="module")
def okura():
    server = Server()
    ddb = server.client()
    ddb.create_table(TableName=ORDERS, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}],
                     StreamSpecification={"StreamEnabled": True,
                                          "StreamViewType": "NEW_AND_OLD_IMAGES"})
    for n in range(50):  # about 10 KB: more than one page of MAX_OUTPUT
        ddb.put_item(TableName=ORDERS, Item={"pk": {"S": "c1"}, "sk": {"N": str(n)},
                                             "note": {"S": "x" * 150}})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def mcp(okura):
    session = Session("--endpoint", okura.url, "--max-output", str(MAX_OUTPUT))
    yield session
    session.close()


def test_every_tool_has_a_schema_and_a_one_line_description(mcp):
    tools = mcp.run(lambda client: client.list_tools()).tools
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.description and "\n" not in tool.description, tool.name
        assert len(tool.description) <= 100, tool.name
        writes = tool.name in WRITES
        assert tool.annotations.read_only_hint is (tool.name in {
            "list_tables", "describe_table", "get_item", "query", "scan", "advise_table",
            "table_metrics", "stream_records", "get_clock", "list_faults", "get_throttling"})
        assert bool(tool.annotations.destructive_hint) is writes, tool.name
    query = next(tool for tool in tools if tool.name == "query").input_schema
    assert query["required"] == ["table_name", "key_condition_expression"]
    assert "DynamoDB JSON" in query["properties"]["expression_attribute_values"]["description"]


def test_instructions_name_the_endpoint_and_read_only(mcp, okura):
    assert okura.url in mcp.client.instructions
    assert "read-only" in mcp.client.instructions


def test_tables(mcp):
    assert ORDERS in mcp.json("list_tables")["TableNames"]
    table = mcp.json("describe_table", table_name=ORDERS)
    assert table["TableName"] == ORDERS and table["ItemCount"] == 50
    assert isinstance(table["CreationDateTime"], float)  # epoch seconds, as DynamoDB's JSON


def test_get_item(mcp):
    key = {"pk": {"S": "c1"}, "sk": {"N": "7"}}
    assert mcp.json("get_item", table_name=ORDERS, key=key,
                    projection_expression="sk")["Item"] == {"sk": {"N": "7"}}
    assert mcp.json("get_item", table_name=ORDERS, key={"pk": {"S": "c9"}, "sk": {"N": "1"}}) == {}


def _all_pages(mcp, tool: str, **arguments) -> list[dict]:
    items: list[dict] = []
    pages = 0
    while True:
        failed, text = mcp.call(tool, **arguments)
        assert not failed, text
        assert len(text) <= MAX_OUTPUT
        reply = json.loads(text)
        items += reply["Items"]
        pages += 1
        if "LastEvaluatedKey" not in reply:
            assert pages > 2  # 10 KB of items in pages of 4 KB at most
            return items
        arguments["exclusive_start_key"] = reply["LastEvaluatedKey"]


def test_query_pages_are_cut_to_max_output_and_follow_on(mcp):
    first = mcp.json("query", table_name=ORDERS, key_condition_expression="pk = :p",
                     expression_attribute_values={":p": {"S": "c1"}})
    assert "exclusive_start_key" in first["Note"]
    items = _all_pages(mcp, "query", table_name=ORDERS, key_condition_expression="pk = :p",
                       expression_attribute_values={":p": {"S": "c1"}},
                       scan_index_forward=False)
    assert [int(item["sk"]["N"]) for item in items] == list(range(49, -1, -1))


def test_scan_with_a_filter_pages_every_match_once(mcp):
    items = _all_pages(mcp, "scan", table_name=ORDERS, filter_expression="sk >= :n",
                       expression_attribute_values={":n": {"N": "10"}})
    assert sorted(int(item["sk"]["N"]) for item in items) == list(range(10, 50))


def test_small_pages_are_not_cut(mcp):
    reply = mcp.json("scan", table_name=ORDERS, limit=3)
    assert reply["Count"] == 3 and "Note" not in reply and "LastEvaluatedKey" in reply


def test_partiql_select(mcp):
    reply = mcp.json("execute_statement",
                     statement=f'SELECT sk FROM "{ORDERS}" WHERE pk = ? AND sk < 2',
                     parameters=[{"S": "c1"}])
    assert reply["Items"] == [{"sk": {"N": "0"}}, {"sk": {"N": "1"}}]


@pytest.mark.parametrize("tool, arguments", [
    ("put_item", {"table_name": ORDERS, "item": {"pk": {"S": "new"}, "sk": {"N": "1"}}}),
    ("update_item", {"table_name": ORDERS, "key": {"pk": {"S": "new"}, "sk": {"N": "1"}},
                     "update_expression": "SET a = :a",
                     "expression_attribute_values": {":a": {"S": "x"}}}),
    ("delete_item", {"table_name": ORDERS, "key": {"pk": {"S": "c1"}, "sk": {"N": "1"}}}),
    ("batch_write_item", {"request_items": {ORDERS: [
        {"PutRequest": {"Item": {"pk": {"S": "new"}, "sk": {"N": "1"}}}}]}}),
    ("execute_statement",
     {"statement": f"INSERT INTO \"{ORDERS}\" VALUE {{'pk': 'new', 'sk': 1}}"}),
    ("execute_statement", {"statement": f'  delete FROM "{ORDERS}" WHERE pk = \'c1\' AND sk = 1'}),
])
def test_writes_are_refused_when_read_only(mcp, okura, tool, arguments):
    assert "--allow-writes" in mcp.error(tool, **arguments)
    ddb = okura.client()
    assert "Item" not in ddb.get_item(TableName=ORDERS, Key={"pk": {"S": "new"}, "sk": {"N": "1"}})
    assert "Item" in ddb.get_item(TableName=ORDERS, Key={"pk": {"S": "c1"}, "sk": {"N": "1"}})


def _dynamodb_error(call) -> str:
    with pytest.raises(ClientError) as excinfo:
        call()
    return "%s: %s" % error_of(excinfo)


def test_errors_are_dynamodbs_own_text(mcp, okura):
    ddb = okura.client()
    assert mcp.error("describe_table", table_name="missing") == _dynamodb_error(
        lambda: ddb.describe_table(TableName="missing"))
    assert mcp.error("query", table_name=ORDERS, key_condition_expression="pk = :p AND",
                     expression_attribute_values={":p": {"S": "c1"}}) == _dynamodb_error(
        lambda: ddb.query(TableName=ORDERS, KeyConditionExpression="pk = :p AND",
                          ExpressionAttributeValues={":p": {"S": "c1"}}))
    # parameters botocore would refuse, or could not serialise, reach DynamoDB as given
    for key in ({"pk": "c1", "sk": {"N": "1"}}, {"pk": {"S": "c1"}, "sk": {"N": "one"}}):
        raw = okura.post("GetItem", {"TableName": ORDERS, "Key": key})
        assert raw.status == 400
        expected = f"{raw.json['__type'].split('#')[1]}: {raw.json['message']}"
        assert mcp.error("get_item", table_name=ORDERS, key=key) == expected
    text = mcp.error("get_item", table_name="ab", key={"pk": {"S": "c1"}})
    assert text.startswith("ValidationException: 1 validation error detected: Value 'ab' at "
                           "'tableName' failed to satisfy constraint"), text
    assert mcp.error("advise_table", table_name="missing").startswith("ResourceNotFoundException")


def test_bad_arguments_are_refused_by_the_schema(mcp):
    assert "table_name" in mcp.error("get_item", key={"pk": {"S": "c1"}})


def test_create_table_is_allowed_read_only(mcp, okura):
    table = mcp.json("create_table", description={
        "TableName": "dev-shop-customer",
        "KeySchema": [{"AttributeName": "customer_id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "customer_id", "AttributeType": "S"}]})
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert okura.client().describe_table(TableName="dev-shop-customer")["Table"]["TableName"]
    assert mcp.error("create_table", description={"TableName": "dev-shop-customer"}).startswith(
        "ValidationException")


def test_advisor_findings_and_cost_of_one_table(mcp):
    report = mcp.json("advise_table", table_name=ORDERS, sample=100)
    rules = {finding["rule"] for finding in report["findings"]}
    assert {"table-name", "key-name", "pitr-off"} <= rules
    assert {finding["table"] for finding in report["findings"]} == {ORDERS}
    assert report["cost"]["table"]["table"] == ORDERS and report["cost"]["currency"] == "USD"


def test_metrics_of_the_last_minutes(mcp):
    mcp.json("get_item", table_name=ORDERS, key={"pk": {"S": "c1"}, "sk": {"N": "3"}})
    metrics = mcp.json("table_metrics", table_name=ORDERS, minutes=5)
    assert metrics["consumed_capacity"][ORDERS]["read"] > 0
    assert metrics["consumed_capacity"][ORDERS]["write"] >= 50  # the 50 puts
    operations = {name for point in metrics["points"] for name in point["operations"]}
    assert {"GetItem", "PutItem"} <= operations
    assert mcp.error("table_metrics", table_name="missing").startswith("ResourceNotFoundException")


def test_stream_records_page_on(mcp, okura):
    assert len(mcp.json("stream_records", table_name=ORDERS, limit=3)["Records"]) == 3
    records, after = [], None
    while True:  # pages cut to MAX_OUTPUT: about 7 records of 500 bytes each
        failed, text = mcp.call("stream_records", table_name=ORDERS, after=after)
        assert not failed and len(text) <= MAX_OUTPUT, text
        page = json.loads(text)
        if not page["Records"]:
            break
        records += page["Records"]
        after = page["next"]
    assert {record["eventName"] for record in records} == {"INSERT"}
    assert sorted(int(record["dynamodb"]["Keys"]["sk"]["N"]) for record in records) == list(
        range(50))
    okura.client().update_item(TableName=ORDERS, Key={"pk": {"S": "c1"}, "sk": {"N": "0"}},
                               UpdateExpression="SET seen = :t",
                               ExpressionAttributeValues={":t": {"BOOL": True}})
    latest = mcp.json("stream_records", table_name=ORDERS, after=after)
    assert [record["eventName"] for record in latest["Records"]] == ["MODIFY"]
    assert "no stream" in mcp.json("stream_records", table_name="dev-shop-customer")["Note"]


def test_clock(mcp):
    now = mcp.json("get_clock")["now"]
    assert mcp.json("advance_clock", seconds=3600)["now"] >= now + 3600
    assert mcp.error("advance_clock", seconds=-1)  # the admin endpoint's own refusal


def test_faults(mcp, okura):
    added = mcp.json("add_fault", operation="GetItem", table=ORDERS,
                     error="ProvisionedThroughputExceededException", count=1)
    assert added["rules"][0]["count"] == 1
    key = {"pk": {"S": "c1"}, "sk": {"N": "3"}}
    text = mcp.error("get_item", table_name=ORDERS, key=key)
    assert text.startswith("ProvisionedThroughputExceededException: ")
    assert "ThrottlingReasons" in text  # DynamoDB's reasons reach the agent too
    assert mcp.json("get_item", table_name=ORDERS, key=key)["Item"]  # one fault: spent
    mcp.json("add_fault", operation="Query", latency=0.01)
    assert [rule["operation"] for rule in mcp.json("list_faults")["rules"]] == ["Query"]
    assert mcp.json("clear_faults") == {"cleared": 1}
    assert "a rule injects one of" in mcp.error("add_fault", operation="PutItem")


def test_throttling_mode(mcp):
    assert mcp.json("get_throttling")["mode"] in ("off", "shadow", "enforce")
    assert mcp.json("set_throttling", mode="enforce", table=ORDERS)["tables"] == {
        ORDERS: "enforce"}
    assert mcp.json("set_throttling", mode=None, table=ORDERS)["tables"] == {}
    assert "mode" in mcp.error("set_throttling", mode=None)


def test_resources_of_each_table(mcp):
    uris = {str(resource.uri) for resource in
            mcp.run(lambda client: client.list_resources()).resources}
    assert {f"okura://tables/{ORDERS}", f"okura://tables/{ORDERS}/items"} <= uris
    description = mcp.run(lambda client: client.read_resource(f"okura://tables/{ORDERS}"))
    assert json.loads(description.contents[0].text)["TableName"] == ORDERS
    sample = mcp.run(lambda client: client.read_resource(f"okura://tables/{ORDERS}/items"))
    text = sample.contents[0].text  # 20 items at most, cut to MAX_OUTPUT as tools' pages
    assert len(text) <= MAX_OUTPUT and 10 < len(json.loads(text)["Items"]) < 20
    with pytest.raises(Exception, match="ResourceNotFoundException"):
        mcp.run(lambda client: client.read_resource("okura://tables/missing"))


def test_design_prompt_carries_the_patterns_and_the_guidelines(mcp):
    prompt = mcp.run(lambda client: client.get_prompt(
        "design_table", {"access_patterns": "a customer's orders, newest first"}))
    text = prompt.messages[0].content.text
    assert "a customer's orders, newest first" in text
    assert "key-name: Name keys after what they hold" in text
    assert "create_table" in text and "advise_table" in text
