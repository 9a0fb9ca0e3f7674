"""`okura advise` over a running okura: a table that follows the guidelines gets no
warning; a table built to break one rule gets that rule and no other severe one."""
from __future__ import annotations

import json
import urllib.request

import pytest

from advisor_common import (advise, build, good_design, okura_server, own_server,  # noqa: F401
                            rules_of, variant)
from conftest import Server
from okura.advisor.rules import CATALOGUE


def _set(path: str, value):
    def change(design):
        target = design
        *parents, last = path.split(".")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
    return change


def _items(transform):
    def change(design):
        design["items"] = [transform(i, item) for i, item in enumerate(design["items"])]
    return change


def _rename(old: str, new: str):
    """Rename an attribute everywhere: definitions, key schemas, items."""
    def change(design):
        text = json.dumps(design).replace(f'"{old}"', f'"{new}"')
        design.clear()
        design.update(json.loads(text))
    return change


def _many(count: int, transform):
    def change(design):
        base = design["items"][0]
        design["items"] = [transform(i, dict(base, order_id=f"o{i:04}", customer_id=f"c{i:04}"))
                           for i in range(count)]
    return change


def _both(*changes):
    def change(design):
        for each in changes:
            each(design)
    return change


BREAKERS = {
    "table-name": _set("create.TableName", "ShopOrders"),
    "attribute-snake-case": _items(lambda i, item: dict(item, OrderNote="x")),
    "reserved-word-attribute": _items(lambda i, item: dict(item, comment="x")),
    "key-name": _rename("user_id", "pk"),
    "index-name": _set("create.GlobalSecondaryIndexes.0.IndexName", "customer_id-index"),
    "partition-key-low-cardinality": _many(120, lambda i, item: dict(item, user_id=f"u{i % 3}")),
    "sparse-index-opportunity": _many(
        120, lambda i, item: dict(item, user_id=f"u{i:04}", customer_id=["open", "done"][i % 2])),
    "partition-key-monotonic": _items(
        lambda i, item: dict(item, user_id=f"2026-01-{1 + i % 28:02}T00:00:{i:02}Z")),
    "lsi-collection-limit": _both(
        _set("create.LocalSecondaryIndexes", [{
            "IndexName": "lsi1", "KeySchema": [
                {"AttributeName": "user_id", "KeyType": "HASH"},
                {"AttributeName": "created_at", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}}]),
        lambda design: design["create"]["AttributeDefinitions"].append(
            {"AttributeName": "created_at", "AttributeType": "S"})),
    "item-size-near-limit": _items(lambda i, item: dict(item, note="n" * 310_000) if i == 0
                                   else item),
    "ttl-not-epoch-seconds": _items(lambda i, item: dict(item, expires_at=1800000000000)),
    "deletion-protection-off": _set("create.DeletionProtectionEnabled", False),
    "pitr-off": _set("pitr_days", 0),
    "pitr-short": _set("pitr_days", 7),
    "stream-view-wide": _items(lambda i, item: dict(item, note="n" * 120_000) if i < 3
                               else None),
    "projection-all": _set("create.GlobalSecondaryIndexes.0.Projection",
                           {"ProjectionType": "ALL"}),
    "attribute-name-share": _items(lambda i, item: {
        **item, "shipping_address_line_one_for_delivery": "x"}),
    "multi-tenant-leading-keys": _both(_rename("user_id", "tenant_id"), _set("policy", {
        "Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::123456789012:root"},
            "Action": "dynamodb:GetItem", "Resource": "*"}]})),
}


def test_a_table_that_follows_the_guidelines_gets_no_warning(okura_server):
    name = build(okura_server.client(), good_design())
    report = advise("--endpoint", okura_server.url)
    assert rules_of(report, name, severe=True) == set(), report["findings"]


@pytest.mark.parametrize("rule", sorted(BREAKERS))
def test_a_table_built_to_break_a_rule_is_flagged_with_it_alone(okura_server, rule):
    design = variant(BREAKERS[rule])
    design["items"] = [item for item in design["items"] if item is not None]
    name = build(okura_server.client(), design)
    report = advise("--endpoint", okura_server.url)
    found = [f for f in report["findings"] if f["table"] == name]
    assert rule in {f["rule"] for f in found}, found
    others = {f["rule"] for f in found if f["rule"] != rule and f["severity"] != "info"}
    assert others == set(), found
    finding = next(f for f in found if f["rule"] == rule)
    assert finding["severity"] == CATALOGUE[rule].severity
    assert finding["evidence"] and finding["source"].startswith(
        ("dynamodb-design-guideline.md", "best-practices-notes.md"))


def test_json_schema_and_fail_on(okura_server):
    build(okura_server.client(), variant(BREAKERS["ttl-not-epoch-seconds"]))
    report = advise("--endpoint", okura_server.url, "--fail-on", "error", expect=1)
    assert set(report) == {"findings", "cost"}
    for finding in report["findings"]:
        assert set(finding) == {"rule", "severity", "table", "index", "evidence", "message",
                                "recommendation", "source"}
        assert isinstance(finding["evidence"], dict)
    ttl = next(f for f in report["findings"] if f["rule"] == "ttl-not-epoch-seconds")
    assert ttl["evidence"] == {"attribute": "expires_at", "sampled_values": 40,
                               "milliseconds": 40}
    advise("--endpoint", okura_server.url, "--fail-on", "warning", expect=1)


def test_fail_on_passes_a_clean_table(okura_server):
    build(okura_server.client(), good_design())
    advise("--endpoint", okura_server.url, "--fail-on", "warning")


def test_the_admin_endpoint_serves_the_same_report(okura_server):
    name = build(okura_server.client(), variant(BREAKERS["index-name"]))
    with urllib.request.urlopen(okura_server.url + "/okura/advice") as reply:
        served = json.loads(reply.read())
    assert rules_of(served, name) == rules_of(advise("--endpoint", okura_server.url), name)
    assert "index-name" in rules_of(served, name)


def test_text_and_markdown(okura_server, capsys):
    from okura import cli

    build(okura_server.client(), variant(BREAKERS["pitr-off"]))
    cli.main(["advise", "--endpoint", okura_server.url])
    text = capsys.readouterr().out
    assert "WARNING pitr-off: point-in-time recovery is off" in text
    cli.main(["advise", "--endpoint", okura_server.url, "--format", "markdown"])
    markdown = capsys.readouterr().out
    assert "| warning | prod-shop-order |  | pitr-off |" in markdown


def _tenant_server(tmp_path, leading_keys: bool) -> Server:
    statement: dict = {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}
    if leading_keys:
        statement["Condition"] = {"ForAllValues:StringEquals": {
            "dynamodb:LeadingKeys": ["${aws:PrincipalTag/TenantID}"]}}
    config = tmp_path / "auth.json"
    config.write_text(json.dumps({"users": [{
        "name": "app", "access_key_id": "AKIAAPP", "secret_access_key": "app-secret",
        "policies": [{"Version": "2012-10-17", "Statement": [statement]}]}]}))
    return Server("--auth", "warn", "--auth-config", str(config))


@pytest.mark.parametrize("leading_keys", [False, True])
def test_a_multi_tenant_table_under_okuras_access_control(tmp_path, leading_keys):
    server = _tenant_server(tmp_path, leading_keys)
    try:
        design = variant(BREAKERS["multi-tenant-leading-keys"])
        design["policy"] = None  # the identity policies of --auth are what is checked
        name = build(server.client(key="AKIAAPP"), design)
        report = advise("--endpoint", server.url)
        expected = set() if leading_keys else {"multi-tenant-leading-keys"}
        assert rules_of(report, name, severe=True) == expected
    finally:
        server.stop()


def test_another_dynamodb_endpoint_is_read_without_a_scan_unless_asked():
    from moto.server import ThreadedMotoServer

    from conftest import free_port

    port = free_port()
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    moto.start()
    try:
        url = f"http://127.0.0.1:{port}"
        import boto3
        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                           aws_access_key_id="testing", aws_secret_access_key="testing")
        design = variant(BREAKERS["attribute-snake-case"])
        design["create"].pop("DeletionProtectionEnabled")  # not every endpoint knows it
        design["pitr_days"] = 0
        name = build(ddb, design)
        described = advise("--endpoint", url)
        assert "attribute-snake-case" not in rules_of(described, name)  # no items read
        assert {"pitr-off", "deletion-protection-off"} <= rules_of(described, name)
        # neither traffic nor size known: no cost line
        assert name not in {c["table"] for c in described["cost"]["tables"]}
        sampled = advise("--endpoint", url, "--sample", "10")
        finding = next(f for f in sampled["findings"] if f["rule"] == "attribute-snake-case")
        assert finding["evidence"]["names"] == ["OrderNote"]
    finally:
        moto.stop()
