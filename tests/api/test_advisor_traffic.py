"""The traffic rules, from what a running okura observed: each traffic pattern built to
break one rule is flagged with it and no other severe one."""
from __future__ import annotations

import json
import urllib.request

from advisor_common import (advise, build, good_design, okura_server, own_server,  # noqa: F401
                            rules_of, variant)


def _gsi_read(ddb, name: str) -> None:
    """One read of gsi1 as its design intends (what keeps gsi-unused quiet)."""
    ddb.query(TableName=name, IndexName="gsi1", KeyConditionExpression="customer_id = :c",
              ExpressionAttributeValues={":c": {"S": "c001"}}, ProjectionExpression="order_total")


def _get(ddb, name: str, user: str = "u001", consistent: bool = False) -> None:
    ddb.get_item(TableName=name, Key={"user_id": {"S": user}, "order_id": {"S": "o" + user[1:]}},
                 ConsistentRead=consistent)


def _severe(report: dict, name: str) -> set[str]:
    return rules_of(report, name, severe=True)


def test_scans_on_the_hot_path(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    _gsi_read(ddb, name)
    for _ in range(20):
        ddb.scan(TableName=name, Limit=1)
    for i in range(40):
        _get(ddb, name, f"u{i:03}")
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == {"scan-on-hot-path"}
    finding = next(f for f in report["findings"] if f["rule"] == "scan-on-hot-path")
    assert finding["evidence"] == {"scans": 20, "reads": 61, "share": round(20 / 61, 3)}


def test_filters_that_throw_most_of_what_they_read_away(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    _gsi_read(ddb, name)
    for _ in range(3):  # 3 x 40 items read, 1 kept each time
        ddb.scan(TableName=name, FilterExpression="order_total = :t",
                 ExpressionAttributeValues={":t": {"N": "10"}})
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == {"filter-waste"}
    finding = next(f for f in report["findings"] if f["rule"] == "filter-waste")
    assert finding["evidence"] == {"scanned_count": 120, "count": 3, "discarded_share": 0.975}
    assert finding["index"] is None


def test_strongly_consistent_reads(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    _gsi_read(ddb, name)
    for i in range(100):
        _get(ddb, name, f"u{i % 40:03}", consistent=i % 4 != 0)
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == {"strongly-consistent-reads"}
    finding = next(f for f in report["findings"] if f["rule"] == "strongly-consistent-reads")
    assert finding["evidence"] == {"reads": 100, "consistent": 75, "share": 0.75}


def test_a_gsi_never_queried(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    for i in range(100):
        _get(ddb, name, f"u{i % 40:03}")
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == {"gsi-unused"}
    finding = next(f for f in report["findings"] if f["rule"] == "gsi-unused")
    assert finding["index"] == "gsi1" and finding["evidence"]["index_reads"] == 0


def test_a_projection_wider_than_its_queries_read(okura_server):
    def wider(design):
        design["create"]["GlobalSecondaryIndexes"][0]["Projection"]["NonKeyAttributes"] = [
            "order_total", "created_at"]
    ddb = okura_server.client()
    name = build(ddb, variant(wider))
    for _ in range(20):
        _gsi_read(ddb, name)
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == {"projection-wider-than-read"}
    finding = next(f for f in report["findings"] if f["rule"] == "projection-wider-than-read")
    assert finding["evidence"] == {"projection": "INCLUDE", "reads": 20,
                                   "attributes_read": ["order_total"],
                                   "projected_unread": ["created_at"]}


def test_a_hot_key_from_contributor_insights(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    ddb.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE")
    _gsi_read(ddb, name)
    for i in range(100):
        _get(ddb, name, "u007" if i % 2 else f"u{i % 40:03}")
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == {"hot-key"}
    finding = next(f for f in report["findings"] if f["rule"] == "hot-key")
    assert finding["evidence"]["key"] == {"user_id": {"S": "u007"}}
    assert finding["evidence"]["accesses"] >= 50
    assert finding["evidence"]["share"] >= 0.5


def test_even_traffic_is_not_flagged(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    ddb.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE")
    for i in range(40):
        _gsi_read(ddb, name)
        _get(ddb, name, f"u{i:03}")
        _get(ddb, name, f"u{(i + 1) % 40:03}")
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == set()


def test_usage_endpoint(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    _gsi_read(ddb, name)
    _get(ddb, name, consistent=True)
    with urllib.request.urlopen(okura_server.url + "/okura/usage") as reply:
        usage = json.loads(reply.read())
    tally = usage["tables"][name]
    assert tally["reads"]["gsi1"]["Query"] == [1, 0, 1, 1, 1]
    assert tally["attributes"]["gsi1"] == ["order_total"]
    assert tally["item_reads"] == [1, 1]
    assert tally["index_units"]["gsi1"][1] == 40.0  # each of the 40 puts wrote the index
    assert usage["auth"] == "off" and usage["seconds"] >= 0


def test_partiql_selects_count_as_the_reads_they_are(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())
    _gsi_read(ddb, name)
    for _ in range(20):  # no key in WHERE: a Scan
        ddb.execute_statement(Statement=f'SELECT order_total FROM "{name}" WHERE order_total > 0',
                              Limit=5)
    ddb.execute_statement(Statement=f"SELECT * FROM \"{name}\" WHERE user_id = 'u001'")
    report = advise("--endpoint", okura_server.url)
    assert _severe(report, name) == {"scan-on-hot-path"}
    with urllib.request.urlopen(okura_server.url + "/okura/usage") as reply:
        reads = json.loads(reply.read())["tables"][name]["reads"][""]
    assert reads["Scan"][:4] == [20 + 1, 0, 100 + 40, 100 + 40]  # and the advisor's sample
    assert reads["Query"] == [1, 0, 1, 1, 0]
