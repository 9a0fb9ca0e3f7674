"""The console's Tables and Items pages in a real browser (docs/console.md)."""
from __future__ import annotations

import http.client
import json
import re

import pytest
from botocore.exceptions import ClientError

from browser_fixtures import browser, console_server, page, screenshot  # noqa: F401 (fixtures)
from conftest import Server, imported

pytestmark = pytest.mark.slow  # a browser (README.md, Tests)
expect = imported("playwright.sync_api", "Playwright (the test extra) is not installed").expect


def _get(port: int, path: str) -> tuple[int, dict, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    return response.status, dict(response.getheaders()), response.read()


def test_pages_are_served_as_shipped_and_turned_off_by_no_console(console_server):
    status, headers, body = _get(console_server.port, "/console/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b'src="/console/js/main.js"' in body
    status, headers, _ = _get(console_server.port, "/console/js/pages/items.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    assert _get(console_server.port, "/console/../okura/server/app.py")[0] == 404
    assert _get(console_server.port, "/console/nothing.js")[0] == 404
    off = Server("--no-console")
    try:
        assert _get(off.port, "/console/")[0] == 404
    finally:
        off.stop()


def test_create_a_table_with_a_global_index(page, console_server):
    page.goto(page.base + "#/tables")
    page.get_by_role("button", name="Create table").click()
    form = page.get_by_role("dialog", name="Create table")
    form.get_by_label("Table name").fill("orders")
    form.get_by_label("Partition key name").first.fill("customer")
    form.get_by_label("Sort key name").first.fill("order")
    form.get_by_label("Sort key type").first.select_option("N")
    form.get_by_role("button", name="Add global index").click()
    gsi = form.locator("fieldset.gsi")
    gsi.get_by_label("Index name").fill("by-status")
    gsi.get_by_label("Partition key name").fill("status")
    form.get_by_role("button", name="Add local index").click()
    lsi = form.locator("fieldset.lsi")
    lsi.get_by_label("Index name").fill("by-placed")
    lsi.get_by_label("Sort key name").fill("placed")
    lsi.get_by_label("Sort key type").select_option("N")
    lsi.get_by_label("Projection", exact=True).select_option("INCLUDE")
    lsi.get_by_label("Projected attributes").fill("total, status")
    form.get_by_label("TTL attribute").fill("expires")
    form.get_by_label("Stream").select_option("NEW_AND_OLD_IMAGES")
    form.get_by_role("button", name="Create", exact=True).click()
    expect(form).to_be_hidden()
    row = page.get_by_role("row").filter(has_text="orders")
    expect(row).to_contain_text("GSI by-status, LSI by-placed")
    expect(row).to_contain_text("customer (S), order (N)")
    expect(row).to_contain_text("NEW_AND_OLD_IMAGES")
    expect(row).to_contain_text("expires")
    screenshot(page, "tables")
    ddb = console_server.client()
    table = ddb.describe_table(TableName="orders")["Table"]
    assert table["GlobalSecondaryIndexes"][0]["KeySchema"] == [
        {"AttributeName": "status", "KeyType": "HASH"}]
    local = table["LocalSecondaryIndexes"][0]
    assert local["KeySchema"] == [{"AttributeName": "customer", "KeyType": "HASH"},
                                  {"AttributeName": "placed", "KeyType": "RANGE"}]
    assert local["Projection"] == {"ProjectionType": "INCLUDE",
                                   "NonKeyAttributes": ["total", "status"]}

    row.get_by_role("button", name="Edit").click()  # protect it: it cannot be deleted
    editor = page.get_by_role("dialog", name="Update orders")
    editor.get_by_label("Deletion protection").check()
    editor.get_by_role("button", name="Update table").click()
    expect(editor.get_by_role("status")).to_have_text("Done.")
    editor.get_by_role("button", name="Close").click()
    expect(row.get_by_role("cell").nth(10)).to_have_text("on")  # Deletion protection
    row.get_by_role("button", name="Delete").click()
    confirm = page.get_by_role("dialog", name="Delete orders?")
    confirm.get_by_role("button", name="Delete").click()
    with pytest.raises(ClientError) as refused:
        ddb.delete_table(TableName="orders")
    error = refused.value.response["Error"]
    expect(confirm.get_by_role("status")).to_have_text(f"{error['Code']}: {error['Message']}")


def test_add_edit_and_query_an_item(page, console_server):
    ddb = console_server.client()
    ddb.create_table(
        TableName="shipments", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "customer", "KeyType": "HASH"},
                   {"AttributeName": "order", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t}
                              for n, t in (("customer", "S"), ("order", "N"), ("status", "S"))],
        GlobalSecondaryIndexes=[{"IndexName": "by-status", "Projection": {"ProjectionType": "ALL"},
                                 "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}]}])
    requests: list[dict] = []
    page.on("request", lambda request: requests.append(
        {"target": request.headers.get("x-amz-target", ""), "body": request.post_data}))
    page.goto(page.base + "#/items/shipments")
    page.get_by_role("button", name="Create item").click()
    editor = page.get_by_role("dialog", name="Create item")
    # DynamoDB's own words for a bad item, verbatim
    editor.get_by_role("button", name="Create", exact=True).click()
    with pytest.raises(ClientError) as refused:
        ddb.put_item(TableName="shipments", Item={"customer": {"S": ""}, "order": {"N": ""}})
    error = refused.value.response["Error"]
    expect(editor.get_by_role("status")).to_have_text(f"{error['Code']}: {error['Message']}")
    editor.get_by_label("Value of customer").fill("c1")
    editor.get_by_label("Value of order").fill("7")
    editor.get_by_role("button", name="Add attribute").click()
    editor.get_by_label("Attribute name").last.fill("status")
    editor.get_by_label("Value of attribute").last.fill("open")
    editor.get_by_role("button", name="Create", exact=True).click()
    expect(editor).to_be_hidden()
    row = page.get_by_role("row").filter(has_text="c1")
    expect(row).to_contain_text("open")

    row.click()  # edit it, as plain JSON
    editor = page.get_by_role("dialog", name="Edit item")
    editor.get_by_role("tab", name="JSON", exact=True).click()
    text = editor.get_by_label("Item as JSON")
    item = json.loads(text.input_value())
    assert item == {"customer": "c1", "order": 7, "status": "open"}
    text.fill(json.dumps({**item, "status": "shipped", "lines": [1, 2]}))
    editor.get_by_role("tab", name="DynamoDB JSON").click()
    expect(editor.get_by_label("Item as DynamoDB JSON")).to_contain_text('"L"')
    editor.get_by_role("button", name="Save").click()
    expect(editor).to_be_hidden()
    expect(page.get_by_role("row").filter(has_text="c1")).to_contain_text("shipped")
    assert ddb.get_item(TableName="shipments", Key={"customer": {"S": "c1"}, "order": {"N": "7"}})[
        "Item"]["lines"] == {"L": [{"N": "1"}, {"N": "2"}]}

    ddb.put_item(TableName="shipments", Item={"customer": {"S": "c2"}, "order": {"N": "1"},
                                           "status": {"S": "shipped"}})
    page.get_by_label("Table or index").select_option("by-status")
    page.get_by_label("Operation").select_option("query")
    page.get_by_label("Partition key status").fill("shipped")
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_role("caption")).to_contain_text("2 items returned")
    page.get_by_role("button", name="Add filter").click()
    page.get_by_label("Filter attribute").fill("lines")
    page.get_by_label("Filter operator").select_option("attribute_exists")
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_role("caption")).to_contain_text("1 items returned, 2 read")
    expect(page.get_by_label("Request")).to_contain_text(
        '"FilterExpression": "attribute_exists(#n1)"')
    expect(page.get_by_label("Request")).to_contain_text('"KeyConditionExpression": "#n0 = :v0"')
    screenshot(page, "items")
    page.get_by_label("Filter operator").select_option("attribute_not_exists")
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_role("caption")).to_contain_text("1 items returned, 2 read")
    page.get_by_role("row", name="c2").click()  # duplicate it under another key, then delete that
    editor = page.get_by_role("dialog", name="Edit item")
    editor.get_by_role("button", name="Duplicate").click()
    editor = page.get_by_role("dialog", name="Duplicate item")
    editor.get_by_role("button", name="Create", exact=True).click()  # the same key: refused
    expect(editor.get_by_role("status")).to_have_text(
        "ConditionalCheckFailedException: The conditional request failed")
    editor.get_by_label("Value of order").fill("2")
    editor.get_by_role("button", name="Create", exact=True).click()
    expect(editor).to_be_hidden()
    expect(page.get_by_role("caption")).to_contain_text("2 items returned, 3 read")
    assert ddb.get_item(TableName="shipments", Key={"customer": {"S": "c2"}, "order": {"N": "2"}})[
        "Item"]["status"] == {"S": "shipped"}
    page.get_by_role("row", name="c2 2").click()
    page.get_by_role("dialog", name="Edit item").get_by_role("button", name="Delete").click()
    expect(page.get_by_role("caption")).to_contain_text("1 items returned, 2 read")
    assert "Item" not in ddb.get_item(TableName="shipments",
                                      Key={"customer": {"S": "c2"}, "order": {"N": "2"}})
    reads = [json.loads(r["body"]) for r in requests if r["target"].endswith((".Scan", ".Query"))]
    assert reads and all(0 < read["Limit"] <= 1000 for read in reads)  # never a whole table
    query = reads[-1]
    assert query["IndexName"] == "by-status" and query["ExpressionAttributeValues"] == {
        ":v0": {"S": "shipped"}} and query["ExpressionAttributeNames"] == {
        "#n0": "status", "#n1": "lines"}
    assert re.fullmatch(r"DynamoDB_20120810\.Query", [r["target"] for r in requests
                                                     if r["target"]][-1])


READER_ACTIONS = ["dynamodb:ListTables", "dynamodb:DescribeTable", "dynamodb:DescribeTimeToLive",
                  "dynamodb:DescribeContinuousBackups", "dynamodb:Scan", "dynamodb:Query"]


@pytest.fixture(scope="module")
def enforcing(tmp_path_factory):
    config = tmp_path_factory.mktemp("auth") / "auth.json"
    config.write_text(json.dumps({"admin_access_key_ids": ["AKIAOWNER"], "users": [
        {"name": "owner", "access_key_id": "AKIAOWNER", "secret_access_key": "secret",
         "policies": [{"Version": "2012-10-17", "Statement": [
             {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}]}]},
        {"name": "reader", "access_key_id": "AKIAREADER", "secret_access_key": "reader/secret+1",
         "policies": [{"Version": "2012-10-17", "Statement": [
             {"Effect": "Allow", "Action": READER_ACTIONS, "Resource": "*"}]}]}]}))
    server = Server("--auth", "enforce", "--auth-config", str(config))
    yield server
    server.stop()


def test_with_access_control_the_console_acts_with_the_keys_it_is_given(browser, enforcing):
    owner = enforcing.client(key="AKIAOWNER")  # its secret: "secret"
    owner.create_table(TableName="ledger", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    owner.put_item(TableName="ledger", Item={"id": {"S": "a"}, "amount": {"N": "5"}})
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(enforcing.url + "/console/#/tables")
        keys = page.get_by_role("dialog", name="Access keys")
        expect(keys).to_contain_text("UnrecognizedClientException")
        keys.get_by_label("Access key ID").fill("AKIAREADER")
        keys.get_by_label("Secret access key").fill("reader/secret+1")
        keys.get_by_role("button", name="Use these keys").click()
        expect(page.get_by_role("row").filter(has_text="ledger")).to_contain_text("id (S)")
        page.goto(enforcing.url + "/console/#/items/ledger")
        expect(page.get_by_role("row", name="a 5")).to_be_visible()
        page.get_by_role("button", name="Create item").click()
        editor = page.get_by_role("dialog", name="Create item")
        editor.get_by_label("Value of id").fill("b")
        editor.get_by_role("button", name="Create", exact=True).click()
        expect(editor.get_by_role("status")).to_contain_text(
            "AccessDeniedException: User: arn:aws:iam::000000000000:user/reader is not "
            "authorized to perform: dynamodb:PutItem")
        editor.get_by_role("button", name="Cancel").click()
        page.goto(enforcing.url + "/console/#/operations")
        expect(page.get_by_role("region", name="Clock")).to_contain_text(
            "arn:aws:iam::000000000000:user/reader is not an admin")
        page.get_by_role("button", name="Keys").click()  # the owner holds an admin key
        keys = page.get_by_role("dialog", name="Access keys")
        keys.get_by_label("Access key ID").fill("AKIAOWNER")
        keys.get_by_label("Secret access key").fill("secret")
        keys.get_by_role("button", name="Use these keys").click()
        shown = page.get_by_label("okura's time")
        expect(shown).not_to_be_empty()
        before = shown.text_content()
        page.get_by_role("button", name="+1 day").click()
        # okura's clock is a day ahead of the browser's now: the console signs with okura's
        expect(shown).not_to_have_text(before)
        page.goto(enforcing.url + "/console/#/tables")
        expect(page.get_by_role("row").filter(has_text="ledger")).to_contain_text("id (S)")
        page.goto(enforcing.url + "/console/#/capacity/ledger")  # a signed query string
        expect(page.locator('figure[data-chart="Write capacity, ledger"]')).to_be_visible()
    finally:
        context.close()


def test_pages_forward_and_back_sorting_columns_and_regions(page, console_server):
    ddb = console_server.client(region="eu-west-1")
    ddb.create_table(TableName="events", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "N"}])
    for n in range(60):
        ddb.put_item(TableName="events", Item={"id": {"N": str(n)}, "size": {"N": str(n % 7)}})
    console_server.client().create_table(
        TableName="home", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    page.goto(page.base + "#/tables")
    expect(page.get_by_role("row").filter(has_text="home")).to_be_visible()
    page.get_by_label("Region").fill("eu-west-1")
    page.get_by_label("Region").press("Enter")
    expect(page.get_by_role("row").filter(has_text="events")).to_contain_text("60")
    expect(page.get_by_role("row").filter(has_text="home")).to_have_count(0)
    page.get_by_role("link", name="events").click()
    page.get_by_label("Items per page").select_option("25")
    page.get_by_role("button", name="Run").click()
    caption = page.get_by_role("caption")
    expect(caption).to_have_text("Page 1: 25 items returned, 25 read")
    first = page.get_by_role("row").nth(1).text_content()
    page.get_by_role("button", name="Next page →").click()
    expect(caption).to_have_text("Page 2: 25 items returned, 25 read")
    page.get_by_role("button", name="Next page →").click()
    expect(caption).to_have_text("Page 3: 10 items returned, 10 read")
    expect(page.get_by_role("button", name="Next page →")).to_be_disabled()
    page.get_by_role("button", name="← Previous page").click()
    page.get_by_role("button", name="← Previous page").click()
    expect(caption).to_have_text("Page 1: 25 items returned, 25 read")
    expect(page.get_by_role("row").nth(1)).to_have_text(first)
    page.get_by_role("button", name="size").click()  # sorts the page by size, numerically
    sizes = page.locator("tbody tr td:nth-child(2)")
    expect(sizes.first).to_have_text("0")
    page.get_by_role("button", name="size ▲").click()
    expect(sizes.first).to_have_text("6")
    page.get_by_text("Columns (2 of 2)").click()
    page.get_by_role("checkbox", name="size").uncheck()
    expect(page.get_by_role("columnheader")).to_have_count(1)
    page.get_by_label("Region").fill("us-east-1")
    page.get_by_label("Region").press("Enter")


def test_keyboard_use(page, console_server):
    ddb = console_server.client()
    ddb.create_table(TableName="typed", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}])
    ddb.put_item(TableName="typed", Item={"id": {"S": "k1"}, "set": {"SS": ["a", "b"]}})
    page.goto(page.base + "#/items/typed")
    page.keyboard.press("Tab")  # the first stop skips the header
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()
    assert page.url.endswith("#/items/typed")
    row = page.get_by_role("row", name="k1")
    row.focus()
    page.keyboard.press("Enter")
    editor = page.get_by_role("dialog", name="Edit item")
    expect(editor.get_by_label("Type of set")).to_have_value("SS")
    expect(editor.get_by_label("Value of set")).to_have_value('["a","b"]')
    page.keyboard.press("Escape")
    expect(editor).to_be_hidden()
    expect(row).to_be_focused()


def test_vector_search_box(page, console_server):
    ddb = console_server.client()
    ddb.create_table(TableName="docs", KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST", VectorIndexes=[{
                         "IndexName": "embedding", "VectorAttribute": {"AttributeName": "v"},
                         "Dimensions": 2, "DistanceFunction": "EUCLIDEAN",
                         "Projection": {"ProjectionType": "ALL"}}])
    for name, x in (("near", "1"), ("far", "9")):
        ddb.put_item(TableName="docs", Item={"id": {"S": name},
                                             "v": {"L": [{"N": x}, {"N": "0"}]}})
    page.goto(page.base + "#/items/docs")
    page.get_by_text("Vector search").click()
    page.get_by_label("Search vector").fill("[0, 0]")
    page.get_by_label("TopK").fill("2")
    page.get_by_role("button", name="Search", exact=True).click()
    panel = page.locator("details.vector-search")
    expect(panel.get_by_role("caption")).to_contain_text("2 results")
    expect(panel.get_by_role("row").nth(1)).to_contain_text("near")
    expect(panel.get_by_role("row").nth(2)).to_contain_text("far")
