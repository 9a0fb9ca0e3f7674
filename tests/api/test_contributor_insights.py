"""Contributor Insights: UpdateContributorInsights, DescribeContributorInsights and
ListContributorInsights as the API reference gives them, the settings kept in the
catalog (every backend), and the most accessed and throttled keys a node counts
(GET /okura/contributor-insights/<table>, docs/contributor-insights.md)."""
from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest
from botocore.exceptions import ClientError
from conftest import Server, error_of, new_database, unique_name


def _gsi_table(ddb) -> str:
    """A new table keyed by pk and sk, with a GSI keyed by g."""
    name = unique_name("insights")
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": attribute, "AttributeType": "S"}
                              for attribute in ("pk", "sk", "g")],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                   {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g",
                                 "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    return name


def _report(server, table: str) -> list[dict]:
    with urllib.request.urlopen(f"{server.url}/okura/contributor-insights/{table}") as reply:
        return json.loads(reply.read())["Resources"]


def test_a_new_table_has_insights_disabled(ddb, table):
    reply = ddb.describe_contributor_insights(TableName=table)
    assert {k: v for k, v in reply.items() if k != "ResponseMetadata"} == {
        "TableName": table, "ContributorInsightsStatus": "DISABLED"}


def test_enable_and_disable(ddb, sorted_table):
    reply = ddb.update_contributor_insights(TableName=sorted_table,
                                            ContributorInsightsAction="ENABLE")
    assert {k: v for k, v in reply.items() if k != "ResponseMetadata"} == {
        "TableName": sorted_table, "ContributorInsightsStatus": "ENABLING",
        "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"}
    described = ddb.describe_contributor_insights(TableName=sorted_table)
    assert described["ContributorInsightsStatus"] == "ENABLED"  # no status delay
    assert described["ContributorInsightsMode"] == "ACCESSED_AND_THROTTLED_KEYS"
    rules = described["ContributorInsightsRuleList"]
    assert [rule.split("-")[1] for rule in rules] == ["PKC", "PKT", "SKC", "SKT"]
    created = rules[0].rsplit("-", 1)[1]
    assert all(re.fullmatch(rf"DynamoDBContributorInsights-[PS]K[CT]-{sorted_table}-"
                            rf"{created}", rule) for rule in rules)
    assert len(created) == 13 and described["LastUpdateDateTime"]
    # a mode change keeps the rules' creation time
    reply = ddb.update_contributor_insights(TableName=sorted_table,
                                            ContributorInsightsAction="ENABLE",
                                            ContributorInsightsMode="THROTTLED_KEYS")
    assert reply["ContributorInsightsMode"] == "THROTTLED_KEYS"
    rules = ddb.describe_contributor_insights(
        TableName=sorted_table)["ContributorInsightsRuleList"]
    assert rules == [f"DynamoDBContributorInsights-{kind}-{sorted_table}-{created}"
                     for kind in ("PKT", "SKT")]
    reply = ddb.update_contributor_insights(TableName=sorted_table,
                                            ContributorInsightsAction="DISABLE")
    assert reply["ContributorInsightsStatus"] == "DISABLING"
    described = ddb.describe_contributor_insights(TableName=sorted_table)
    assert described["ContributorInsightsStatus"] == "DISABLED"
    assert "ContributorInsightsRuleList" not in described


def test_an_index_has_its_own_setting(ddb):
    name = _gsi_table(ddb)
    ddb.update_contributor_insights(TableName=name, IndexName="by_g",
                                    ContributorInsightsAction="ENABLE",
                                    ContributorInsightsMode="THROTTLED_KEYS")
    described = ddb.describe_contributor_insights(TableName=name, IndexName="by_g")
    assert described["IndexName"] == "by_g" and described["ContributorInsightsStatus"] == \
        "ENABLED"
    assert [rule.rsplit("-", 1)[0] for rule in described["ContributorInsightsRuleList"]] == [
        f"DynamoDBContributorInsights-PKT-{name}-by_g"]
    assert ddb.describe_contributor_insights(TableName=name)["ContributorInsightsStatus"] == \
        "DISABLED"
    listed = ddb.list_contributor_insights(TableName=name)["ContributorInsightsSummaries"]
    assert listed == [
        {"TableName": name, "ContributorInsightsStatus": "DISABLED"},
        {"TableName": name, "IndexName": "by_g", "ContributorInsightsStatus": "ENABLED",
         "ContributorInsightsMode": "THROTTLED_KEYS"}]
    page = ddb.list_contributor_insights(TableName=name, MaxResults=1)
    assert len(page["ContributorInsightsSummaries"]) == 1
    rest = ddb.list_contributor_insights(TableName=name, NextToken=page["NextToken"])
    assert rest["ContributorInsightsSummaries"] == listed[1:] and "NextToken" not in rest
    with pytest.raises(ClientError) as excinfo:  # tokens are sealed: a number is not one
        ddb.list_contributor_insights(TableName=name, NextToken="1")
    assert error_of(excinfo) == ("ValidationException", "Invalid NextToken")


def test_errors(ddb, table):
    with pytest.raises(ClientError) as raised:
        ddb.describe_contributor_insights(TableName="no-such-table")
    assert error_of(raised) == ("ResourceNotFoundException",
                                "Requested resource not found: Table: no-such-table not found")
    with pytest.raises(ClientError) as raised:
        ddb.update_contributor_insights(TableName=table, IndexName="nope",
                                        ContributorInsightsAction="ENABLE")
    assert error_of(raised)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as raised:
        ddb.update_contributor_insights(TableName=table, ContributorInsightsAction="ON")
    code, message = error_of(raised)
    assert code == "ValidationException" and "contributorInsightsAction" in message


def test_the_most_accessed_keys_are_counted(server, ddb):
    name = _gsi_table(ddb)
    for index in (None, "by_g"):
        ddb.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE",
                                        **({"IndexName": index} if index else {}))
    for n in range(12):
        ddb.put_item(TableName=name, Item={"pk": {"S": "hot"}, "sk": {"S": f"s{n}"},
                                           "g": {"S": "G1"}})
        ddb.put_item(TableName=name, Item={"pk": {"S": f"cold{n}"}, "sk": {"S": "b"}})
    ddb.get_item(TableName=name, Key={"pk": {"S": "hot"}, "sk": {"S": "s0"}})
    ddb.query(TableName=name, IndexName="by_g", KeyConditionExpression="g = :g",
              ExpressionAttributeValues={":g": {"S": "G1"}})
    table_report, index_report = _report(server, name)
    top = table_report["Rules"]["PKC"][0]
    assert top["Key"] == {"pk": {"S": "hot"}} and top["Count"] >= 13
    assert table_report["Rules"]["SKC"][0] == {
        "Key": {"pk": {"S": "hot"}, "sk": {"S": "s0"}}, "Count": 2, "MinCount": 2}
    assert table_report["Rules"]["PKT"] == [] and table_report["Rules"]["SKT"] == []
    assert index_report["IndexName"] == "by_g"
    assert index_report["Rules"]["PKC"][0]["Key"] == {"g": {"S": "G1"}}
    assert index_report["Rules"]["PKC"][0]["Count"] >= 13  # 12 writes and one query
    with urllib.request.urlopen(server.url + "/metrics") as reply:
        page = reply.read().decode()
    assert re.search(r'okura_contributor_insights_count\{table_name="%s",index="",rule="PKC",'
                     r'key="\{\\"pk\\":\{\\"S\\":\\"hot\\"\}\}",region="us-east-1"\} 1[3-9]'
                     % name, page), page[:2000]


def test_injected_throttles_are_the_most_throttled_keys(server, ddb, sorted_table):
    ddb.update_contributor_insights(TableName=sorted_table, ContributorInsightsAction="ENABLE",
                                    ContributorInsightsMode="THROTTLED_KEYS")
    _faults(server, "POST", {"table": sorted_table, "key_prefix": "hot",
                             "error": "ProvisionedThroughputExceededException", "count": 3})
    try:
        for n in range(3):
            with pytest.raises(ClientError):
                ddb.put_item(TableName=sorted_table,
                             Item={"pk": {"S": "hot"}, "sk": {"S": "a"}})
            ddb.put_item(TableName=sorted_table, Item={"pk": {"S": f"cold{n}"}, "sk": {"S": "a"}})
    finally:
        _faults(server, "DELETE")
    [report] = _report(server, sorted_table)
    assert report["Rules"] == {  # this mode counts no accesses
        "PKT": [{"Key": {"pk": {"S": "hot"}}, "Count": 3, "MinCount": 3}],
        "SKT": [{"Key": {"pk": {"S": "hot"}, "sk": {"S": "a"}}, "Count": 3, "MinCount": 3}]}


def _faults(server, method: str, rule=None) -> None:
    urllib.request.urlopen(urllib.request.Request(
        server.url + "/okura/faults", method=method,
        data=None if rule is None else json.dumps(rule).encode(), headers={"Content-Type": "application/json"}))


@pytest.fixture(scope="module")
def two_nodes():
    with new_database() as url:
        started = [Server("--postgres", url), Server("--postgres", url)]
        yield started
        for node in started:
            node.stop()


def test_nodes_share_the_setting_and_count_their_own_requests(two_nodes):
    first, second = (node.client() for node in two_nodes)
    name = unique_name("insights")
    first.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "N"}],
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    second.get_item(TableName=name, Key={"pk": {"N": "1"}})  # the second node holds it now
    first.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE")
    # the second node hears of the change through PostgreSQL's notifications: soon
    deadline = time.monotonic() + 10
    while second.describe_contributor_insights(
            TableName=name)["ContributorInsightsStatus"] != "ENABLED":
        assert time.monotonic() < deadline, "the second node never saw the setting"
        time.sleep(0.02)
    for _ in range(3):
        second.get_item(TableName=name, Key={"pk": {"N": "-1.5"}})
    [counted] = _report(two_nodes[1], name)
    assert counted["Rules"]["PKC"] == [{"Key": {"pk": {"N": "-1.5"}}, "Count": 3, "MinCount": 3}]
    assert _report(two_nodes[0], name)[0]["Rules"]["PKC"] == []  # the first served none
