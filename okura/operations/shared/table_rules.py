"""What the table operations share: DynamoDB's rules on key schemas, attribute
definitions and billing, and the error for a table that is busy."""
from __future__ import annotations

from okura import errors
from okura.core.catalog import CREATING, UPDATING, Table

# DynamoDB's default account quotas: the table-level and account-level maximum
# of either read or write capacity units (DescribeLimits reports the same).
TABLE_MAX_CAPACITY = 40000
ACCOUNT_MAX_CAPACITY = 80000
PAY_PER_REQUEST, PROVISIONED = "PAY_PER_REQUEST", "PROVISIONED"


def in_use(table: Table, status: str) -> errors.DynamoError:
    """A change to a table that is not ACTIVE (users quote "Table is being created")."""
    doing = {CREATING: "created", UPDATING: "updated"}.get(status, "deleted")
    return errors.resource_in_use(
        f"Attempt to change a resource which is still in use: Table is being {doing}: {table.name}")


def check_key_schema(schema: list[dict], path: str = "keySchema", distinct: bool = True) -> None:
    """A table's or an index's KeySchema (at `path` in the request): HASH first,
    then an optional RANGE of another attribute (`distinct`: checked here; CreateTable
    checks it after the attribute definitions)."""
    if len(schema) > 2:
        # DynamoDB's own model caps the list at 2; botocore's no longer says so.
        shown = ", ".join(f"KeySchemaElement(attributeName={e['AttributeName']}, "
                          f"keyType={e['KeyType']})" for e in schema)
        raise errors.validation(
            f"1 validation error detected: Value '[{shown}]' at '{path}' failed to satisfy "
            "constraint: Member must have length less than or equal to 2")  # unverified
    if schema[0]["KeyType"] != "HASH":
        raise errors.validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    if len(schema) == 2:
        if schema[1]["KeyType"] != "RANGE":
            raise errors.validation(
                "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
        if distinct:
            check_distinct(schema)


def check_distinct(schema: list[dict]) -> None:
    """A HASH and RANGE key of two attributes."""
    if len(schema) == 2 and schema[0]["AttributeName"] == schema[1]["AttributeName"]:
        raise errors.validation("Both the Hash Key and the Range Key element in the KeySchema "
                                "have the same name")  # unverified


def attribute_types(definitions: list[dict]) -> dict[str, str]:
    """AttributeDefinitions as {name: type}, refusing a name defined twice."""
    types: dict[str, str] = {}
    for definition in definitions:
        name = definition["AttributeName"]
        if name in types:
            raise errors.validation(f"Attribute Name is duplicated: {name}")
        types[name] = definition["AttributeType"]
    return types


def check_definitions(types: dict[str, str], table_keys: list[str], index_keys: list[str]) -> None:
    """Every key attribute defined, every definition used by a key. DynamoDB words
    both differently when the table has secondary indexes. Each key element needs a
    definition of its own: one attribute as HASH and RANGE, defined once, has too few."""
    if not index_keys:
        if len(table_keys) > len(types) or any(name not in types for name in table_keys):
            raise errors.validation("Invalid KeySchema: Some index key attribute have no definition")
        if len(types) != len(table_keys):
            raise errors.validation(
                "One or more parameter values were invalid: Number of attributes in KeySchema "
                "does not exactly match number of attributes defined in AttributeDefinitions")
        return
    used = list(dict.fromkeys(table_keys + index_keys))
    if any(name not in types for name in used):
        raise errors.validation(
            "One or more parameter values were invalid: Some index key attributes are not defined "
            f"in AttributeDefinitions. Keys: [{', '.join(used)}], "
            f"AttributeDefinitions: [{', '.join(types)}]")
    if len(types) != len(used):
        raise errors.validation(
            "One or more parameter values were invalid: Some AttributeDefinitions are not used. "
            f"AttributeDefinitions: [{', '.join(types)}], keys used: [{', '.join(used)}]")


def check_capacity(throughput: dict, what: str) -> None:
    """Per-table quota on a ProvisionedThroughput; `what` names the owner in the
    message ("table" or "index")."""
    for member in ("ReadCapacityUnits", "WriteCapacityUnits"):
        if throughput[member] > TABLE_MAX_CAPACITY:
            raise errors.limit_exceeded(
                f"One or more parameter values were invalid: {member} for {what} exceeds the "
                f"maximum allowed value of {TABLE_MAX_CAPACITY}")  # unverified


def on_demand_with_throughput() -> errors.DynamoError:
    return errors.validation(
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
        "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")


def provisioned_without_throughput() -> errors.DynamoError:
    return errors.validation(
        "One or more parameter values were invalid: ReadCapacityUnits and "
        "WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")


def provisioned_summary(throughput: dict | None) -> dict:
    """The ProvisionedThroughput member of a description (zeros under on-demand)."""
    return {"NumberOfDecreasesToday": 0,
            "ReadCapacityUnits": throughput["ReadCapacityUnits"] if throughput else 0,
            "WriteCapacityUnits": throughput["WriteCapacityUnits"] if throughput else 0}
