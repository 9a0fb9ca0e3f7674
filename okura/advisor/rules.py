"""The rules: one small function per rule, each registered in CATALOGUE with its id,
severity, recommendation and the guideline section it comes from (docs/advisor.md lists
them). A rule yields (index or None, evidence, message) for each thing it finds; a rule
whose input its source cannot give (no items, no traffic) yields nothing.

Guideline files (../shared/guidelines): G the design guideline, BP the best-practice
notes, BASICS the basics notes.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from okura.advisor import measures
from okura.advisor.cost import Rates, monthly
from okura.advisor.model import ERROR, INFO, WARNING, Finding, TableView
from okura.expressions.reserved import RESERVED

G, BP, BASICS = ("dynamodb-design-guideline.md", "best-practices-notes.md",
                 "dynamodb-basics-notes.md")

# Thresholds (docs/advisor.md says why each is what it is)
ENVIRONMENTS = frozenset(("dev", "develop", "development", "stg", "stage", "staging", "prod",
                          "prd", "production", "test", "tst", "qa", "uat", "sandbox", "sbx",
                          "local", "demo", "perf", "load", "int", "it", "st"))
GENERIC_KEYS = frozenset(("pk", "sk", "id", "key", "hash", "range", "hk", "rk", "partition",
                          "partition_key", "sort_key", "partitionkey", "sortkey", "value",
                          "data", "type", "name"))
MIN_SAMPLE = 100  # items carrying a key before its cardinality is judged
LOW_DISTINCT = 10  # distinct partition key values at most that are "few"
SPARSE_PRESENT = 0.9  # share of items carrying a GSI key that makes the index dense
MIN_DATES = 20  # key values before their shape is judged
DATE_SHARE = 0.8  # share of date-like values that makes a key monotonic
MIN_EVENTS = 100  # accesses Contributor Insights saw before a key is called hot
HOT_SHARE = 0.2  # share of a resource's accesses one key takes to be hot
MIN_SCANS = 20
SCAN_SHARE = 0.1  # share of a table's read requests that are Scans
MIN_SCANNED = 100
FILTER_WASTE = 0.5  # share of scanned items a filter throws away
MIN_READS = 100
CONSISTENT_SHARE = 0.5
MIN_TRAFFIC = 100  # a table's requests before an index with no reads is unused
MIN_INDEX_READS = 20
ITEM_LIMIT = 400 * 1024
NEAR_LIMIT = 0.75  # of 400 KB
NAME_SHARE = 0.3  # of item bytes in attribute names
MIN_NAME_ITEMS = 20
COLLECTION_LIMIT = 10 * 1024 ** 3
COLLECTION_ERROR = 0.5  # of 10 GB: the LSI finding becomes an error
LARGE_STREAM_ITEM = 100 * 1024  # average item size above which NEW_AND_OLD_IMAGES costs
LAMBDA_PAYLOAD = 6 * 1024 * 1024
PITR_DAYS = 35
MIN_OBSERVED_SECONDS = 3600.0  # traffic watched before it is extrapolated to a month
MODE_SAVING = 0.5  # share of the current cost another capacity mode saves
CLASS_SAVING = 0.2  # share of the current cost the other table class saves
TENANT = re.compile(r"tenant|org(anization)?_?id|account_?id", re.I)
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
GSI_NAME = re.compile(r"^gsi[1-9][0-9]*$")
LSI_NAME = re.compile(r"^lsi[1-9][0-9]*$")
TEMPLATE_PART = re.compile(r"\$\{[^}]*\}")  # ${var.env} in a template's table name

Hit = tuple  # (index name or None, evidence, message)


@dataclass
class Rule:
    id: str
    severity: str
    source: str
    recommendation: str
    check: Callable[["Scope"], Iterator[Hit]]


@dataclass
class Scope:
    """What a rule sees: the table and the run's settings."""
    table: TableView
    rates: Rates
    region: str
    access_control: bool


CATALOGUE: dict[str, Rule] = {}


def rule(id: str, severity: str, source: str, recommendation: str):
    def register(check):
        CATALOGUE[id] = Rule(id, severity, source, recommendation, check)
        return check
    return register


def run_rules(table: TableView, rates: Rates, region: str,
              access_control: bool) -> list[Finding]:
    scope = Scope(table, rates, region, access_control)
    return [Finding(r.id, r.severity, table.name, index, evidence, message, r.recommendation,
                    r.source)
            for r in CATALOGUE.values() for index, evidence, message in r.check(scope)]


def _known(names) -> list[str]:
    """Names as written, without a template's unresolved ones (${var.key})."""
    return [name for name in names if isinstance(name, str) and "${" not in name]


def _attributes(t: TableView) -> list[str]:
    """Every attribute name the table shows: keys, projections, sampled items."""
    names = [d["AttributeName"] for d in t.description.get("AttributeDefinitions", ())]
    for index in t.indexes() + t.indexes("Local"):
        names += index.get("Projection", {}).get("NonKeyAttributes", ())
    if t.ttl and t.ttl.get("AttributeName"):
        names.append(t.ttl["AttributeName"])
    if t.items:
        names += sorted(measures.attribute_names(t.items))
    return list(dict.fromkeys(_known(names)))


def _key_attributes(t: TableView) -> list[tuple[str | None, str]]:
    """(index name or None, attribute) of every key of the table and its indexes."""
    out: list[tuple[str | None, str]] = [(None, name) for name in _known(t.key())]
    for index in t.indexes() + t.indexes("Local"):
        out += [(index["IndexName"], name) for name in _known(t.key(index))]
    return out


# Naming
@rule("table-name", WARNING, f"{G} 命名規則 (テーブル名)",
      "Name tables {env}-{product}-{usage} in lower case with hyphens, e.g. prod-shop-order.")
def table_name(s: Scope) -> Iterator[Hit]:
    name = TEMPLATE_PART.sub("dev", s.table.name)  # an interpolation: the environment
    parts = name.split("-")
    if (len(parts) < 3 or not all(re.fullmatch(r"[a-z0-9]+", part) for part in parts)
            or parts[0] not in ENVIRONMENTS):
        yield None, {"segments": len(parts), "environment": parts[0] in ENVIRONMENTS}, (
            f"table name {s.table.name!r} is not of the form {{env}}-{{product}}-{{usage}}")


@rule("attribute-snake-case", WARNING, f"{G} 命名規則 (属性名)",
      "Name attributes in snake_case (user_name, created_at).")
def attribute_snake_case(s: Scope) -> Iterator[Hit]:
    names = _attributes(s.table)
    bad = [name for name in names if not SNAKE.match(name)]
    if bad:
        yield None, {"attributes": len(names), "not_snake_case": len(bad), "names": bad[:10]}, (
            f"{len(bad)} of {len(names)} attribute names are not snake_case: "
            + ", ".join(bad[:5]))


@rule("reserved-word-attribute", WARNING, f"{G} 命名規則 (属性名: 予約語)",
      "Rename the attribute (or always pass it through ExpressionAttributeNames).")
def reserved_word_attribute(s: Scope) -> Iterator[Hit]:
    # the TTL attribute is exempt: the guideline itself names it `ttl` (共通カラム)
    ttl = (s.table.ttl or {}).get("AttributeName")
    names = [name for name in _attributes(s.table) if name != ttl]
    bad = [name for name in names if name.upper() in RESERVED]
    if bad:
        yield None, {"attributes": len(names), "reserved": len(bad), "names": bad[:10]}, (
            f"{len(bad)} attribute names are DynamoDB reserved words: " + ", ".join(bad[:5]))


@rule("key-name", WARNING, f"{G} 命名規則 (プライマリーキー); 複合キー (汎用GSI)",
      "Name keys after what they hold (user_id, order_id, created_at), not pk/sk/id.")
def key_name(s: Scope) -> Iterator[Hit]:
    for index, name in _key_attributes(s.table):
        generic = re.sub(r"^gsi\d+_?|^lsi\d+_?", "", name.lower())
        if generic in GENERIC_KEYS:
            yield index, {"attribute": name}, f"key attribute {name!r} does not say what it holds"


@rule("index-name", WARNING, f"{G} 命名規則 (グローバルセカンダリインデックス(GSI)名)",
      "Name global secondary indexes gsi1, gsi2, ... (local ones lsi1, lsi2, ...), not "
      "after their keys, which may change.")
def index_name(s: Scope) -> Iterator[Hit]:
    for kind, pattern in (("Global", GSI_NAME), ("Local", LSI_NAME)):
        for index in s.table.indexes(kind):
            if _known([index["IndexName"]]) and not pattern.match(index["IndexName"]):
                yield index["IndexName"], {"kind": kind.lower()}, (
                    f"index name {index['IndexName']!r} is not a sequence name "
                    f"({'gsi' if kind == 'Global' else 'lsi'}1, 2, ...)")


# Keys, from the data
def _partition_keys(t: TableView) -> Iterator[tuple[dict | None, str]]:
    yield None, t.key()[0]
    for index in t.indexes():
        yield index, t.key(index)[0]


def _dense_few(t: TableView, index: dict | None, name: str) -> tuple[int, int] | None:
    """(carrying, distinct) when the sample shows few values of partition key `name`."""
    assert t.items is not None
    carrying, distinct = measures.distinct(t.items, name)
    if carrying < MIN_SAMPLE or distinct > LOW_DISTINCT:
        return None
    # A Scan returns a table's item collections whole, one after another: a partial sample
    # of a table with a sort key shows few of its partition keys whatever their number.
    if index is None and t.key()[1] is not None and not t.complete:
        return None
    return carrying, distinct


def _dense(t: TableView, carrying: int) -> bool:
    assert t.items is not None
    return carrying >= SPARSE_PRESENT * len(t.items)


@rule("partition-key-low-cardinality", WARNING,
      f"{G} プライマリーキーの設計; {BP} Partition key design",
      "Choose a partition key with many distinct values (user_id, order_id), or shard a "
      "few values with a suffix (write sharding).")
def partition_key_low_cardinality(s: Scope) -> Iterator[Hit]:
    if not s.table.items:
        return
    for index, name in _partition_keys(s.table):
        few = _dense_few(s.table, index, name)
        if few is None or (index is not None and _dense(s.table, few[0])):
            continue  # a dense GSI on few values is sparse-index-opportunity's
        yield None if index is None else index["IndexName"], {
            "attribute": name, "sampled_items": few[0], "distinct_values": few[1]}, (
            f"partition key {name!r} has {few[1]} distinct values in {few[0]} sampled items")


@rule("sparse-index-opportunity", WARNING,
      f"{G} インデックスの使い分け (スパースインデックス); {BP} Sparse indexes",
      "Make the index sparse: write its key attribute only on the items a query looks for "
      "(e.g. open orders) and remove it from the others.")
def sparse_index_opportunity(s: Scope) -> Iterator[Hit]:
    if not s.table.items:
        return
    for index in s.table.indexes():
        name = s.table.key(index)[0]
        few = _dense_few(s.table, index, name)
        if few is not None and _dense(s.table, few[0]):
            yield index["IndexName"], {
                "attribute": name, "items_with_key": few[0], "sampled_items": len(s.table.items),
                "distinct_values": few[1]}, (
                f"{few[0]} of {len(s.table.items)} sampled items carry {name!r}, with only "
                f"{few[1]} distinct values: the index holds nearly the whole table")


@rule("partition-key-monotonic", WARNING,
      f"{G} プライマリーキーの設計 (連番・タイムスタンプ); {BP} Write sharding",
      "Put the date or sequence in the sort key, under a partition key with many values "
      "(e.g. device_id + created_at), or add a shard suffix.")
def partition_key_monotonic(s: Scope) -> Iterator[Hit]:
    if not s.table.items:
        return
    for index, name in _partition_keys(s.table):
        found = measures.values(s.table.items, name)
        dated = sum(map(measures.date_like, found))
        if len(found) >= MIN_DATES and dated >= DATE_SHARE * len(found):
            yield None if index is None else index["IndexName"], {
                "attribute": name, "sampled_values": len(found), "date_like": dated,
                "example": measures.scalar(found[0])}, (
                f"{dated} of {len(found)} sampled values of partition key {name!r} are "
                "dates or timestamps: writes crowd onto the newest")


# Traffic
@rule("hot-key", WARNING, f"{BP} Distributing workloads; {G} 性能 (アダプティブキャパシティ)",
      "Spread the key's traffic: cache it, shard it with a suffix, or rethink the key.")
def hot_key(s: Scope) -> Iterator[Hit]:
    for resource in s.table.insights or ():
        totals = resource.get("Totals") or {}
        total = totals.get("PKC", 0)
        rules = resource.get("Rules") or {}
        top = (rules.get("PKC") or [None])[0]
        throttled = rules.get("PKT") or []
        index = resource.get("IndexName")
        if throttled:
            yield index, {"throttled_keys": len(throttled), "key": throttled[0]["Key"],
                          "throttled_requests": throttled[0]["Count"]}, (
                f"key {json.dumps(throttled[0]['Key'])} was throttled "
                f"{throttled[0]['Count']} times")
        elif top is not None and total >= MIN_EVENTS and top["Count"] >= HOT_SHARE * total:
            yield index, {"key": top["Key"], "accesses": top["Count"], "of_accesses": total,
                          "share": round(top["Count"] / total, 3)}, (
                f"one key takes {top['Count'] / total:.0%} of {total} accesses: "
                f"{json.dumps(top['Key'])}")


def _reads(t: TableView, index: str, operation: str) -> list[int]:
    assert t.usage is not None
    return t.usage.reads.get(index, {}).get(operation, [0, 0, 0, 0, 0])


@rule("scan-on-hot-path", WARNING, f"{BP} Querying and scanning; {G} コスト",
      "Serve the access pattern with a Query on the table or a GSI instead of a Scan.")
def scan_on_hot_path(s: Scope) -> Iterator[Hit]:
    usage = s.table.usage
    if usage is None:
        return
    scans = sum(reads.get("Scan", [0])[0] for reads in usage.reads.values())
    reads = scans + sum(reads.get("Query", [0])[0] for reads in usage.reads.values()) \
        + usage.item_reads[0]
    if scans >= MIN_SCANS and scans >= SCAN_SHARE * reads:
        yield None, {"scans": scans, "reads": reads, "share": round(scans / reads, 3)}, (
            f"{scans} of {reads} reads ({scans / reads:.0%}) are Scans")


@rule("filter-waste", WARNING, f"{BP} Querying and scanning",
      "Move the filter's condition into the key (a sort key prefix, or a GSI keyed on it) "
      "so that reads stop paying for items they throw away.")
def filter_waste(s: Scope) -> Iterator[Hit]:
    if s.table.usage is None:
        return
    for index, operations in s.table.usage.reads.items():
        scanned = sum(counts[2] for counts in operations.values())
        returned = sum(counts[3] for counts in operations.values())
        if scanned >= MIN_SCANNED and scanned - returned >= FILTER_WASTE * scanned:
            yield index or None, {"scanned_count": scanned, "count": returned,
                                  "discarded_share": round(1 - returned / scanned, 3)}, (
                f"filters discarded {scanned - returned} of {scanned} items read "
                f"(ScannedCount {scanned}, Count {returned})")


@rule("strongly-consistent-reads", WARNING,
      f"{G} API利用 (結果整合性・強力な整合性の読み込み)",
      "Read eventually consistently by default (half the read units); keep strongly "
      "consistent reads to write-then-read paths that need them.")
def strongly_consistent_reads(s: Scope) -> Iterator[Hit]:
    usage = s.table.usage
    if usage is None:
        return
    reads, consistent = usage.item_reads
    for counts in usage.reads.get("", {}).values():
        reads, consistent = reads + counts[0], consistent + counts[1]
    if reads >= MIN_READS and consistent >= CONSISTENT_SHARE * reads:
        yield None, {"reads": reads, "consistent": consistent,
                     "share": round(consistent / reads, 3)}, (
            f"{consistent} of {reads} reads ({consistent / reads:.0%}) are strongly consistent")


# Indexes
@rule("gsi-unused", WARNING, f"{G} インデックスの使い分け (GSIの利用数は絞る)",
      "Delete the index if no access pattern needs it: it costs its writes and storage.")
def gsi_unused(s: Scope) -> Iterator[Hit]:
    usage = s.table.usage
    if usage is None or usage.requests() < MIN_TRAFFIC:
        return
    for index in s.table.indexes():
        name = index["IndexName"]
        reads = sum(counts[0] for counts in usage.reads.get(name, {}).values())
        if reads == 0:
            yield name, {"index_reads": 0, "table_requests": int(usage.requests()),
                         "observed_seconds": round(usage.seconds)}, (
                f"no Query or Scan read the index in {int(usage.requests())} requests to "
                "the table")


@rule("projection-wider-than-read", WARNING,
      f"{G} インデックスの射影 (プロジェクション); {BP} Choose projections carefully",
      "Project only the attributes queries read (INCLUDE), so that writes of the others "
      "stop costing index writes and storage.")
def projection_wider_than_read(s: Scope) -> Iterator[Hit]:
    usage = s.table.usage
    if usage is None:
        return
    for index in s.table.indexes():
        name = index["IndexName"]
        reads = usage.reads.get(name, {})
        requests = sum(counts[0] for counts in reads.values())
        named = sum(counts[4] for counts in reads.values())
        if requests < MIN_INDEX_READS or named < requests:
            continue  # a read that asked for everything projected uses everything projected
        keys = set(s.table.key(index)) | set(s.table.key())
        used = set(usage.attributes.get(name, ())) - keys
        projection = index.get("Projection", {})
        if projection.get("ProjectionType") == "ALL":
            projected = (measures.attribute_names(s.table.items) - keys if s.table.items
                         else set())
        else:
            projected = set(projection.get("NonKeyAttributes", ()))
        unread = sorted(projected - used)
        if unread and projection.get("ProjectionType") != "KEYS_ONLY":
            yield name, {"projection": projection.get("ProjectionType"), "reads": requests,
                         "attributes_read": sorted(used), "projected_unread": unread}, (
                f"{requests} reads of the index asked for {len(used)} non-key attributes; "
                f"it also projects {len(unread)} more: {', '.join(unread[:5])}")


@rule("projection-all", INFO, f"{G} インデックスの射影 (ALL は原則採用しない)",
      "Prefer INCLUDE with the attributes the index's queries read; ALL needs an "
      "architect's review.")
def projection_all(s: Scope) -> Iterator[Hit]:
    for index in s.table.indexes():
        if index.get("Projection", {}).get("ProjectionType") == "ALL":
            yield index["IndexName"], {"projection": "ALL"}, "the index projects every attribute"


@rule("lsi-collection-limit", WARNING, f"{G} インデックスの使い分け (LSI: パーティションキーごとに10GB)",
      "Prefer a GSI: with a local index every partition key's items may hold 10 GB at most, "
      "and the index cannot be removed.")
def lsi_collection_limit(s: Scope) -> Iterator[Hit]:
    locals_ = s.table.indexes("Local")
    if not locals_:
        return
    evidence: dict = {"local_indexes": len(locals_), "limit_bytes": COLLECTION_LIMIT}
    if s.table.items:
        largest = max(measures.collections(s.table.items, s.table.key()[0]).values(), default=0)
        evidence.update(largest_sampled_collection_bytes=largest,
                        share_of_limit=round(largest / COLLECTION_LIMIT, 6))
    yield locals_[0]["IndexName"], evidence, (
        f"{len(locals_)} local secondary index(es) cap each item collection at 10 GB")


# Items
@rule("item-size-near-limit", WARNING, f"{G} データ型 / データの圧縮 (400KB); {BP} Large items",
      "Split the item by sort key, or keep the large part in S3 and its path in the item.")
def item_size_near_limit(s: Scope) -> Iterator[Hit]:
    if not s.table.items:
        return
    sizes = measures.sizes(s.table.items)
    near = [size for size in sizes if size >= NEAR_LIMIT * ITEM_LIMIT]
    if near:
        yield None, {"sampled_items": len(sizes), "near_limit": len(near),
                     "largest_bytes": max(near), "limit_bytes": ITEM_LIMIT}, (
            f"{len(near)} of {len(sizes)} sampled items are within 25 % of 400 KB "
            f"(largest {max(near)} bytes)")


@rule("attribute-name-share", INFO, f"{G} 命名規則 (属性名の長さはアイテムの合計サイズに影響する)",
      "Long attribute names are paid for in every item's storage and units; shorten the "
      "longest if cost matters more than readability here.")
def attribute_name_share(s: Scope) -> Iterator[Hit]:
    items = s.table.items
    if not items or len(items) < MIN_NAME_ITEMS:
        return
    share = measures.name_share(items)
    if share >= NAME_SHARE:
        yield None, {"sampled_items": len(items), "name_bytes_share": round(share, 3)}, (
            f"attribute names are {share:.0%} of the sampled items' bytes")


@rule("ttl-not-epoch-seconds", ERROR, f"{G} データ型 (TTLはNumber型のUnixエポック秒)",
      "Store the TTL attribute as a Number of epoch seconds; DynamoDB ignores strings and "
      "takes milliseconds for dates thousands of years away, so nothing expires.")
def ttl_not_epoch_seconds(s: Scope) -> Iterator[Hit]:
    ttl = s.table.ttl or {}
    name = ttl.get("AttributeName")
    if not ttl.get("Enabled") or not name or not s.table.items:
        return
    found = measures.values(s.table.items, name)
    kinds = [measures.epoch_unit(av) for av in found]
    wrong = {kind: kinds.count(kind) for kind in ("milliseconds", "string", "other")
             if kind in kinds}
    if wrong:
        yield None, {"attribute": name, "sampled_values": len(found), **wrong}, (
            f"{sum(wrong.values())} of {len(found)} sampled values of TTL attribute {name!r} "
            "are not epoch seconds (" + ", ".join(f"{n} {k}" for k, n in wrong.items()) + ")")


# Settings
@rule("deletion-protection-off", WARNING, f"{G} 可用性 (テーブルの誤削除への備え)",
      "Turn deletion protection on (DeletionProtectionEnabled) for every table.")
def deletion_protection_off(s: Scope) -> Iterator[Hit]:
    if not s.table.description.get("DeletionProtectionEnabled"):
        yield None, {"deletion_protection": False}, "deletion protection is off"


@rule("pitr-off", WARNING, f"{G} 可用性 (偶発的データ損失への備え)",
      "Turn point-in-time recovery on, with the full 35 days (work tables may skip it).")
def pitr_off(s: Scope) -> Iterator[Hit]:
    if s.table.pitr is not None and not s.table.pitr.get("Enabled"):
        yield None, {"point_in_time_recovery": False}, "point-in-time recovery is off"


@rule("pitr-short", INFO, f"{G} 可用性 (偶発的データ損失への備え: 期間は35日)",
      "Use 35 days: a shorter period costs the same (unless compliance demands it).")
def pitr_short(s: Scope) -> Iterator[Hit]:
    pitr = s.table.pitr or {}
    days = pitr.get("RecoveryPeriodInDays")
    if pitr.get("Enabled") and isinstance(days, int) and days < PITR_DAYS:
        yield None, {"recovery_period_days": days}, (
            f"point-in-time recovery keeps {days} days, not {PITR_DAYS}")


@rule("stream-view-wide", WARNING, f"{G} DynamoDB Streams (ストリームビュータイプ)",
      "With items this large, use NEW_IMAGE (or KEYS_ONLY) if consumers do not need the "
      "old image: each record carries both.")
def stream_view_wide(s: Scope) -> Iterator[Hit]:
    stream = s.table.description.get("StreamSpecification") or {}
    if (not stream.get("StreamEnabled") or stream.get("StreamViewType") != "NEW_AND_OLD_IMAGES"
            or not s.table.items):
        return
    average = sum(measures.sizes(s.table.items)) / len(s.table.items)
    if average >= LARGE_STREAM_ITEM:
        yield None, {"view_type": "NEW_AND_OLD_IMAGES", "average_item_bytes": round(average),
                     "records_per_6mb_batch": int(LAMBDA_PAYLOAD // (2 * average))}, (
            f"items average {average / 1024:.0f} KB: a 6 MB Lambda batch holds only "
            f"{int(LAMBDA_PAYLOAD // (2 * average))} records with both images")


# Capacity and cost
def _costs(s: Scope) -> dict | None:
    """The table's monthly costs, when its traffic is stated or was watched long enough."""
    usage = s.table.usage
    stated = s.rates.reads_per_second is not None or s.rates.writes_per_second is not None
    if not stated and (usage is None or usage.seconds < MIN_OBSERVED_SECONDS):
        return None
    return monthly(s.table, s.rates, s.region)


@rule("capacity-mode", WARNING, f"{G} 性能 (キャパシティモード); コスト",
      "Switch to on-demand: the provisioned capacity costs more than the traffic would "
      "on demand.")
def capacity_mode(s: Scope) -> Iterator[Hit]:
    costs = _costs(s)
    if costs is None or s.table.billing_mode() != "PROVISIONED":
        return
    current, on_demand = costs["provisioned_declared"], costs["on_demand"]
    if current > 0 and on_demand <= (1 - MODE_SAVING) * current:
        yield None, {"mode": "PROVISIONED", "monthly_current": current,
                     "monthly_on_demand": on_demand,
                     "monthly_saving": round(current - on_demand, 2)}, (
            f"provisioned capacity costs ${current:,.2f} a month; on-demand would cost "
            f"${on_demand:,.2f} for the same traffic")


@rule("provisioned-cheaper", INFO, f"{G} 性能 (キャパシティモード: 原則オンデマンド); コスト",
      "On-demand stays the default; if this traffic is steady and forecast, provisioned "
      "capacity (reserved where it applies) costs the figures shown.")
def provisioned_cheaper(s: Scope) -> Iterator[Hit]:
    costs = _costs(s)
    if costs is None or s.table.billing_mode() == "PROVISIONED":
        return
    on_demand = costs["on_demand"]
    best = costs["provisioned_reserved"] or costs["provisioned"]
    if on_demand > 0 and best <= (1 - MODE_SAVING) * on_demand:
        yield None, {"mode": "PAY_PER_REQUEST", "monthly_current": on_demand,
                     "monthly_provisioned": costs["provisioned"],
                     "monthly_provisioned_reserved": costs["provisioned_reserved"],
                     "monthly_saving": round(on_demand - best, 2)}, (
            f"on-demand costs ${on_demand:,.2f} a month; steady traffic like this costs "
            f"${best:,.2f} provisioned")


@rule("table-class", WARNING, f"{G} コスト (テーブルクラス); {BASICS} DynamoDB Table Classes",
      "Change the table class: the figures compare storage and throughput under both.")
def table_class(s: Scope) -> Iterator[Hit]:
    costs = _costs(s)
    if costs is None or not costs["storage_gb"]:
        return
    current, other = s.table.table_class(), costs["other_class"]
    if costs["other_class_total"] <= (1 - CLASS_SAVING) * costs["total"]:
        yield None, {"table_class": current, "monthly_current": costs["total"],
                     f"monthly_{other.lower()}": costs["other_class_total"],
                     "storage_gb": costs["storage_gb"]}, (
            f"as {other} the table would cost ${costs['other_class_total']:,.2f} a month "
            f"instead of ${costs['total']:,.2f}")


# Security
@rule("multi-tenant-leading-keys", WARNING, f"{G} セキュリティ (アクセス制御: マルチテナント)",
      "Restrict each tenant to its items with a dynamodb:LeadingKeys condition on the "
      "partition key (e.g. ${aws:PrincipalTag/TenantID}).")
def multi_tenant_leading_keys(s: Scope) -> Iterator[Hit]:
    tenant = [name for _, name in _key_attributes(s.table) if TENANT.search(name)]
    if not (s.access_control or s.table.policies) or not tenant:
        return
    if not any("dynamodb:LeadingKeys" in policy for policy in s.table.policies or ()):
        yield None, {"tenant_keys": tenant, "policies_checked": len(s.table.policies or ())}, (
            f"the table is keyed by tenant ({', '.join(tenant)}) but no policy limits "
            "dynamodb:LeadingKeys")
