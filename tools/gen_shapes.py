"""Regenerate okura/shapes/model.json from botocore's DynamoDB service models.

The request shapes (members, required, min/max, pattern, enum) come from the
service-2.json files botocore ships, Copyright Amazon.com, Inc. or its
affiliates, licensed under the Apache License 2.0. okura reads only the
compact file this script writes, never botocore, at run time.

Beyond the botocore model the output records what real DynamoDB shows and the
model does not: the order in which it reports members (Java HashMap order of
the member names), enum lists in the order its messages print them, members
that appear only in its toString output, and per-operation differences.

Usage: python tools/gen_shapes.py  (needs botocore installed)
"""
from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import botocore

OUT = Path(__file__).resolve().parent.parent / "okura" / "shapes" / "model.json"
SERVICES = {"dynamodb": "DynamoDB_20120810", "dynamodbstreams": "DynamoDBStreams_20120810"}

# Enum sets in the order real DynamoDB prints them in "Member must satisfy enum
# value set: [...]", taken from recorded responses; other enums keep model order.
ENUM_ORDER = {
    "ReturnValue": ["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"],
    "StreamViewType": ["OLD_IMAGE", "KEYS_ONLY", "NEW_AND_OLD_IMAGES", "NEW_IMAGE"],
    "ScalarAttributeType": ["B", "N", "S"],
    "ConditionalOperator": ["OR", "AND"],
    "ReturnConsumedCapacity": ["INDEXES", "TOTAL", "NONE"],
    "ContributorInsightsAction": ["ENABLE", "DISABLE"],
    "ContributorInsightsMode": ["THROTTLED_KEYS", "ACCESSED_AND_THROTTLED_KEYS"],
    # recorded for Query; Scan shares the shape (unverified there)
    "Select": ["SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"],
}
# Members DynamoDB's own request classes carry beyond the public model; they show
# up as "=null" when a value is rendered in a message (recorded responses).
HIDDEN_MEMBERS = {"KeysAndAttributes": ["workloadProfileName"], "PutRequest": ["workloadProfileName"]}
# Real DescribeTable answers TableName '' with the table-name rules (length 3,
# pattern) alone, so its model minimum of 1 is not reported (recorded response).
# Constraints real DynamoDB checks in the operation itself, with its own message, not
# in the model's validation (recorded responses; okura/operations/ word them):
# "required" makes the member optional to the model.
DROP_CONSTRAINTS = {
    ("DescribeTable", "TableName"): ("min",),
    ("BatchGetItem", "RequestItems"): ("min",),
    ("BatchWriteItem", "RequestItems"): ("min",),
    ("CreateTable", "TableName"): ("required",),
    ("Query", "Limit"): ("min",),
}
# The same for a shape wherever it is used: BatchGetItem's Keys per table.
DROP_SHAPE_CONSTRAINTS = {"KeyList": ("max",)}
# Top-level members that take a table name or an ARN: a name is held to the
# table-name rules after the model's own checks pass, or, in the operations of
# NAME_FIRST, before them, and then a bad name is reported alone (recorded responses).
NAME_OR_ARN = ("TableName",)
NAME_FIRST = ("CreateTable",)

# Java regex constructs that Python's re spells differently.
# (\p{Print} stands outside a character class in the model; the surrogate pair
# range, inside one, means every supplementary code point.)
_JAVA_TO_PY = [
    (r"\p{Print}", r"[\x20-\x7e]"),
    (r"\uD800\uDC00-\uDBFF\uDFFF", r"\U00010000-\U0010ffff"),
]


def python_pattern(pattern: str) -> str:
    for java, py in _JAVA_TO_PY:
        pattern = pattern.replace(java, py)
    re.compile(pattern)
    return pattern


def java_string_hash(text: str) -> int:
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    return h


def hashmap_order(names: list[str]) -> list[str]:
    """Iteration order of a java.util.HashMap filled with `names` in this order."""
    capacity = 16
    while len(names) > capacity * 0.75:
        capacity *= 2

    def bucket(name: str) -> int:
        h = java_string_hash(name)
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(names, key=lambda n: (bucket(n), names.index(n)))


def lower_camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def load(service: str) -> dict:
    root = Path(os.path.dirname(botocore.__file__)) / "data" / service / "2012-08-10"
    with gzip.open(root / "service-2.json.gz") as f:
        return json.load(f)


def convert(name: str, shape: dict) -> dict:
    kind = shape["type"]
    if name == "AttributeValue":
        return {"type": "attributevalue"}
    out: dict = {"type": kind}
    for key in ("min", "max"):
        if key in shape and key not in DROP_SHAPE_CONSTRAINTS.get(name, ()):
            out[key] = shape[key]
    if kind == "string":
        if "pattern" in shape:
            out["pattern"] = shape["pattern"]
            py = python_pattern(shape["pattern"])
            if py != shape["pattern"]:
                out["py_pattern"] = py
        if "enum" in shape:
            enum = ENUM_ORDER.get(name, shape["enum"])
            assert sorted(enum) == sorted(shape["enum"]), name
            out["enum"] = enum
    elif kind == "structure":
        required = set(shape.get("required", ()))
        fields = [lower_camel(m) for m in shape["members"]] + HIDDEN_MEMBERS.get(name, [])
        wire = {lower_camel(m): m for m in shape["members"]}
        out["members"] = [[wire[c], c, shape["members"][wire[c]]["shape"], wire[c] in required]
                          for c in hashmap_order(fields) if c in wire]
        out["fields"] = fields
    elif kind == "list":
        out["member"] = shape["member"]["shape"]
    elif kind == "map":
        out["key"] = shape["key"]["shape"]
        out["value"] = shape["value"]["shape"]
    return out


def reachable(shapes: dict, roots: list[str]) -> list[str]:
    seen: list[str] = []
    stack = list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.append(name)
        shape = shapes[name]
        if name == "AttributeValue":
            continue
        if shape["type"] == "structure":
            stack.extend(m["shape"] for m in shape["members"].values())
        elif shape["type"] == "list":
            stack.append(shape["member"]["shape"])
        elif shape["type"] == "map":
            stack.extend((shape["key"]["shape"], shape["value"]["shape"]))
    return sorted(seen)


def service_model(service: str) -> dict:
    model = load(service)
    shapes = model["shapes"]
    operations = {}
    for op, spec in model["operations"].items():
        shape = spec.get("input", {}).get("shape")
        entry: dict = {"input": shape}
        members = shapes[shape]["members"] if shape else {}
        names = [m for m in NAME_OR_ARN if members.get(m, {}).get("shape") == "TableArn"]
        if names:
            entry["name_or_arn"] = names
            if op in NAME_FIRST:
                entry["name_first"] = True
        drop = {m: keys for (o, m), keys in DROP_CONSTRAINTS.items() if o == op}
        if drop:
            entry["drop"] = drop
        operations[op] = entry
    roots = [e["input"] for e in operations.values() if e["input"]]
    return {"operations": operations,
            "shapes": {n: convert(n, shapes[n]) for n in reachable(shapes, roots)}}


def main() -> None:
    doc = {
        "source": f"botocore {botocore.__version__} data/{{dynamodb,dynamodbstreams}}/2012-08-10/service-2.json"
                  " (Apache-2.0, Amazon.com, Inc.), regenerated by tools/gen_shapes.py",
        "services": {target: service_model(service) for service, target in SERVICES.items()},
    }
    ops = [op for s in doc["services"].values() for op in s["operations"]]
    assert len(ops) == len(set(ops)), "operation names collide across services"
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n")
    print(f"wrote {OUT} ({len(ops)} operations)")


if __name__ == "__main__":
    main()
