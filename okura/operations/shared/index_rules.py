"""DynamoDB's rules on the secondary indexes of a CreateTable request, and their
catalog entries."""
from __future__ import annotations

from okura import errors
from okura.operations.shared import table_rules, table_settings
from okura.operations.shared.table_rules import PAY_PER_REQUEST

MAX_GSI = 20
MAX_LSI = 5
MAX_PROJECTED = 100  # NonKeyAttributes over all indexes of a table
MAX_KEY_ATTRIBUTES = 4  # of each key type in a global index's multi-attribute key

_INVALID = "One or more parameter values were invalid: "


def check_projection(projection: dict) -> int:
    """A Projection's rules; returns how many non-key attributes it projects."""
    kind = projection.get("ProjectionType")
    attributes = projection.get("NonKeyAttributes")
    if kind is None:
        raise errors.validation(_INVALID + "Unknown ProjectionType: null")  # unverified
    if kind == "INCLUDE":
        if attributes is None:
            raise errors.validation(
                _INVALID + "ProjectionType is INCLUDE, but NonKeyAttributes is not specified")  # unverified
        if len(set(attributes)) != len(attributes):
            raise errors.validation(_INVALID + "Duplicate NonKeyAttributes in Projection")  # unverified
        return len(attributes)
    if attributes is not None:
        raise errors.validation(
            _INVALID + f"ProjectionType is {kind}, but NonKeyAttributes is specified")  # unverified
    return 0


def check_global_key_schema(schema: list[dict]) -> None:
    """A global index's KeySchema: one to four HASH attributes, then up to four RANGE
    attributes (multi-attribute keys), each attribute once."""
    if schema[0]["KeyType"] != "HASH":
        raise errors.validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    kinds = [element["KeyType"] for element in schema]
    hashes = kinds.count("HASH")
    # DynamoDB's texts, recorded (their order among themselves is okura's)
    if kinds[hashes:] != ["RANGE"] * (len(kinds) - hashes):
        raise errors.validation(_INVALID + "All HASH key attributes must precede RANGE key "
                                           "attributes in the KeySchema")
    for kind, count in (("HASH", hashes), ("RANGE", len(kinds) - hashes)):
        if count > MAX_KEY_ATTRIBUTES:
            raise errors.validation(_INVALID + "The KeySchema exceeds the maximum allowed "
                                               f"number of {kind} key attributes")
    names = [element["AttributeName"] for element in schema]
    if len(set(names)) != len(names):
        if kinds == ["HASH", "RANGE"]:
            table_rules.check_key_schema(schema)  # the classic key's own message
        raise errors.validation("The KeySchema contains multiple key attributes with the same name")


class Declared:
    """The GlobalSecondaryIndexes and LocalSecondaryIndexes of a request, checked."""

    __slots__ = ("globals", "locals")

    def __init__(self, globals_: list[dict] | None, locals_: list[dict] | None):
        self.globals = globals_
        self.locals = locals_

    def all(self) -> list[dict]:
        return (self.locals or []) + (self.globals or [])

    def key_names(self) -> list[str]:
        return [element["AttributeName"] for index in self.all() for element in index["KeySchema"]]

    def documents(self) -> dict:
        """The catalog members for these indexes."""
        out = {}
        if self.locals:
            out["LocalSecondaryIndexes"] = [
                {"IndexName": index["IndexName"], "KeySchema": index["KeySchema"],
                 "Projection": index["Projection"], "IndexSizeBytes": 0, "ItemCount": 0}
                for index in self.locals]
        if self.globals:
            out["GlobalSecondaryIndexes"] = [
                global_document(index, "ACTIVE") for index in self.globals]
        return out

    def check_throughput(self, mode: str, mode_given: bool = True) -> None:
        """Each global index's own throughput against the table's billing mode (as the
        request states it, or not: `mode_given`)."""
        for index in self.globals or ():
            if index.get("OnDemandThroughput") is not None:
                table_settings.on_demand(index["OnDemandThroughput"], mode == PAY_PER_REQUEST,
                                         f"index: {index['IndexName']}")
            throughput = index.get("ProvisionedThroughput")
            if mode == PAY_PER_REQUEST:
                if throughput is not None:
                    raise errors.validation(
                        _INVALID + "ProvisionedThroughput should not be specified for index: "
                        f"{index['IndexName']} when BillingMode is PAY_PER_REQUEST")  # unverified
            elif throughput is None:
                # users' reports: this when BillingMode says PROVISIONED, the other when
                # the table is provisioned because BillingMode is left out
                if not mode_given:
                    raise errors.validation(_INVALID + "ProvisionedThroughput is not specified "
                                            f"for index: {index['IndexName']}")
                raise errors.validation(
                    "No provisioned throughput specified for the global secondary index")
            else:
                table_rules.check_capacity(throughput, "index")


def global_document(index: dict, status: str) -> dict:
    """The catalog entry of a checked global index definition (CreateTable's, or an
    UpdateTable Create action's)."""
    throughput = index.get("ProvisionedThroughput")
    entry = {"IndexName": index["IndexName"], "KeySchema": index["KeySchema"],
             "Projection": index["Projection"], "IndexStatus": status,
             "ProvisionedThroughput": table_rules.provisioned_summary(throughput),
             "WarmThroughput": table_settings.warm(None, index.get("WarmThroughput"), throughput),
             "IndexSizeBytes": 0, "ItemCount": 0}
    if index.get("OnDemandThroughput") is not None:
        entry["OnDemandThroughput"] = table_settings.present(index["OnDemandThroughput"])
    return entry


def declared(body: dict, table_schema: list[dict]) -> Declared:
    """Check the indexes of a CreateTable request against each other and the table."""
    globals_ = body.get("GlobalSecondaryIndexes")
    locals_ = body.get("LocalSecondaryIndexes")
    if locals_ is not None:
        _check_locals(locals_, table_schema)
    if globals_ is not None:
        if not globals_:
            raise errors.validation(_INVALID + "List of GlobalSecondaryIndexes is empty")  # unverified
        if len(globals_) > MAX_GSI:
            raise errors.validation(
                f"GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GSI}")  # unverified
        for index in globals_:
            check_global_key_schema(index["KeySchema"])
    result = Declared(globals_, locals_)
    names: set[str] = set()
    projected = 0
    for index in result.all():
        if index["IndexName"] in names:
            raise errors.validation(_INVALID + f"Duplicate index name: {index['IndexName']}")  # unverified
        names.add(index["IndexName"])
        projected += check_projection(index["Projection"])
    if projected > MAX_PROJECTED:
        raise errors.limit_exceeded(
            "One or more parameter values were invalid: Number of projected attributes in all "
            f"indexes exceeds limit of {MAX_PROJECTED}, number of projected attributes:{projected}")  # unverified
    return result


def _check_locals(locals_: list[dict], table_schema: list[dict]) -> None:
    if not locals_:
        raise errors.validation(_INVALID + "List of LocalSecondaryIndexes is empty")  # unverified
    if len(locals_) > MAX_LSI:
        raise errors.validation(
            f"Cannot have more than {MAX_LSI} local secondary indexes per table")  # unverified
    if len(table_schema) < 2:
        raise errors.validation(_INVALID + "Table KeySchema does not have a range key, which is "
                                "required when specifying a LocalSecondaryIndex")  # unverified
    table_hash = table_schema[0]["AttributeName"]
    for position, index in enumerate(locals_, 1):
        schema = index["KeySchema"]
        table_rules.check_key_schema(schema, f"localSecondaryIndexes.{position}.member.keySchema")
        name = index["IndexName"]
        if len(schema) < 2:
            raise errors.validation(
                _INVALID + f"Index KeySchema does not have a range key for index: {name}")  # unverified
        if schema[0]["AttributeName"] != table_hash:
            raise errors.validation(
                _INVALID + "Index KeySchema does not have the same leading hash key as table "
                f"KeySchema for index: {name}. index hash key: {schema[0]['AttributeName']}, "
                f"table hash key: {table_hash}")  # unverified
