"""Contributor Insights (docs/contributor-insights.md): which keys of a table or global
secondary index are accessed and throttled most.

The setting lives in the table's catalog document, under "ContributorInsights": per
resource ("" for the table, else the index's name) the last action (ENABLE or
DISABLE), the mode, when it changed, when its ENABLING/DISABLING status ends and the
creation time its rule names carry. Every node sharing the catalog sees it.

The counts are this node's: per resource, four bounded heavy-hitter sketches (Apache
DataSketches' frequent-items sketch, a Misra-Gries variant: the heaviest keys with
error bounds, in fixed memory), mirroring DynamoDB's four CloudWatch rules — most
accessed partition keys (PKC) and partition + sort keys (SKC), most throttled
partition keys (PKT) and partition + sort keys (SKT). They are fed after each request
from its ledger (the partition keys it charged), what throttled it, and the keys its
body names (for the sort keys), and only while some table this node holds has
insights on: otherwise the server's one test of `watched` is all a request pays.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import orjson

from okura.core import features
from okura.core.faults import request_targets
from okura.storage import keys

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.context import Context
    from okura.core.database import Database

log = logging.getLogger("okura.insights")
ACCESSED = "ACCESSED_AND_THROTTLED_KEYS"
THROTTLED = "THROTTLED_KEYS"
ENABLE, DISABLE = "ENABLE", "DISABLE"
# A sketch's map holds 2**LG_MAP_SIZE counters (0.75 of them in use): keys with more
# than about 1/48 of a resource's events are always among those kept
LG_MAP_SIZE = 6
TOP = 10  # keys shown per rule
RULES = ("PKC", "SKC", "PKT", "SKT")

# (the table's id, "" or the index's name)
Resource = tuple[int, str]


def states(table: Table) -> dict[str, dict]:
    """The table's settings, per resource ("" the table itself)."""
    return table.doc.get("ContributorInsights", {})


def status(state: dict | None, now: float) -> str:
    if state is None:
        return "DISABLED"
    if state["Action"] == ENABLE:
        return "ENABLING" if now < state["Until"] else "ENABLED"
    return "DISABLING" if now < state["Until"] else "DISABLED"


def _kinds(table: Table, index: str | None, state: dict) -> list[str]:
    """The rules an enabled resource has: the sort key ones only where it has a sort key,
    the accessed ones only in ACCESSED_AND_THROTTLED_KEYS mode."""
    kinds = ["PKC", "PKT"] if state["Mode"] == ACCESSED else ["PKT"]
    if _key_names(table, index)[1]:
        kinds += [kind.replace("PK", "SK") for kind in kinds]
    return kinds


def rule_names(table: Table, index: str | None, state: dict) -> list[str]:
    """The CloudWatch rules' names of an enabled resource: DynamoDBContributorInsights-
    <kind>-<table>[-<index>]-<creation epoch ms> (developer guide)."""
    resource = table.name if index is None else f"{table.name}-{index}"
    return [f"DynamoDBContributorInsights-{kind}-{resource}-{state['Created']}"
            for kind in _kinds(table, index, state)]


def _key_names(table: Table, index: str | None) -> tuple[list[str], list[str]]:
    """(partition key attributes, sort key attributes) of the table or one of its indexes."""
    if index is None:
        return [table.hash_key], [table.range_key] if table.range_key else []
    found = next(i for i in table.indexes if i.name == index)
    return [name for name, _ in found.hash_keys], [name for name, _ in found.range_keys]


def _partition_key(table: Table, index, hk: bytes) -> dict:
    """The user's partition key value(s) of stored partition bytes: the hash prefix,
    then the encoding (a table's), or the terminated encodings (an index's)."""
    encoded = hk[keys.HASH_BYTES:]
    if index is None:
        return {table.hash_key: {table.hash_type: keys.decode(table.hash_type, encoded)}}
    values = {}
    for name, type_ in index.hash_keys:
        part, encoded = keys.split_terminated(encoded)
        values[name] = {type_: keys.decode(type_, part)}
    return values


class Sketches:
    """One resource's four sketches, by rule."""

    __slots__ = ("mode", "rules")

    def __init__(self, mode: str) -> None:
        # imported with the first sketch: datasketches brings numpy (0.24 s and 14 MiB here),
        # which a server without Contributor Insights never needs
        import datasketches
        self.mode = mode
        self.rules = {rule: datasketches.frequent_strings_sketch(LG_MAP_SIZE) for rule in RULES}

    def count(self, rule: str, key: dict) -> None:
        self.rules[rule].update(orjson.dumps(key).decode(), 1)

    def top(self, rule: str) -> list[dict]:
        import datasketches
        items = self.rules[rule].get_frequent_items(
            datasketches.frequent_items_error_type.NO_FALSE_NEGATIVES)
        return [{"Key": orjson.loads(item), "Count": estimate, "MinCount": low}
                for item, estimate, low, _ in items[:TOP]]


@features.register
class Insights(features.Feature):
    def __init__(self, db: Database) -> None:
        super().__init__(db)
        # Tables with insights on for themselves or an index, by id: their latest Table.
        # Changed in place only: the server holds this very dict for its one test.
        self.watched: dict[int, Table] = {}
        self.sketches: dict[Resource, Sketches] = {}

    def notice(self, table: Table) -> None:
        """A table document was loaded or saved: watch it while any of its resources has
        insights on; a resource switched off (or to another mode) starts afresh."""
        on = {name: state["Mode"] for name, state in states(table).items()
              if state["Action"] == ENABLE}
        for resource in [r for r in self.sketches if r[0] == table.id]:
            if on.get(resource[1]) != self.sketches[resource].mode:
                del self.sketches[resource]
        if on:
            self.watched[table.id] = table
        else:
            self.watched.pop(table.id, None)

    def _sketches(self, table: Table, index: str) -> Sketches | None:
        state = states(table).get(index)
        if state is None or state["Action"] != ENABLE:
            return None
        found = self.sketches.get((table.id, index))
        if found is None:
            found = self.sketches[table.id, index] = Sketches(state["Mode"])
        return found

    def observe(self, ctx: Context, body: dict | None) -> None:
        """Count a finished request's keys against the watched resources it touched (its
        reply is decided: a failure here is logged, never the client's)."""
        try:
            self._observe(ctx, body)
        except Exception:
            log.exception("Contributor Insights could not count a %s request", ctx.operation)

    def _observe(self, ctx: Context, body: dict | None) -> None:
        watched = self.watched
        throttled = ctx.throttled
        touched: set[int] = set()
        for table, index, hk, _, _ in ctx.ledger.charges:
            current = watched.get(table.id)
            if current is None or hk is None or (index is not None and not index.is_global):
                continue
            touched.add(table.id)
            sketches = self._sketches(current, "" if index is None else index.name)
            if sketches is not None and sketches.mode == ACCESSED:
                sketches.count("PKC", _partition_key(current, index, hk))
        if throttled is not None:
            table, index, hk = throttled
            current = watched.get(table.id)
            if current is not None and hk is not None:
                touched.add(table.id)
                sketches = self._sketches(current, "" if index is None else index.name)
                if sketches is not None:
                    key = _partition_key(current, index, hk)
                    sketches.count("PKT", key)
                    if sketches.mode == ACCESSED:  # a throttled request is an access too
                        sketches.count("PKC", key)
        if touched and body is not None:
            self._sort_keys(ctx, body, touched)

    def _sort_keys(self, ctx: Context, body: dict, touched: set[int]) -> None:
        """Partition + sort keys, from the keys (and items) the request body names, for
        the table and every index whose whole key an item carries."""
        throttled = ctx.throttled
        by_name: dict[str, Table] = {}
        for tid in touched:
            watched = self.watched[tid]
            by_name[watched.name] = by_name[watched.arn] = watched
        for name, _, key in request_targets(body):
            table = by_name.get(name)
            if table is None or key is None:
                continue
            for index in ("", *(i.name for i in table.indexes if i.is_global)):
                sketches = self._sketches(table, index)
                if sketches is None:
                    continue
                partition, sort = _key_names(table, index or None)
                if not sort or any(attribute not in key for attribute in partition + sort):
                    continue
                both = {attribute: key[attribute] for attribute in partition + sort}
                if throttled is not None and throttled[0].id == table.id and (
                        (throttled[1].name if throttled[1] is not None else "") == index):
                    sketches.count("SKT", both)
                    if sketches.mode == ACCESSED:
                        sketches.count("SKC", both)
                elif sketches.mode == ACCESSED:
                    sketches.count("SKC", both)

    def report(self, table: Table, now: float) -> list[dict]:
        """The table's and its indexes' most accessed and throttled keys, by rule (the
        admin endpoint's resources)."""
        out = []
        for index in ("", *(i.name for i in table.indexes if i.is_global)):
            state = states(table).get(index)
            resource: dict = {"IndexName": index} if index else {}
            resource["ContributorInsightsStatus"] = status(state, now)
            if state is not None and state["Action"] == ENABLE:
                sketches = self.sketches.get((table.id, index))
                resource["ContributorInsightsMode"] = state["Mode"]
                resource["ContributorInsightsRuleList"] = rule_names(table, index or None, state)
                kinds = _kinds(table, index or None, state)
                resource["Rules"] = {kind: [] if sketches is None else sketches.top(kind)
                                     for kind in kinds}
                # every event each rule counted: what a key's share is of
                resource["Totals"] = {kind: 0 if sketches is None
                                      else int(sketches.rules[kind].total_weight)
                                      for kind in kinds}
            out.append(resource)
        return out
