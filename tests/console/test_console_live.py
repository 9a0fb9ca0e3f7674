"""The console's PartiQL, Streams, Capacity and Operations pages in a real browser
(docs/console.md)."""
from __future__ import annotations

import json
import time
import urllib.request

import pytest

from browser_fixtures import browser, console_server, page, screenshot  # noqa: F401 (fixtures)
from conftest import imported

pytestmark = pytest.mark.slow  # a browser (README.md, Tests)
expect = imported("playwright.sync_api", "Playwright (the test extra) is not installed").expect


def _table(ddb, name: str, **extra) -> None:
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}], **extra)


def _okura_now(server) -> float:
    with urllib.request.urlopen(server.url + "/okura/clock") as reply:
        return json.load(reply)["now"]


def test_partiql_with_parameters_and_history(page, console_server):
    ddb = console_server.client()
    _table(ddb, "notes")
    ddb.put_item(TableName="notes", Item={"id": {"S": "n1"}, "text": {"S": "hello"}})
    ddb.put_item(TableName="notes", Item={"id": {"S": "n2"}, "text": {"S": "other"}})
    page.goto(page.base + "#/partiql")
    page.get_by_label("Statement").fill('SELECT * FROM "notes" WHERE "id" = ?')
    page.get_by_label("Parameters").fill('["n1"]')
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_role("caption")).to_have_text("1 items")
    expect(page.get_by_role("row", name="n1 hello")).to_be_visible()
    history = page.get_by_role("listitem").filter(has_text='SELECT * FROM "notes"')
    expect(history).to_have_count(1)
    page.get_by_label("Statement").fill('SELECT * FROM "nothing"')
    page.get_by_label("Parameters").fill("")
    page.get_by_role("button", name="Run").click()  # DynamoDB's error, verbatim
    expect(page.get_by_role("status").first).to_have_text(
        "ResourceNotFoundException: Requested resource not found")
    page.reload()  # the history outlives the page
    page.get_by_role("button", name='SELECT * FROM "notes" WHERE "id" = ?').click()
    expect(page.get_by_label("Statement")).to_have_value('SELECT * FROM "notes" WHERE "id" = ?')
    expect(page.get_by_label("Parameters")).to_have_value('["n1"]')
    page.get_by_label("Statement").press("Control+Enter")
    expect(page.get_by_role("row", name="n1 hello")).to_be_visible()
    screenshot(page, "partiql")


def test_stream_records_appear_and_a_ttl_expiry_goes_when_the_clock_moves(page, console_server):
    ddb = console_server.client()
    _table(ddb, "sessions", StreamSpecification={"StreamEnabled": True,
                                                 "StreamViewType": "NEW_AND_OLD_IMAGES"})
    ddb.update_time_to_live(TableName="sessions", TimeToLiveSpecification={
        "Enabled": True, "AttributeName": "expires"})
    page.goto(page.base + "#/streams/sessions")
    records = page.get_by_role("list", name="Stream records")
    expect(page.get_by_text("0 records read")).to_be_visible()
    expires = int(_okura_now(console_server)) + 600
    ddb.put_item(TableName="sessions", Item={"id": {"S": "s1"},
                                             "expires": {"N": str(expires)}})
    expect(records.get_by_role("listitem")).to_have_count(1)
    expect(records).to_contain_text("INSERT")
    expect(records).to_contain_text('New image: {"id":"s1","expires":%d}' % expires)
    screenshot(page, "streams")

    page.goto(page.base + "#/operations")
    shown = page.get_by_label("okura's time")
    expect(shown).not_to_be_empty()
    before = shown.text_content()
    page.get_by_role("button", name="+1 hour").click()
    expect(shown).not_to_have_text(before)
    assert _okura_now(console_server) > expires
    screenshot(page, "operations-clock")
    page.goto(page.base + "#/streams/sessions")  # the sweeper's delete, as it comes
    expect(records).to_contain_text("REMOVE")
    expect(records).to_contain_text("by dynamodb.amazonaws.com")
    page.goto(page.base + "#/items/sessions")
    expect(page.get_by_text("No items on this page.")).to_be_visible()


def test_a_capacity_graph_moves_with_the_writes(page, console_server):
    ddb = console_server.client()
    _table(ddb, "metered")
    page.goto(page.base + "#/capacity/metered")
    writes = page.locator('figure[data-chart="Write capacity, metered"] svg')
    expect(writes).to_have_attribute("data-last", "0")
    for attempt in range(2):  # the graph's last point is this minute's: one may turn
        for n in range(20):
            ddb.put_item(TableName="metered", Item={"id": {"S": f"k{n}"}})
        try:
            expect(writes).not_to_have_attribute("data-last", "0")
            break
        except AssertionError:
            if attempt:
                raise
    assert float(writes.get_attribute("data-last")) > 0
    expect(page.locator('figure[data-chart="Latency, metered"]')).to_contain_text("PutItem")
    page.get_by_role("button", name="Turn Contributor Insights on").click()
    expect(page.get_by_text("Contributor Insights: ENABLED")).to_be_visible()
    ddb.get_item(TableName="metered", Key={"id": {"S": "k7"}})
    page.reload()  # hot keys are read when the page opens
    hot = page.get_by_role("table").filter(has_text="metered: PKC")
    expect(hot.get_by_role("row", name='{"id":{"S":"k7"}} 1')).to_be_visible()
    # the table made eventual, with delays of hours: its write stays pending until settled
    console_server.admin("POST", "consistency", {"seed": 7, "maxDelay": 1e6})
    expect(page.get_by_text("Every write is visible")).to_be_visible()
    page.get_by_label("Consistency mode").select_option("eventual")
    deadline = time.monotonic() + 15  # the select's POST is the page's, not ours to await
    while console_server.admin("GET", "consistency")[1]["tables"] != {"metered": "eventual"}:
        assert time.monotonic() < deadline, "the consistency mode was not set"
        time.sleep(0.05)
    ddb.put_item(TableName="metered", Item={"id": {"S": "late"}})
    pending = page.get_by_role("table").filter(has_text="Pending writes")
    expect(pending.get_by_role("row", name="metered 1")).to_be_visible()
    screenshot(page, "capacity")
    page.get_by_role("button", name="Settle now").click()
    expect(page.get_by_text("Every write is visible")).to_be_visible()
    console_server.admin("POST", "consistency", {"table": "metered", "mode": None,
                                                 "maxDelay": 2})


def test_event_source_mappings_and_their_last_delivery(page, console_server):
    ddb = console_server.client()
    _table(ddb, "triggered", StreamSpecification={"StreamEnabled": True,
                                                  "StreamViewType": "NEW_IMAGE"})
    arn = ddb.describe_table(TableName="triggered")["Table"]["LatestStreamArn"]
    functions = console_server.client("lambda")
    uuid = functions.create_event_source_mapping(
        FunctionName="accept", EventSourceArn=arn, StartingPosition="TRIM_HORIZON")["UUID"]
    ddb.put_item(TableName="triggered", Item={"id": {"S": "t1"}})
    deadline = time.monotonic() + 15
    while functions.get_event_source_mapping(UUID=uuid)["LastProcessingResult"] != "OK":
        assert time.monotonic() < deadline, "the record was not delivered"
        time.sleep(0.05)
    page.goto(page.base + "#/operations")
    mapping = page.get_by_role("region", name="Event source mappings").get_by_role("row").filter(
        has_text=uuid)
    expect(mapping).to_contain_text("accept")
    expect(mapping).to_contain_text("triggered")
    expect(mapping).to_contain_text("OK")
    screenshot(page, "operations")


def test_operations_faults_and_backups(page, console_server):
    ddb = console_server.client()
    _table(ddb, "archive")
    page.goto(page.base + "#/operations")
    faults = page.get_by_role("region", name="Faults")
    expect(faults).to_contain_text("No fault rules.")
    faults.get_by_label("Rule (JSON, docs/admin.md)").fill(
        '{"operation": "DeleteItem", "table": "archive", "error": "InternalServerError"}')
    faults.get_by_role("button", name="Add rule").click()
    expect(faults.get_by_role("row").filter(has_text="DeleteItem")).to_contain_text("archive")
    faults.get_by_role("button", name="Clear all rules").click()
    expect(faults).to_contain_text("No fault rules.")
    backups = page.get_by_role("region", name="Backups")
    backups.get_by_label("Table to back up").select_option("archive")
    backups.get_by_label("Backup name").fill("before-migration")
    backups.get_by_role("button", name="Create backup").click()
    expect(backups.get_by_role("row").filter(has_text="before-migration")).to_contain_text("archive")
    assert [b["BackupName"] for b in ddb.list_backups(TableName="archive")["BackupSummaries"]] == [
        "before-migration"]
    pitr = backups.get_by_role("row").filter(has_text="archive")
    pitr.get_by_role("button", name="Turn on").click()
    expect(backups.get_by_role("row").filter(has_text="archive").last).to_contain_text("ENABLED")
    transfers = page.get_by_role("region", name="Exports and imports")
    expect(transfers).to_contain_text("No exports.")
    transfers.get_by_label("Table to export").select_option("archive")
    transfers.get_by_label("Export bucket").fill("exports")
    transfers.get_by_role("button", name="Export").click()
    # followed until it is done (the section polls while a job is in progress)
    expect(transfers.get_by_role("row").filter(has_text="s3://exports/")).to_contain_text(
        "COMPLETED")


def test_operations_bulk_puts(page, console_server):
    ddb = console_server.client()
    _table(ddb, "bulk-target")
    page.goto(page.base + "#/operations")
    bulk = page.get_by_role("region", name="Bulk puts")
    expect(bulk).to_contain_text("No bulk puts.")
    bulk.get_by_label("Table to fill").select_option("bulk-target")
    bulk.get_by_label("Bulk input bucket").fill("exports")
    bulk.get_by_label("Bulk input prefix").fill("nothing-here/")
    bulk.get_by_label("Report bucket").fill("exports")
    bulk.get_by_label("Max write units a second").fill("2048")
    bulk.get_by_role("button", name="Start bulk put").click()
    # followed until it ends: no object under the prefix fails it
    row = bulk.get_by_role("row").filter(has_text="s3://exports/nothing-here/")
    expect(row).to_contain_text("FAILED")
    expect(row).to_contain_text("No objects found under the S3 key prefix")
    described = ddb.list_bulk_operations()["BulkOperationsSummaryList"][0]
    assert described["BulkOperationStatus"] == "FAILED"
    assert ddb.describe_bulk_operation(BulkOperationArn=described["BulkOperationArn"])[
        "BulkOperationDescription"]["MaxWriteRequestUnits"] == 2048
