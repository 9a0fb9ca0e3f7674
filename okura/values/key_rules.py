"""Key attribute rules given a key schema: a list of (attribute_name, type) pairs,
partition key first, types "S", "N" or "B". Values reaching here were checked
by validation.py, so each has exactly one datatype member.
"""
from __future__ import annotations

from okura import errors
from okura.values.sizes import value_size

MAX_PARTITION_KEY_SIZE = 2048
MAX_SORT_KEY_SIZE = 1024
_INVALID = "One or more parameter values were invalid: "
_NOT_VALID = "One or more parameter values are not valid. "
KEY_MISMATCH = "The provided key element does not match the schema"
_KIND = {"S": "string", "B": "binary"}

Schema = list[tuple[str, str]]


def type_of(av: dict) -> str:
    """The datatype tag of a checked AttributeValue."""
    return next(iter(av))


def _empty(av: dict) -> str | None:
    """DynamoDB's complaint about an empty key string or binary, without its context."""
    tag = type_of(av)
    if tag in _KIND and not av[tag]:
        # binary wording unverified
        return f"The AttributeValue for a key attribute cannot contain an empty {_KIND[tag]} value."
    return None


def check_not_empty(name: str, av: dict) -> None:
    """A key value is never an empty string or binary (a Query's key condition too)."""
    empty = _empty(av)
    if empty:
        raise errors.validation(f"{_NOT_VALID}{empty} Key: {name}")


def _check_key_value(name: str, av: dict, position: int) -> None:
    """Rules every key value obeys, once its type matches the schema: not empty, not too large."""
    check_not_empty(name, av)
    size = value_size(av)
    if position == 0 and size > MAX_PARTITION_KEY_SIZE:
        raise errors.validation(  # sic: no space before 2048
            f"{_INVALID}Size of hashkey has exceeded the maximum size limit of{MAX_PARTITION_KEY_SIZE} bytes")
    if position == 1 and size > MAX_SORT_KEY_SIZE:
        raise errors.validation(
            f"{_INVALID}Aggregated size of all range keys has exceeded the size limit of {MAX_SORT_KEY_SIZE} bytes")


def check_item_keys(item: dict, schema: Schema) -> None:
    """Key attributes of a whole item (PutItem Item, a BatchWriteItem PutRequest, ...)."""
    for position, (name, type_) in enumerate(schema):
        av = item.get(name)
        if av is None:
            raise errors.validation(f"{_INVALID}Missing the key {name} in the item")
        actual = type_of(av)
        if actual != type_:
            raise errors.validation(f"{_INVALID}Type mismatch for key {name} expected: {type_} actual: {actual}")
        _check_key_value(name, av, position)


def check_key(key: dict, schema: Schema) -> None:
    """A Key parameter (GetItem, DeleteItem, UpdateItem, ...): exactly the schema's attributes
    with the schema's types."""
    if len(key) != len(schema) or any(name not in key or type_of(key[name]) != type_ for name, type_ in schema):
        raise errors.validation(KEY_MISMATCH)
    for position, (name, _) in enumerate(schema):
        _check_key_value(name, key[name], position)


def check_index_keys(item: dict, index_name: str, schema: Schema) -> None:
    """Index key attributes an item carries (absent ones just keep it out of the index)."""
    for position, (name, type_) in enumerate(schema):
        av = item.get(name)
        if av is None:
            continue
        actual = type_of(av)
        if actual != type_:
            raise errors.validation(  # unverified
                f"{_INVALID}Type mismatch for Index Key {name} Expected: {type_} Actual: {actual} "
                f"IndexName: {index_name}")
        empty = _empty(av)
        if empty:
            raise errors.validation(
                f"{_NOT_VALID}A value specified for a secondary index key is not supported. {empty} "
                f"IndexName: {index_name}, IndexKey: {name}")
        size = value_size(av)
        limit = MAX_PARTITION_KEY_SIZE if position == 0 else MAX_SORT_KEY_SIZE
        if size > limit:  # the sort key's limit here is unverified
            raise errors.validation(
                f"{_INVALID}Size limit exceeded for Index Key {name} Actual Size: {size} bytes "
                f"Max Size: {limit} bytes IndexName: {index_name}")


def key_of(item: dict, schema: Schema) -> dict:
    """The key attributes of an item that passed check_item_keys."""
    return {name: item[name] for name, _ in schema}
