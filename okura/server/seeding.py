"""Test data (`okura serve --seed FILE`, POST /okura/seed; docs/admin.md): tables and
their items from a JSON or YAML description, made through CreateTable and PutItem, so
every rule and message of those operations applies.

    region: us-east-1            # optional (default us-east-1)
    tables:
      - TableName: users         # CreateTable's request; BillingMode defaults to
        KeySchema: [...]         # PAY_PER_REQUEST when no ProvisionedThroughput is given
        AttributeDefinitions: [...]
        Items:                   # plain values: strings, numbers, booleans, null, lists, maps
          - {pk: u1, name: Ann, age: 31}

A table that already exists (a data directory seeded at an earlier start) is left as it
is, items included."""
from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from okura import errors
from okura.config import StartupError
from okura.core.context import Context
from okura.core.database import Database
from okura.server.router import ROUTES, perform

# (through the gate, as a client's requests)
_CREATE_TABLE = ROUTES["DynamoDB_20120810.CreateTable"]
_PUT_ITEM = ROUTES["DynamoDB_20120810.PutItem"]

DEFAULT_REGION = "us-east-1"


class SeedError(ValueError):
    """A description okura cannot load: its one-line reason."""


def _typed(value: Any) -> Any:
    """Plain values as DynamoDB's serializer takes them (numbers as Decimal)."""
    if isinstance(value, float):
        return Decimal(str(value))
    if isinstance(value, list):
        return [_typed(member) for member in value]
    if isinstance(value, dict):
        return {name: _typed(member) for name, member in value.items()}
    return value


def _item(plain: Any, table: str) -> dict:
    # here, not at the top: boto3 takes ~0.3 s to import, and only seeds need it
    from boto3.dynamodb.types import TypeSerializer

    if not isinstance(plain, dict):
        raise SeedError(f"table {table}: each item must be a map of attribute names to "
                        f"values, not {plain!r}")
    serialize = TypeSerializer().serialize
    try:
        return {name: serialize(_typed(value)) for name, value in plain.items()}
    except TypeError as error:
        raise SeedError(f"table {table}: {error}") from None


async def load(db: Database, description: Any) -> dict:
    """Create the description's tables (those that do not exist yet) and put their items;
    {"created": [names], "existing": [names], "items": count}."""
    if not isinstance(description, dict) or not isinstance(description.get("tables"), list):
        raise SeedError('a seed description is a map with a list "tables"')
    region = description.get("region", DEFAULT_REGION)
    if not isinstance(region, str):
        raise SeedError('"region" must be a string')
    done: dict = {"created": [], "existing": [], "items": 0}
    for request in description["tables"]:
        if not isinstance(request, dict):
            raise SeedError(f"each table is a map (CreateTable's request), not {request!r}")
        request = dict(request)
        name = str(request.get("TableName"))
        plain_items = request.pop("Items", [])
        if not isinstance(plain_items, list):
            raise SeedError(f"table {name}: Items must be a list")
        if "BillingMode" not in request and "ProvisionedThroughput" not in request:
            request["BillingMode"] = "PAY_PER_REQUEST"
        try:
            await perform(_CREATE_TABLE, Context(db, "CreateTable", region, "seed"), request)
        except errors.DynamoError as error:
            if error.name != "ResourceInUseException":
                raise SeedError(f"table {name}: {error.name}: {error.message}") from None
            done["existing"].append(name)
            continue
        done["created"].append(name)
        for plain in plain_items:
            try:
                await perform(_PUT_ITEM, Context(db, "PutItem", region, "seed"),
                              {"TableName": name, "Item": _item(plain, name)})
            except errors.DynamoError as error:
                raise SeedError(f"table {name}: item {plain!r}: {error.name}: "
                                f"{error.message}") from None
        done["items"] += len(plain_items)
    return done


def read(path: str) -> Any:
    """A seed file's description: YAML for .yaml/.yml, else JSON."""
    try:
        with open(path, "rb") as handle:
            text = handle.read()
    except OSError as error:
        raise SeedError(error.strerror or str(error)) from None
    if path.endswith((".yaml", ".yml")):
        import yaml  # only seeds in YAML need it

        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise SeedError(" ".join(str(error).split())) from None
    try:
        return json.loads(text, parse_float=Decimal)
    except ValueError as error:
        raise SeedError(f"not JSON: {error}") from None


async def load_file(db: Database, path: str) -> dict:
    try:
        return await load(db, read(path))
    except SeedError as error:
        raise StartupError(f"seed file {path}: {error}") from None
