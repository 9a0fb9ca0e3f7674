"""What the rules see of a table, whatever it came from, and what they say of it.

A table is its DescribeTable TableDescription (a template's resource is translated into
one), with what else its source could tell: TTL, point-in-time recovery, a sample of its
items, its observed traffic, its resource policy. None means "not known" (a template has
no items; real DynamoDB publishes no request counts to Describe*), and a rule that needs
it says nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

ERROR, WARNING, INFO = "error", "warning", "info"
SEVERITIES = (INFO, WARNING, ERROR)  # in rising order


@dataclass
class Usage:
    """A table's traffic since okura started counting (GET /okura/usage)."""
    seconds: float  # how long it was counted
    # operation -> [requests, read units, write units] of the table (and its local indexes)
    operations: dict[str, list[float]] = field(default_factory=dict)
    # index name ("" the table) -> {"Query"/"Scan": [requests, consistent, scanned,
    # returned, requests that named their attributes]}
    reads: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    # index name -> top-level attributes the reads that named theirs asked for
    attributes: dict[str, list[str]] = field(default_factory=dict)
    # GetItem and BatchGetItem keys: [reads, consistent ones]
    item_reads: list[int] = field(default_factory=lambda: [0, 0])
    # global secondary index -> [read units, write units]
    index_units: dict[str, list[float]] = field(default_factory=dict)

    def requests(self) -> float:
        return sum(counts[0] for counts in self.operations.values())

    def units(self, write: bool) -> float:
        return sum(counts[2 if write else 1] for counts in self.operations.values())


@dataclass
class TableView:
    description: dict  # DescribeTable's TableDescription
    source: str  # where it came from: "okura http://...", "main.tf: aws_dynamodb_table.x"
    ttl: dict | None = None  # {"AttributeName", "Enabled"}
    pitr: dict | None = None  # {"Enabled", "RecoveryPeriodInDays"}
    items: list[dict] | None = None  # a sample, as wire AttributeValues
    complete: bool = False  # the sample is the whole table
    usage: Usage | None = None
    insights: list[dict] | None = None  # GET /okura/contributor-insights' Resources
    policies: list[str] | None = None  # policy documents that govern it (JSON text)
    backup_bytes: int | None = None  # its on-demand backups' size

    @property
    def name(self) -> str:
        return self.description["TableName"]

    def key(self, index: dict | None = None) -> tuple[str, str | None]:
        """(partition key, sort key or None) of the table or one of its indexes."""
        schema = (index or self.description)["KeySchema"]
        hash_ = next(k["AttributeName"] for k in schema if k["KeyType"] == "HASH")
        range_ = next((k["AttributeName"] for k in schema if k["KeyType"] == "RANGE"), None)
        return hash_, range_

    def indexes(self, kind: str = "Global") -> list[dict]:
        return self.description.get(f"{kind}SecondaryIndexes") or []

    def billing_mode(self) -> str:
        mode = (self.description.get("BillingModeSummary") or {}).get("BillingMode")
        return mode or ("PROVISIONED" if self.description.get("ProvisionedThroughput", {})
                        .get("ReadCapacityUnits") else "PAY_PER_REQUEST")

    def table_class(self) -> str:
        return (self.description.get("TableClassSummary") or {}).get("TableClass") or "STANDARD"


@dataclass
class Finding:
    rule: str
    severity: str
    table: str
    index: str | None
    evidence: dict  # the numbers the finding rests on
    message: str
    recommendation: str
    source: str  # the guideline section

    def as_json(self) -> dict:
        return {"rule": self.rule, "severity": self.severity, "table": self.table,
                "index": self.index, "evidence": self.evidence, "message": self.message,
                "recommendation": self.recommendation, "source": self.source}
