"""What the advisor's tests share: a server of their own, a table that follows the
design guidelines, and its variants that each break one rule."""
from __future__ import annotations

import copy
import io
import json
import urllib.request
from contextlib import redirect_stdout

import pytest

from conftest import Server
from okura import cli

SEVERE = ("warning", "error")


@pytest.fixture(scope="module")
def own_server():
    instance = Server()
    yield instance
    instance.stop()


@pytest.fixture
def okura_server(own_server):
    """The module's server, emptied (each test sees its own tables alone)."""
    urllib.request.urlopen(urllib.request.Request(own_server.url + "/okura/reset",
                                                  data=b"{}", method="POST",
                                                  headers={"Content-Type": "application/json"})).read()
    return own_server


def advise(*args: str, expect: int = 0) -> dict:
    """`okura advise ... --format json`, run in this process."""
    out = io.StringIO()
    with redirect_stdout(out):
        try:
            cli.main(["advise", *args, "--format", "json"])
            code = 0
        except SystemExit as exit:
            code = exit.code  # type: ignore[assignment]
    assert code == expect, out.getvalue()
    return json.loads(out.getvalue())


def rules_of(report: dict, table: str, severe: bool = False) -> set[str]:
    return {f["rule"] for f in report["findings"] if f["table"] == table
            and (not severe or f["severity"] in SEVERE)}


def good_design() -> dict:
    """A table that follows every guideline: its CreateTable request, its settings, its
    items (plain values)."""
    return {
        "create": {
            "TableName": "prod-shop-order",
            "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"},
                          {"AttributeName": "order_id", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "user_id", "AttributeType": "S"},
                                     {"AttributeName": "order_id", "AttributeType": "S"},
                                     {"AttributeName": "customer_id", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
            "DeletionProtectionEnabled": True,
            "StreamSpecification": {"StreamEnabled": True,
                                    "StreamViewType": "NEW_AND_OLD_IMAGES"},
            "GlobalSecondaryIndexes": [{
                "IndexName": "gsi1",
                "KeySchema": [{"AttributeName": "customer_id", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE",
                               "NonKeyAttributes": ["order_total"]}}],
        },
        "ttl": "expires_at",
        "pitr_days": 35,
        "policy": None,
        "items": [{"user_id": f"u{i:03}", "order_id": f"o{i:03}", "customer_id": f"c{i:03}",
                   "order_total": 10 + i, "created_at": "2026-01-01T00:00:00Z",
                   "expires_at": 1800000000} for i in range(40)],
    }


def variant(change) -> dict:
    design = good_design()
    change(design)
    return design


def _plain(value) -> dict:
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, (int, float)):
        return {"N": str(value)}
    return {"S": value}


def build(ddb, design: dict) -> str:
    create = copy.deepcopy(design["create"])
    ddb.create_table(**create)
    name = create["TableName"]
    if design["ttl"]:
        ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
            "AttributeName": design["ttl"], "Enabled": True})
    if design["pitr_days"]:
        ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": design["pitr_days"]})
    if design["policy"]:
        arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
        ddb.put_resource_policy(ResourceArn=arn, Policy=json.dumps(design["policy"]))
    for start in range(0, len(design["items"]), 25):
        ddb.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {k: _plain(v) for k, v in item.items()}}}
            for item in design["items"][start:start + 25]]})
    return name
