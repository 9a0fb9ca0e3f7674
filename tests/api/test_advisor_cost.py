"""Cost figures against examples computed by hand from AWS's published pricing rules
(the figures of okura/advisor/prices/*.json), and the capacity rules they drive."""
from __future__ import annotations

import json
import urllib.request

import pytest

from advisor_common import (advise, build, good_design, okura_server, own_server,  # noqa: F401
                            rules_of)
from okura.advisor import cost
from okura.advisor.cost import Rates, monthly
from okura.advisor.model import TableView

MONTH = 730 * 3600  # seconds


def approx(value: float):
    return pytest.approx(value, abs=1e-3)  # figures are rounded to 4 places


def _table(mode: str = "PAY_PER_REQUEST", table_class: str = "STANDARD", **extra) -> TableView:
    description = {"TableName": "prod-shop-order", "BillingModeSummary": {"BillingMode": mode},
                   "TableClassSummary": {"TableClass": table_class},
                   "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"}],
                   "StreamSpecification": {"StreamEnabled": True,
                                           "StreamViewType": "NEW_AND_OLD_IMAGES"}, **extra}
    return TableView(description, "test", pitr={"Enabled": True})


def test_on_demand_month_in_us_east_1():
    rates = Rates(reads_per_second=10, writes_per_second=5, storage_gb=100,
                  stream_reads_per_second=1, backup_gb=50, replicas=2)
    line = monthly(_table(), rates, "us-east-1")
    assert line is not None
    # 10 read units/s for 730 h = 26.28 M units at $0.125 per million; 5 write units/s
    # = 13.14 M at $0.625
    assert line["on_demand"] == approx(26.28 * 0.125 + 13.14 * 0.625)  # 11.4975
    assert line["storage"] == approx(100 * 0.25)
    assert line["pitr"] == approx(100 * 0.20)
    assert line["backups"] == approx(50 * 0.10)
    assert line["streams"] == approx(MONTH / 100_000 * 0.02)  # 26.28 x $0.02
    assert line["replicated_writes"] == approx(2 * 13.14 * 0.625)
    assert line["total"] == approx(11.4975 + 25 + 20 + 5 + 0.5256 + 16.425)
    # provisioned at 70 %: ceil(10 / 0.7) = 15 RCU, ceil(5 / 0.7) = 8 WCU, for 730 h
    assert line["provisioned"] == approx(15 * 0.00013 * 730 + 8 * 0.00065 * 730)
    assert line["provisioned_reserved"] is None  # under 100 units: nothing to reserve


def test_vector_index_storage_is_reported_and_priced_only_when_prices_are_known(monkeypatch):
    vectors = [{"IndexName": "emb", "IndexSizeBytes": 2 * 1024 ** 3}]
    line = monthly(_table(VectorIndexes=vectors), Rates(storage_gb=1), "us-east-1")
    assert line is not None and line["vector_storage_gb"] == approx(2)
    assert line["vectors"] is None  # no vector prices in the file
    priced = dict(cost.prices("us-east-1"), vector_storage_gb_month=0.5)
    monkeypatch.setattr(cost, "prices", lambda region: priced)
    line = monthly(_table(VectorIndexes=vectors), Rates(storage_gb=1), "us-east-1")
    assert line is not None and line["vectors"] == approx(1.0)
    assert "vectors" not in (monthly(_table(), Rates(storage_gb=1), "us-east-1") or {})


def test_on_demand_month_in_tokyo():
    line = monthly(_table(), Rates(reads_per_second=10, writes_per_second=5, storage_gb=10),
                   "ap-northeast-1")
    assert line is not None
    assert line["on_demand"] == approx(26.28 * 0.1425 + 13.14 * 0.715)
    assert line["storage"] == approx(10 * 0.285)
    assert line["pitr"] == approx(10 * 0.228)  # the guideline's Tokyo figure


def test_reserved_capacity_in_blocks_of_100():
    line = monthly(_table(), Rates(reads_per_second=490, writes_per_second=0), "us-east-1")
    assert line is not None
    # 490 / 0.7 = 700 RCU: 7 blocks of 100 at $30 upfront (a twelfth a month) + $0.0025 an
    # hour; writes: 1 WCU at the hourly rate
    assert line["provisioned_reserved"] == approx(
        7 * (30 / 12 + 0.0025 * 730) + 1 * 0.00065 * 730)


def test_standard_ia_storage_and_throughput():
    rates = Rates(reads_per_second=10, writes_per_second=5, storage_gb=100)
    line = monthly(_table(table_class="STANDARD_INFREQUENT_ACCESS"), rates, "us-east-1")
    assert line is not None
    assert line["storage"] == approx(100 * 0.10)  # 60 % below Standard's $0.25
    assert line["on_demand"] == approx(1.25 * (26.28 * 0.125 + 13.14 * 0.625))
    assert line["provisioned_reserved"] is None  # reserved capacity is for Standard only
    assert line["other_class"] == "STANDARD"


def test_gsi_writes_and_declared_capacity():
    table = _table("PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 100,
                                                         "WriteCapacityUnits": 50},
                   GlobalSecondaryIndexes=[{"IndexName": "gsi1", "KeySchema": [],
                                            "ProvisionedThroughput": {"ReadCapacityUnits": 10,
                                                                      "WriteCapacityUnits": 50}}])
    line = monthly(table, Rates(reads_per_second=1, writes_per_second=2), "us-east-1")
    assert line is not None
    assert line["index_writes_per_second"] == 2  # one copy of each write in the GSI
    assert line["provisioned_declared"] == approx((110 * 0.00013 + 100 * 0.00065) * 730)
    assert line["throughput"] == line["provisioned_declared"]


def test_capacity_rules_from_stated_rates(tmp_path):
    tf = tmp_path / "main.tf"
    tf.write_text("""
resource "aws_dynamodb_table" "over" {
  name = "prod-shop-order"
  billing_mode = "PROVISIONED"
  read_capacity = 1000
  write_capacity = 1000
  hash_key = "user_id"
  deletion_protection_enabled = true
  attribute {
    name = "user_id"
    type = "S"
  }
  point_in_time_recovery {
    enabled = true
  }
}
""", encoding="utf-8")
    report = advise("--terraform", str(tf), "--reads-per-second", "1", "--writes-per-second", "1")
    assert rules_of(report, "prod-shop-order") == {"capacity-mode"}
    finding = report["findings"][0]
    declared = (1000 * 0.00013 + 1000 * 0.00065) * 730
    on_demand = MONTH * (0.125 + 0.625) / 1e6
    assert finding["evidence"]["monthly_current"] == approx(declared)
    assert finding["evidence"]["monthly_on_demand"] == approx(on_demand)
    # busy and steady: provisioned would be cheaper, which on-demand tables hear as info
    busy = advise("--terraform", str(tf), "--reads-per-second",
                  "1000", "--writes-per-second", "2000")
    assert "capacity-mode" not in rules_of(busy, "prod-shop-order")
    tf.write_text(tf.read_text().replace('"PROVISIONED"', '"PAY_PER_REQUEST"'), encoding="utf-8")
    steady = advise("--terraform", str(tf), "--reads-per-second", "1000",
                    "--writes-per-second", "500")
    assert rules_of(steady, "prod-shop-order") == {"provisioned-cheaper"}
    assert steady["findings"][0]["severity"] == "info"
    stored = advise("--terraform", str(tf), "--reads-per-second", "1", "--writes-per-second",
                    "1", "--storage-gb", "1000")
    assert rules_of(stored, "prod-shop-order", severe=True) == {"table-class"}
    finding = next(f for f in stored["findings"] if f["rule"] == "table-class")
    assert finding["evidence"]["monthly_standard_infrequent_access"] < 0.8 * finding[
        "evidence"]["monthly_current"]


def _advance(server, seconds: float) -> None:
    urllib.request.urlopen(urllib.request.Request(
        server.url + "/okura/clock", data=json.dumps({"advance": seconds}).encode(),
        method="POST", headers={"Content-Type": "application/json"})).read()


def test_observed_traffic_is_extrapolated(okura_server):
    ddb = okura_server.client()
    name = build(ddb, good_design())  # 40 puts: 40 table write units, 40 in gsi1
    before = advise("--endpoint", okura_server.url)
    line = next(c for c in before["cost"]["tables"] if c["table"] == name)
    assert line["traffic_known"]
    _advance(okura_server, 7200)
    after = advise("--endpoint", okura_server.url)
    line = next(c for c in after["cost"]["tables"] if c["table"] == name)
    with urllib.request.urlopen(okura_server.url + "/okura/usage") as reply:
        seconds = json.loads(reply.read())["seconds"]
    # writes per second over the window the server counted (which the clock moved)
    assert line["writes_per_second"] == pytest.approx(40 / seconds, rel=0.01)
    assert line["index_writes_per_second"] == pytest.approx(40 / seconds, rel=0.01)
    assert rules_of(after, name, severe=True) == set()
