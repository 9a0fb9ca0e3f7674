"""The item writes of a transaction, as `items.Change`s: TransactWriteItems'
Put, Update, Delete and ConditionCheck actions, and the PartiQL statements that
ExecuteStatement and ExecuteTransaction run through the same decisions."""
from __future__ import annotations

from typing import NamedTuple

from okura import errors, expressions, shapes
from okura.core import items
from okura.core.catalog import Table
from okura.core import table_lookup
from okura.core.context import Context
from okura.operations.shared.single_item import (check_key_untouched,
                                                 condition_check, write_expressions)
from okura.values import key_rules, sizes, validation

_KINDS = ("ConditionCheck", "Put", "Delete", "Update")
# each kind of action's members, as the request model declares them (its shapes are
# named after the kinds)
_MEMBERS = {kind: shapes.members(kind) for kind in _KINDS}


class Action(NamedTuple):
    """One action of a write transaction; `check` marks a ConditionCheck (it writes
    nothing, but DynamoDB bills it as a write)."""
    change: items.Change
    check: bool = False


class KeyRefused(Exception):
    """An action whose key the table's schema refuses: DynamoDB cancels the transaction
    with a ValidationError reason for it (recorded), not a ValidationException."""

    def __init__(self, error: errors.DynamoError) -> None:
        super().__init__(error.message)
        self.error = error


def position(change: items.Change) -> tuple[int, bytes, bytes]:
    """Where a change lands: two actions on one item share it."""
    return (change.table.id, *change.table.locate(change.key))


def check_unique(actions: list[Action]) -> None:
    seen = set()
    for action in actions:
        where = position(action.change)
        if where in seen:
            raise errors.validation(
                "Transaction request cannot include multiple operations on one item")
        seen.add(where)


def put_change(table: Table, item: dict, condition: object, body: dict,
               size: int | None = None, at: tuple[bytes, bytes] | None = None) -> items.Change:
    """`size` and `at` (its storage key): when the caller has already computed them."""
    def decide(old: dict | None) -> dict | None | items.Unchanged:
        condition_check(condition, body, old)
        return item
    needs_old = condition is not None or body.get("ReturnValues") == "ALL_OLD"
    return items.Change(table, item, decide, needs_old=needs_old, new_size=size, at=at)


def update_change(table: Table, key: dict, upd: expressions.UpdateExpression | None, condition: object,
                  body: dict, must_exist: bool = False,
                  changed: list[expressions.Path] | None = None) -> items.Change:
    """An update as UpdateItem and transactions decide it (the write path checks the new
    item's size as part of the decision, with the message of `too_large`). Without an
    update action an absent item is created with its key alone; with only REMOVEs (or
    legacy DELETEs) it stays absent (issue 39; AttributeValueUpdate's documentation).
    `must_exist` (PartiQL UPDATE) refuses an absent item as a failed condition;
    `changed` collects the updated paths (for ReturnValues UPDATED_OLD/UPDATED_NEW)."""
    def decide(old: dict | None) -> dict | None | items.Unchanged:
        if must_exist and old is None:
            raise errors.conditional_check_failed()
        condition_check(condition, body, old)
        if upd is None:
            return dict(key) if old is None else items.UNCHANGED
        if old is None and not (upd.sets or upd.adds or (upd.deletes and not upd.legacy)):
            return items.UNCHANGED  # removes (or legacy DELETEs) alone: nothing to create
        new, paths = expressions.apply_update(upd, dict(key) if old is None else old,
                                              body.get("ExpressionAttributeValues"))
        if changed is not None:
            changed.extend(paths)
        return new
    return items.Change(table, key, decide, sizes.UPDATE_TOO_LARGE)


def insert_change(table: Table, item: dict) -> items.Change:
    """PartiQL INSERT: never replaces an item."""
    def decide(old: dict | None) -> dict | None | items.Unchanged:
        if old is not None:
            raise errors.duplicate_item()
        return item
    return items.Change(table, item, decide)


def delete_change(table: Table, key: dict, condition: object, body: dict,
                  absent_ok: bool = False) -> items.Change:
    """`absent_ok` (PartiQL DELETE): an absent item is a no-op whatever the condition."""
    def decide(old: dict | None) -> dict | None | items.Unchanged:
        if old is None and absent_ok:
            return items.UNCHANGED
        condition_check(condition, body, old)
        return None if old is not None else items.UNCHANGED
    return items.Change(table, key, decide)


def check_change(table: Table, key: dict, condition: object, body: dict) -> items.Change:
    def decide(old: dict | None) -> dict | None | items.Unchanged:
        condition_check(condition, body, old)
        return items.UNCHANGED
    return items.Change(table, key, decide)


async def from_request(ctx: Context, entry: dict) -> Action:
    """One TransactItems entry, checked as its single-item operation checks it."""
    kinds = [kind for kind in _KINDS if entry.get(kind) is not None]
    if len(kinds) != 1:
        raise errors.validation(
            "TransactItems can only contain one of Check, Put, Update or Delete")  # unverified
    kind = kinds[0]
    # a transaction's actions have no legacy members (Expected, AttributeUpdates, ...):
    # what the request model does not know is no part of the request
    body = {member: value for member, value in entry[kind].items() if member in _MEMBERS[kind]}
    record = body["Item"] if kind == "Put" else body["Key"]
    validation.check_item(record)
    condition, upd = write_expressions(body, "UpdateItem" if kind == "Update" else "PutItem")
    table = await table_lookup.serving_table(ctx, body["TableName"])
    try:
        if kind == "Put":
            key_rules.check_item_keys(record, table.schema)
        else:
            key_rules.check_key(record, table.schema)
    except errors.DynamoError as error:
        raise KeyRefused(error) from None
    if kind == "Put":
        sizes.check_item_size(record)
        return Action(put_change(table, record, condition, body))
    if kind == "Update":
        assert upd is not None  # an Update's UpdateExpression is required (its shape)
        check_key_untouched(table, upd)
        return Action(update_change(table, record, upd, condition, body))
    if kind == "Delete":
        return Action(delete_change(table, record, condition, body))
    return Action(check_change(table, record, condition, body), check=True)
