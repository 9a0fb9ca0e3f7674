"""Injected faults (docs/admin.md, "Fault injection"): rules that make chosen requests
fail as DynamoDB's requests fail in production — throttled, refused with a 500 or 503,
cancelled by a conflict, slowed, cut off, or half done (a batch's unprocessed items) —
so that an application's retries and error paths can be tested.

A rule matches requests by operation, region, table, index and partition key prefix; it fires
on every Nth match or with a probability (its own seeded generator: a rule with a seed
fires on the same requests every run), for a number of firings and/or a time on okura's
clock, and is dropped once spent. The server asks `before` ahead of the handler (only
when `rules` is not empty: the one test every request pays) and the batch operations
ask `unprocessed_writes` / `unprocessed_keys` which of their items to leave undone.
Rules are this node's own: with PostgreSQL each node has its own.
"""
from __future__ import annotations

import asyncio
import logging
import math
import random
from typing import TYPE_CHECKING, Any, Callable

from okura import arns, errors
from okura.core import features, table_lookup
from okura.core.metrics import Metrics

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.context import Context
    from okura.core.database import Database

log = logging.getLogger("okura.faults")


class FaultError(ValueError):
    """A rule okura cannot take: its one-line explanation."""


class DropConnection(BaseException):
    """Raised out of a request's dispatch to end its connection without a reply. A
    BaseException, so that dispatch's catch-all (which turns bugs into 500s) lets it
    through to the HTTP layer."""


def service_unavailable() -> errors.DynamoError:
    # DynamoDB's developer guide lists ServiceUnavailable (HTTP 503, retryable) without
    # its namespace or text: the message is the AWS common errors page's (unverified).
    return errors.DynamoError("com.amazon.coral.service#ServiceUnavailable",
                              "The request has failed due to a temporary failure of the server.",
                              status=503)


# ThrottlingReason's reason is Table|Index + Read|Write + one of these (API_ThrottlingReason)
_THROTTLE_CAUSES = ("ProvisionedThroughputExceeded", "AccountLimitExceeded",
                    "KeyRangeThroughputExceeded", "MaxOnDemandThroughputExceeded")
# throttling error -> (its factory, the cause it names unless the rule says another)
_THROTTLES: dict[str, tuple[Callable[[list[dict]], errors.DynamoError], str]] = {
    "ProvisionedThroughputExceededException": (errors.provisioned_throughput_exceeded,
                                               "ProvisionedThroughputExceeded"),
    "ThrottlingException": (errors.throttling, "KeyRangeThroughputExceeded"),
    "RequestLimitExceeded": (errors.request_limit_exceeded, "AccountLimitExceeded"),
}
_OTHER_ERRORS = ("InternalServerError", "ServiceUnavailable", "TransactionConflict")
ERRORS = (*_THROTTLES, *_OTHER_ERRORS)
_WRITES = frozenset(("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem",
                     "TransactWriteItems"))
_TRANSACTIONS = frozenset(("TransactWriteItems", "TransactGetItems", "ExecuteTransaction"))
_BATCHES = frozenset(("BatchWriteItem", "BatchGetItem"))
_TRANSACT_ACTIONS = ("Put", "Update", "Delete", "ConditionCheck", "Get")
_CONFLICT_REASON = {"Code": "TransactionConflict",
                    "Message": "Transaction is ongoing for the item"}  # users' reports
_FIELDS = frozenset(("operation", "region", "table", "index", "key_prefix", "error", "reason",
                     "unprocessed", "latency", "drop_connection", "probability", "every",
                     "count", "duration", "seed"))

# What a request addresses: (table name or ARN, index name or None, key or item or None)
Target = tuple[str, "str | None", "dict | None"]


def _text(spec: dict, name: str) -> str | None:
    value = spec.get(name)
    if value is not None and (type(value) is not str or not value):
        raise FaultError(f'"{name}" must be a non-empty string')
    return value


def _number(spec: dict, name: str, low: float, high: float = math.inf,
            whole: bool = False) -> Any:
    value = spec.get(name)
    if value is None:
        return None
    kinds: tuple[type, ...] = (int,) if whole else (int, float)
    if type(value) not in kinds or not low <= value <= high:
        kind = "a whole number" if whole else "a number"
        raise FaultError(f'"{name}" must be {kind} from {low:g}'
                         + ("" if high == math.inf else f" to {high:g}"))
    return value


class FaultRule:
    """One rule and what it has done so far."""

    def __init__(self, rule_id: int, spec: object, now: float,
                 operations: frozenset[str] = frozenset()) -> None:
        if type(spec) is not dict:
            raise FaultError("a rule must be a JSON object")
        unknown = sorted(set(spec) - _FIELDS)
        if unknown:
            raise FaultError(f"unknown rule field {unknown[0]!r}")
        self.id = rule_id
        self.spec = spec
        self.operation = _text(spec, "operation")
        if operations and self.operation is not None and self.operation not in operations:
            raise FaultError(f"no operation {self.operation!r}")
        self.region = _text(spec, "region")  # a region's outage: every request signed for it
        self.table = _text(spec, "table")
        self.index = _text(spec, "index")
        self.key_prefix = _text(spec, "key_prefix")
        self.error = _text(spec, "error")
        if self.error is not None and self.error not in ERRORS:
            raise FaultError(f'"error" must be one of {", ".join(ERRORS)}')
        self.reason = _text(spec, "reason")
        if self.reason is not None and (self.error not in _THROTTLES
                                        or self.reason not in _THROTTLE_CAUSES):
            raise FaultError(f'"reason" goes with a throttling error and is one of '
                             f'{", ".join(_THROTTLE_CAUSES)}')
        self.unprocessed = _number(spec, "unprocessed", 0.0, 1.0)
        if self.unprocessed == 0:
            raise FaultError('"unprocessed" must be a fraction above 0, up to 1')
        self.latency = _number(spec, "latency", 0.0, 300.0)
        drop = spec.get("drop_connection", False)
        if type(drop) is not bool:
            raise FaultError('"drop_connection" must be true or false')
        self.drop = drop
        kinds = sum((self.error is not None, self.unprocessed is not None, self.drop))
        if kinds > 1 or (kinds == 0 and self.latency is None):
            raise FaultError('a rule injects one of "error", "unprocessed" or '
                             '"drop_connection", and may add "latency"')
        if self.unprocessed is not None and self.operation not in _BATCHES:
            raise FaultError('"unprocessed" needs "operation" BatchWriteItem or BatchGetItem')
        self.probability = _number(spec, "probability", 0.0, 1.0)
        self.every = _number(spec, "every", 1, whole=True)
        if self.probability is not None and self.every is not None:
            raise FaultError('a rule fires by "probability" or "every", not both')
        self.count = _number(spec, "count", 1, whole=True)
        duration = _number(spec, "duration", 0.0)
        self.expires = None if duration is None else now + duration
        seed = spec.get("seed")
        if seed is not None and type(seed) is not int:
            raise FaultError('"seed" must be a whole number')
        self.random = random.Random(seed)
        self.matched = 0  # requests it matched
        self.fired = 0  # faults it injected

    def describe(self) -> dict:
        return {"id": self.id, **self.spec, "matched": self.matched, "fired": self.fired}

    def spent(self, now: float) -> bool:
        return ((self.count is not None and self.fired >= self.count)
                or (self.expires is not None and now >= self.expires))

    def addresses(self, table: str, index: str | None) -> bool:
        """Whether a request's table (name or ARN) and index are this rule's."""
        if self.table is not None and not arns.names_table(table, self.table):
            return False
        return self.index is None or index == self.index

    def keyed(self, key: dict | None, table: Table | None) -> bool:
        """Whether a key (or item) has this rule's partition key prefix."""
        if self.key_prefix is None:
            return True
        if table is None or type(key) is not dict:
            return False
        value = key.get(table.hash_key)
        if type(value) is not dict or len(value) != 1:
            return False
        text = next(iter(value.values()))
        return type(text) is str and text.startswith(self.key_prefix)

    def fires(self) -> bool:
        """Count one more match; whether the rule fires on it."""
        self.matched += 1
        if self.probability is not None:
            hit = self.random.random() < self.probability
        else:
            hit = self.matched % (self.every or 1) == 0
        if hit:
            self.fired += 1
        return hit


def request_targets(body: dict) -> list[Target]:
    """The tables (and keys) a request body names, read leniently: a malformed body
    names none here, and its handler reports it."""
    name = body.get("TableName")
    if type(name) is str:
        key = body.get("Key", body.get("Item"))
        return [(name, body.get("IndexName"), key if type(key) is dict else None)]
    found: list[Target] = []
    requested = body.get("RequestItems")
    if type(requested) is dict:
        for name, wanted in requested.items():
            if type(wanted) is list:  # BatchWriteItem's write requests
                for write in wanted:
                    request = type(write) is dict and (
                        write.get("PutRequest") or write.get("DeleteRequest"))
                    key = request.get("Item", request.get("Key")) if type(
                        request) is dict else None
                    found.append((name, None, key if type(key) is dict else None))
            elif type(wanted) is dict and type(wanted.get("Keys")) is list:  # BatchGetItem's
                found.extend((name, None, key if type(key) is dict else None)
                             for key in wanted["Keys"])
    actions = body.get("TransactItems")
    if type(actions) is list:
        for action in actions:
            inner = next((action[kind] for kind in _TRANSACT_ACTIONS
                          if type(action) is dict and type(action.get(kind)) is dict), None)
            if inner is not None and type(inner.get("TableName")) is str:
                key = inner.get("Key", inner.get("Item"))
                found.append((inner["TableName"], None, key if type(key) is dict else None))
            else:
                found.append(("", None, None))  # keeps the action's place
    return found


@features.register
class Faults(features.Feature):
    """This node's rules."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.clock = db.clock
        # Changed in place only: the server holds this very list for its one test.
        self.rules: list[FaultRule] = []
        self.last_id = 0
        # The operations a rule may name (the server's routes; empty: any name)
        self.operations: frozenset[str] = frozenset()

    def add(self, specs: object) -> list[FaultRule]:
        """Add one rule (a JSON object) or several (a list); FaultError names the first
        bad one, and then none is added."""
        listed = specs if type(specs) is list else [specs]
        now = self.clock.now()
        made = []
        for offset, spec in enumerate(listed):
            try:
                made.append(FaultRule(self.last_id + offset + 1, spec, now, self.operations))
            except FaultError as error:
                raise FaultError(f"rule {offset + 1}: {error}" if len(listed) > 1
                                 else str(error)) from None
        self.last_id += len(made)
        self.rules.extend(made)
        return made

    def clear(self) -> int:
        cleared = len(self.rules)
        del self.rules[:]
        return cleared

    def describe(self) -> list[dict]:
        self._drop_spent()
        return [rule.describe() for rule in self.rules]

    def _drop_spent(self) -> None:
        now = self.clock.now()
        self.rules[:] = [rule for rule in self.rules if not rule.spent(now)]

    def _matching(self, ctx: Context, targets: list[Target], tables: dict,
                  unprocessed: bool) -> list[tuple[FaultRule, list[int]]]:
        """The rules this request matches that fire, each with the positions of the
        targets it matched."""
        firing = []
        now = self.clock.now()
        for rule in self.rules:
            if (rule.unprocessed is not None) != unprocessed or rule.spent(now) or (
                    rule.operation is not None and rule.operation != ctx.operation) or (
                    rule.region is not None and rule.region != ctx.region):
                continue
            if rule.table is None and rule.index is None and rule.key_prefix is None:
                positions = list(range(len(targets)))
            else:
                positions = [at for at, (name, index, key) in enumerate(targets)
                             if rule.addresses(name, index)
                             and rule.keyed(key, tables.get(name))]
                if not positions:
                    continue
            if rule.fires():
                firing.append((rule, positions))
        self._drop_spent()
        return firing

    async def _tables(self, ctx: Context, targets: list[Target]) -> dict[str, Table]:
        """The tables of the targets, by the name the request gives, for the rules that
        match key prefixes (which need the partition key's name)."""
        if not any(rule.key_prefix is not None for rule in self.rules):
            return {}
        found = {}
        for name in {name for name, _, _ in targets if name}:
            try:
                table = await table_lookup.table_or_none(ctx, name)
            except errors.DynamoError:
                continue
            if table is not None:
                found[name] = table
        return found

    async def before(self, ctx: Context, body: dict) -> None:
        """Before a request's handler: wait, raise the injected error, or end the
        connection, as the first firing rules say."""
        targets = request_targets(body)
        firing = self._matching(ctx, targets, await self._tables(ctx, targets), False)
        for rule, positions in firing:
            table = targets[positions[0]][0] if positions else ""
            if rule.latency:
                self._note(ctx, rule, "Latency", table)
                await asyncio.sleep(rule.latency)
            if rule.drop:
                self._note(ctx, rule, "DropConnection", table)
                await asyncio.sleep(0)  # out of the first eager run: the reply is a task's
                raise DropConnection()
            if rule.error is not None:
                self._note(ctx, rule, rule.error, table)
                if rule.error in _THROTTLES and positions:  # for Contributor Insights
                    ctx.throttled = await self._throttled(ctx, targets[positions[0]])
                raise self._error(ctx, rule, targets, positions)

    @staticmethod
    async def _throttled(ctx: Context, target: Target) -> tuple | None:
        """What an injected throttle throttled, as the throttling gate notes it:
        (table, index or None, partition key bytes or None)."""
        name, index_name, key = target
        try:
            table = await table_lookup.table_or_none(ctx, name)
        except errors.DynamoError:
            return None
        if table is None:
            return None
        index = next((i for i in table.indexes if i.name == index_name), None)
        hk = None
        if index is None and key is not None:
            try:
                hk = table.locate(table.key_of(key))[0]
            except (KeyError, TypeError, ValueError, errors.DynamoError):
                pass  # a malformed key: its handler would have refused it
        return table, index, hk

    def _error(self, ctx: Context, rule: FaultRule, targets: list[Target],
               positions: list[int]) -> errors.DynamoError:
        name = rule.error
        if name == "InternalServerError":
            return errors.internal_server_error()
        if name == "ServiceUnavailable":
            return service_unavailable()
        if name == "TransactionConflict":
            if ctx.operation not in _TRANSACTIONS:
                return errors.transaction_conflict()
            statements = ctx.operation == "ExecuteTransaction"
            actions = len(targets) if not statements else 0
            conflicted = set(positions)
            return errors.transaction_canceled([
                _CONFLICT_REASON if at in conflicted or statements else {"Code": "None"}
                for at in range(actions)] or [_CONFLICT_REASON])
        factory, cause = _THROTTLES[name or ""]
        reasons = []
        if positions and targets[positions[0]][0]:
            table, index, _ = targets[positions[0]]
            resource = arns.of_member(ctx.region, ctx.account, table)
            if index is not None:
                resource = arns.index(resource, index)
            kind = "Write" if ctx.operation in _WRITES else "Read"
            reasons.append({"reason": ("Index" if index is not None else "Table") + kind
                            + (rule.reason or cause), "resource": resource})
        return factory(reasons)

    def _note(self, ctx: Context, rule: FaultRule, fault: str, table: str) -> None:
        log.info("fault rule %d injected %s into %s%s", rule.id, fault, ctx.operation,
                 f" on {table}" if table else "")
        counts = self.db.features[Metrics].injected_faults
        key = (ctx.operation, table, fault)
        counts[key] = counts.get(key, 0) + 1

    def _unprocessed(self, ctx: Context, targets: list[Target],
                     tables: dict[str, Table]) -> set[int]:
        """The positions of the batch's items to leave unprocessed."""
        left: set[int] = set()
        for rule, positions in self._matching(ctx, targets, tables, True):
            count = max(1, round(len(positions) * rule.unprocessed))
            chosen = rule.random.sample(positions, min(count, len(positions)))
            self._note(ctx, rule, "UnprocessedItems" if ctx.operation == "BatchWriteItem"
                       else "UnprocessedKeys", targets[chosen[0]][0] if chosen else "")
            left.update(chosen)
        return left

    def unprocessed_writes(self, ctx: Context, body: dict, planned: list) -> tuple[list, dict]:
        """BatchWriteItem: (the planned writes to make, UnprocessedItems). `planned` is in
        request order, one (table, ...) per write request."""
        writes = [(name, write) for name, listed in body["RequestItems"].items()
                  for write in listed]
        targets: list[Target] = [(name, None, table.key_of(item) if item is not None else key)
                   for (name, _), (table, key, item, *_) in zip(writes, planned)]
        left = self._unprocessed(ctx, targets, {
            name: table for (name, _), (table, *_) in zip(writes, planned)})
        unprocessed: dict[str, list] = {}
        for at in sorted(left):
            name, write = writes[at]
            unprocessed.setdefault(name, []).append(write)
        return [plan for at, plan in enumerate(planned) if at not in left], unprocessed

    def unprocessed_keys(self, ctx: Context, plans: list) -> tuple[list, dict]:
        """BatchGetItem: (the plans with only the keys to read, UnprocessedKeys). A plan is
        (name, its KeysAndAttributes, table, ...)."""
        targets: list[Target] = [(name, None, key) for name, wanted, *_ in plans
                                 for key in wanted["Keys"]]
        left = self._unprocessed(ctx, targets, {name: table for name, _, table, *_ in plans})
        kept, unprocessed, at = [], {}, 0
        for name, wanted, *rest in plans:
            keys = wanted["Keys"]
            skipped = [key for offset, key in enumerate(keys) if at + offset in left]
            if skipped:
                unprocessed[name] = dict(wanted, Keys=skipped)
                wanted = dict(wanted, Keys=[key for offset, key in enumerate(keys)
                                            if at + offset not in left])
            at += len(keys)
            kept.append((name, wanted, *rest))
        return kept, unprocessed
