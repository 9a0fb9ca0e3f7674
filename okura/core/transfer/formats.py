"""Items in the formats of DynamoDB's S3 exports and imports (S3DataExport.Output,
S3DataImport.Format in the developer guide), one item a line:

- DYNAMODB_JSON: `{"Item": {...}}`, the item in DynamoDB's wire JSON;
- ION: `$ion_1_0 {Item:{...}}` in Ion text: N as decimal, B as blob, SS/NS/BS as lists
  annotated `$dynamodb_SS` / `$dynamodb_NS` / `$dynamodb_BS`, L as list, M as struct;
- CSV (import only): a header of attribute names, then one item a row.

An incremental export's line is `{"Metadata": {"WriteTimestampMicros": ...}, "Keys":
{...}, "NewImage": {...}, "OldImage": {...}}` in the same two encodings. Decoding
turns a line into a record holding a wire-form item (not yet validated) or raises BadLine.
"""
from __future__ import annotations

import base64
import csv
import gzip
import io
from collections.abc import Mapping
from decimal import Decimal
from typing import Iterator

import orjson
import zstandard
from amazon.ion import simpleion
from amazon.ion.core import IonType
from amazon.ion.simple_types import IonPyBytes, IonPyList, IonPyNull

DYNAMODB_JSON, ION, CSV = "DYNAMODB_JSON", "ION", "CSV"
SET_ANNOTATIONS = {"SS": "$dynamodb_SS", "NS": "$dynamodb_NS", "BS": "$dynamodb_BS"}
_SET_OF_ANNOTATION = {annotation: tag for tag, annotation in SET_ANNOTATIONS.items()}
EXTENSIONS = {DYNAMODB_JSON: ".json.gz", ION: ".ion.gz"}


class BadLine(Exception):
    """A line that is not an item of the import's format."""


# --- writing -------------------------------------------------------------------------

def _ion_value(av: dict):
    (tag, value), = av.items()
    if tag == "S":
        return value
    if tag == "N":
        return Decimal(value)
    if tag == "B":
        return IonPyBytes.from_value(IonType.BLOB, base64.b64decode(value))
    if tag == "BOOL":
        return value
    if tag == "NULL":
        return None
    if tag == "L":
        return [_ion_value(member) for member in value]
    if tag == "M":
        return {name: _ion_value(member) for name, member in value.items()}
    members = [_ion_value({tag[0]: member}) for member in value]  # SS, NS, BS
    return IonPyList.from_value(IonType.LIST, members, annotations=(SET_ANNOTATIONS[tag],))


def _ion_item(item: dict) -> dict:
    return {name: _ion_value(av) for name, av in item.items()}


def item_line(item: dict, fmt: str) -> bytes:
    """A full export's line for one item."""
    if fmt == ION:
        return simpleion.dumps({"Item": _ion_item(item)}, binary=False).encode() + b"\n"
    return orjson.dumps({"Item": item}) + b"\n"


def change_line(micros: int, keys: dict, new: dict | None, old: dict | None,
                fmt: str) -> bytes:
    """An incremental export's line: an item's key, its image at the end of the window
    (absent if deleted) and, for NEW_AND_OLD_IMAGES, at its start (absent if new)."""
    if fmt == ION:
        record: dict = {"Metadata": {"WriteTimestampMicros": micros}, "Keys": _ion_item(keys)}
        if new is not None:
            record["NewImage"] = _ion_item(new)
        if old is not None:
            record["OldImage"] = _ion_item(old)
        return simpleion.dumps(record, binary=False).encode() + b"\n"
    record = {"Metadata": {"WriteTimestampMicros": {"N": str(micros)}}, "Keys": keys}
    if new is not None:
        record["NewImage"] = new
    if old is not None:
        record["OldImage"] = old
    return orjson.dumps(record) + b"\n"


# --- reading ---------------------------------------------------------------------------

def decompress(data: bytes, compression: str) -> bytes:
    try:
        if compression == "GZIP":
            return gzip.decompress(data)
        if compression == "ZSTD":
            # streaming, since a frame need not record its decompressed size
            return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    except (OSError, EOFError, zstandard.ZstdError) as failure:
        raise BadLine(f"The file could not be decompressed as {compression}: {failure}") from None
    return data


def _wire_value(value) -> dict:
    if isinstance(value, IonPyNull) or value is None:
        return {"NULL": True}
    if isinstance(value, bool) or getattr(value, "ion_type", None) == IonType.BOOL:
        return {"BOOL": bool(value)}  # the Ion reader's bools are ints
    if isinstance(value, (int, Decimal)):
        return {"N": str(value)}
    if isinstance(value, float):
        raise BadLine("Ion floats are not DynamoDB numbers; use decimals")
    if isinstance(value, str):
        return {"S": str(value)}
    if isinstance(value, bytes):
        return {"B": base64.b64encode(value).decode()}
    if isinstance(value, Mapping):
        return {"M": {str(name): _wire_value(member) for name, member in value.items()}}
    if isinstance(value, list):
        annotations = [getattr(token, "text", token)
                       for token in getattr(value, "ion_annotations", ())]
        tag = next((_SET_OF_ANNOTATION[a] for a in annotations if a in _SET_OF_ANNOTATION),
                   None)
        if tag is None:
            return {"L": [_wire_value(member) for member in value]}
        return {tag: [next(iter(_wire_value(member).values())) for member in value]}
    raise BadLine(f"Unsupported Ion value: {value!r}")


def _ion_record_of(line: bytes) -> dict:
    try:
        value = simpleion.loads(line.decode("utf-8"))
    except Exception as failure:  # the Ion reader raises several kinds
        raise BadLine(f"Invalid Ion: {failure}") from None
    if not isinstance(value, Mapping) or not isinstance(value.get("Item"), Mapping):
        raise BadLine("Expected an Ion struct with an Item field")
    record: dict = {}
    for name, member in value.items():
        if name in ("Item", "ExpressionAttributeValues") and isinstance(member, Mapping):
            record[name] = {str(key): _wire_value(av) for key, av in member.items()}
        elif isinstance(member, Mapping):
            record[str(name)] = {str(key): str(text) for key, text in member.items()}
        else:
            record[str(name)] = str(member) if isinstance(member, str) else member
    return record


def _json_record_of(line: bytes) -> dict:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as failure:
        raise BadLine(f"Invalid JSON: {failure}") from None
    if not isinstance(value, dict) or not isinstance(value.get("Item"), dict):
        raise BadLine('Expected a JSON object with an "Item" member')
    return value


def lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, line) of the non-blank lines of a JSON or Ion file."""
    for number, line in enumerate(data.split(b"\n"), 1):
        if line.strip():
            yield number, line


def record_of(line: bytes, fmt: str) -> dict:
    """A JSON or Ion line as a record: its "Item" in wire form, and whatever else the line
    holds (a bulk put's condition: ConditionExpression, ExpressionAttributeNames, and
    ExpressionAttributeValues in wire form)."""
    return _ion_record_of(line) if fmt == ION else _json_record_of(line)


def csv_rows(data: bytes, delimiter: str, header: list[str] | None,
             types: dict[str, str]) -> Iterator[tuple[int, dict | BadLine]]:
    """(row number from 1, its item or why it is not one) of a CSV file. Without
    `header` the first row names the columns. Key attributes (`types`: the table's and
    its indexes' attribute definitions) take their defined type, every other value is a
    String; an empty value leaves its attribute out."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as failure:
        yield 1, BadLine(f"The file is not UTF-8: {failure}")
        return
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    names = header
    number = 0
    while True:
        number += 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as failure:
            yield number, BadLine(f"Invalid CSV: {failure}")
            continue
        if not row:
            continue
        if names is None:
            names = row
            continue
        if len(row) > len(names):
            yield number, BadLine(f"The row has {len(row)} values for {len(names)} columns")
            continue
        yield number, {name: {types.get(name, "S"): value}
                       for name, value in zip(names, row) if value != ""}
