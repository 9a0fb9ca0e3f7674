"""ImportTable, DescribeImport, ListImports: CSV, DynamoDB JSON and Ion, uncompressed,
GZIP or ZSTD, from a local bucket directory; bad lines counted and logged; an export
imported back into an identical table; DynamoDB's errors."""
from __future__ import annotations

import gzip
import json

import pytest
import zstandard

from conftest import unique_name
from items_common import fails
from transfer_common import (BUCKET, own_database, pitr, s3_server,  # noqa: F401
                             wait_export, wait_import)

KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                      {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                 {"AttributeName": "sk", "AttributeType": "N"}],
        "BillingMode": "PAY_PER_REQUEST"}


@pytest.fixture(scope="module")
def ddb(s3_server):
    return s3_server[0].client()


def _put(root, key: str, data: bytes) -> None:
    path = root / "s3" / BUCKET / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _import(ddb, prefix: str, fmt: str, compression: str = "NONE", name: str | None = None,
            parameters: dict | None = None, **extra) -> dict:
    started = ddb.import_table(
        S3BucketSource={"S3Bucket": BUCKET, "S3KeyPrefix": prefix}, InputFormat=fmt,
        InputCompressionType=compression,
        TableCreationParameters={"TableName": name or unique_name(), **(parameters or KEYS)},
        **extra)["ImportTableDescription"]
    assert started["ImportStatus"] == "IN_PROGRESS"
    return wait_import(ddb, started["ImportArn"])


def _scan(ddb, table: str) -> list[dict]:
    found = ddb.scan(TableName=table)["Items"]
    return sorted(found, key=lambda item: (item["pk"]["S"], item.get("sk", {}).get("N", "")))


def test_dynamodb_json_with_bad_lines_counts_and_logs_them(ddb, s3_server):
    root = s3_server[1]
    prefix = unique_name("json") + "/"
    good = [{"pk": {"S": "a"}, "sk": {"N": "1"}, "v": {"SS": ["x"]}},
            {"pk": {"S": "a"}, "sk": {"N": "2.50"}}]
    lines = [json.dumps({"Item": good[0]}), "not json", "",
             json.dumps({"Item": {"pk": {"S": "b"}}}),                     # no sort key
             json.dumps({"Item": {"pk": {"N": "1"}, "sk": {"N": "1"}}}),   # wrong key type
             json.dumps({"Item": good[1]}), json.dumps({"Nope": {}})]
    _put(root, prefix + "part-1.json", "\n".join(lines).encode())
    done = _import(ddb, prefix, "DYNAMODB_JSON")
    assert done["ImportStatus"] == "COMPLETED"
    assert (done["ProcessedItemCount"], done["ImportedItemCount"], done["ErrorCount"]) == (6, 2, 4)
    assert done["ProcessedSizeBytes"] == len("\n".join(lines))
    assert done["CloudWatchLogGroupArn"].startswith("arn:aws:logs:us-east-1:")
    table = done["TableArn"].rpartition("/")[2]
    assert ddb.describe_table(TableName=table)["Table"]["TableStatus"] == "ACTIVE"
    assert _scan(ddb, table) == [good[0], {"pk": {"S": "a"}, "sk": {"N": "2.5"}}]
    log = root / "errors" / (done["ImportArn"].rpartition("/")[2] + ".log")
    logged = [json.loads(line) for line in log.read_bytes().splitlines()]
    assert [entry["line"] for entry in logged] == [2, 4, 5, 7]
    assert {entry["s3Key"] for entry in logged} == {prefix + "part-1.json"}
    assert logged[1]["message"] == (
        "One or more parameter values were invalid: Missing the key sk in the item")


def test_csv_with_header_row_and_with_header_list(ddb, s3_server):
    root = s3_server[1]
    prefix = unique_name("csv") + "/"
    _put(root, prefix + "a.csv", b'pk,sk,city,note\nx,1,Oslo,"a, b"\ny,2.0,,plain\n')
    done = _import(ddb, prefix, "CSV")
    assert (done["ImportStatus"], done["ImportedItemCount"], done["ErrorCount"]) == (
        "COMPLETED", 2, 0)
    assert _scan(ddb, done["TableArn"].rpartition("/")[2]) == [
        {"pk": {"S": "x"}, "sk": {"N": "1"}, "city": {"S": "Oslo"}, "note": {"S": "a, b"}},
        {"pk": {"S": "y"}, "sk": {"N": "2"}, "note": {"S": "plain"}}]
    prefix = unique_name("csv") + "/"
    _put(root, prefix + "b.csv", b"z|7|1\nw|x|2\n")
    done = _import(ddb, prefix, "CSV", InputFormatOptions={
        "Csv": {"Delimiter": "|", "HeaderList": ["pk", "sk", "count"]}})
    assert (done["ImportedItemCount"], done["ErrorCount"]) == (1, 1)  # 'x' is no number
    assert _scan(ddb, done["TableArn"].rpartition("/")[2]) == [
        {"pk": {"S": "z"}, "sk": {"N": "7"}, "count": {"S": "1"}}]


def test_compressed_and_ion_sources(ddb, s3_server):
    root = s3_server[1]
    item = {"pk": {"S": "k"}, "sk": {"N": "5"}}
    prefix = unique_name("zstd") + "/"
    _put(root, prefix + "x.json.zst", zstandard.ZstdCompressor().compress(
        json.dumps({"Item": item}).encode()))
    done = _import(ddb, prefix, "DYNAMODB_JSON", "ZSTD")
    assert (done["ImportStatus"], done["ImportedItemCount"]) == ("COMPLETED", 1)
    prefix = unique_name("ion") + "/"
    # the documented Ion export line, with its decimals, a set and a blob
    _put(root, prefix + "x.ion.gz", gzip.compress(
        b'$ion_1_0 {Item:{pk:"k",sk:6d2,Authors:$dynamodb_SS::["A1","A2"],Id:103.,'
        b'Blob:{{AAE=}},InPublication:false,Nothing:null,Tags:["t",1]}}\n'))
    done = _import(ddb, prefix, "ION", "GZIP")
    assert (done["ImportStatus"], done["ImportedItemCount"], done["ErrorCount"]) == (
        "COMPLETED", 1, 0)
    assert _scan(ddb, done["TableArn"].rpartition("/")[2]) == [{
        "pk": {"S": "k"}, "sk": {"N": "600"}, "Authors": {"SS": ["A1", "A2"]},
        "Id": {"N": "103"}, "Blob": {"B": b"\0\1"}, "InPublication": {"BOOL": False},
        "Nothing": {"NULL": True}, "Tags": {"L": [{"S": "t"}, {"N": "1"}]}}]
    prefix = unique_name("bad") + "/"
    _put(root, prefix + "x.gz", b"not gzip at all")
    done = _import(ddb, prefix, "DYNAMODB_JSON", "GZIP")
    assert (done["ImportStatus"], done["ErrorCount"], done["ImportedItemCount"]) == (
        "COMPLETED", 1, 0)


def test_aws_documented_export_file_imports(ddb, s3_server):
    """The item of the developer guide's DynamoDB JSON export example."""
    root = s3_server[1]
    prefix = unique_name("aws") + "/AWSDynamoDB/01234567890123-a1b2c3d4/data/"
    item = {"Authors": {"SS": ["Author1", "Author2"]}, "Dimensions": {"S": "8.5 x 11.0 x 1.5"},
            "ISBN": {"S": "333-3333333333"}, "Id": {"N": "103"},
            "InPublication": {"BOOL": False}, "PageCount": {"N": "600"},
            "Price": {"N": "2000"}, "ProductCategory": {"S": "Book"},
            "Title": {"S": "Book 103 Title"}}
    _put(root, prefix + "bafybeiczss3yxay3o4abnabbb.json.gz",
         gzip.compress(json.dumps({"Item": item}).encode() + b"\n"))
    done = _import(ddb, prefix, "DYNAMODB_JSON", "GZIP", parameters={
        "KeySchema": [{"AttributeName": "Id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "Id", "AttributeType": "N"}],
        "BillingMode": "PAY_PER_REQUEST"})
    assert done["ImportedItemCount"] == 1
    table = done["TableArn"].rpartition("/")[2]
    assert ddb.get_item(TableName=table, Key={"Id": {"N": "103"}})["Item"] == item


@pytest.mark.parametrize("fmt", ["DYNAMODB_JSON", "ION"])
def test_export_imports_back_into_an_identical_table(ddb, s3_server, fmt):
    server, _ = s3_server
    name = unique_name()
    index = {"IndexName": "by-city", "Projection": {"ProjectionType": "ALL"},
             "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}]}
    parameters = {**KEYS, "AttributeDefinitions": KEYS["AttributeDefinitions"] + [
        {"AttributeName": "city", "AttributeType": "S"}], "GlobalSecondaryIndexes": [index]}
    ddb.create_table(TableName=name, **parameters)
    items = [{"pk": {"S": f"p{i % 7}"}, "sk": {"N": str(i)}, "city": {"S": f"c{i % 3}"},
              "data": {"M": {"b": {"B": "AAE="}, "n": {"NS": ["1", str(i + 2)]}}}}
             for i in range(60)]
    for item in items:
        assert server.post("PutItem", {"TableName": name, "Item": item}).status == 200
    pitr(ddb, name)
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    export = wait_export(ddb, ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=BUCKET, S3Prefix=name, ExportFormat=fmt)
        ["ExportDescription"]["ExportArn"])
    data = export["ExportManifest"].rpartition("/")[0] + "/data/"
    copy = unique_name()
    done = _import(ddb, data, fmt, "GZIP", name=copy, parameters=parameters)
    assert (done["ImportStatus"], done["ImportedItemCount"], done["ErrorCount"]) == (
        "COMPLETED", 60, 0)
    assert _scan(ddb, copy) == _scan(ddb, name)
    original = ddb.describe_table(TableName=name)["Table"]
    imported = ddb.describe_table(TableName=copy)["Table"]
    for member in ("KeySchema", "AttributeDefinitions", "ItemCount", "TableSizeBytes"):
        assert imported[member] == original[member]
    assert imported["GlobalSecondaryIndexes"][0]["IndexName"] == "by-city"
    assert imported["GlobalSecondaryIndexes"][0]["ItemCount"] == 60
    query = ddb.query(TableName=copy, IndexName="by-city", KeyConditionExpression="city = :c",
                      ExpressionAttributeValues={":c": {"S": "c1"}})
    assert query["Count"] == 20


def test_import_errors_and_failures(ddb, s3_server):
    root = s3_server[1]
    name = unique_name()
    ddb.create_table(TableName=name, **KEYS)
    prefix = unique_name("exists") + "/"
    _put(root, prefix + "x.json", b"")
    code, message = fails(ddb.import_table, S3BucketSource={"S3Bucket": BUCKET},
                           InputFormat="CSV", TableCreationParameters={"TableName": name, **KEYS})
    assert (code, message) == ("ResourceInUseException", f"Table already exists: {name}")
    started = ddb.import_table(S3BucketSource={"S3Bucket": "no-such-bucket"}, InputFormat="CSV",
                               TableCreationParameters={"TableName": unique_name(), **KEYS})
    done = wait_import(ddb, started["ImportTableDescription"]["ImportArn"])
    assert (done["ImportStatus"], done["FailureCode"]) == ("FAILED", "S3NoSuchBucket")
    missing = started["ImportTableDescription"]["ImportArn"][:-5] + "00000"
    assert fails(ddb.describe_import, ImportArn=missing) == (
        "ImportNotFoundException", f"Import not found: {missing}")
    token = unique_name("token")
    same = {"S3BucketSource": {"S3Bucket": BUCKET, "S3KeyPrefix": prefix},
            "InputFormat": "DYNAMODB_JSON", "ClientToken": token,
            "TableCreationParameters": {"TableName": unique_name(), **KEYS}}
    first = ddb.import_table(**same)["ImportTableDescription"]
    assert ddb.import_table(**same)["ImportTableDescription"]["ImportArn"] == first["ImportArn"]
    assert fails(ddb.import_table, **dict(same, InputFormat="ION"))[0] == (
        "ImportConflictException")
    wait_import(ddb, first["ImportArn"])


def test_list_imports_pages_with_hex_tokens(ddb, s3_server):
    root = s3_server[1]
    prefix = unique_name("list") + "/"
    _put(root, prefix + "x.json", b"")
    arns = [_import(ddb, prefix, "DYNAMODB_JSON")["ImportArn"] for _ in range(3)]
    tables = {arn.rpartition("/import/")[0] for arn in arns}
    page = ddb.list_imports(TableArn=arns[1].rpartition("/import/")[0], PageSize=1)
    assert [s["ImportArn"] for s in page["ImportSummaryList"]] == [arns[1]]
    assert len(tables) == 3
    everything = []
    token = None
    while True:
        page = ddb.list_imports(PageSize=2, **({"NextToken": token} if token else {}))
        everything += [s["ImportArn"] for s in page["ImportSummaryList"]]
        token = page.get("NextToken")
        if token is None:
            break
        assert len(token) >= 112 and len(token) % 16 == 0
    assert set(arns) <= set(everything)
    # tokens are sealed: an ARN in hex (what an earlier okura's token was) is not one
    raw = arns[0].encode()
    unsealed = raw.ljust(max(56, -(-len(raw) // 8) * 8), b"\0").hex()
    assert fails(ddb.list_imports, NextToken=unsealed) == ("ValidationException",
                                                           "Invalid NextToken")
    summary = next(s for s in ddb.list_imports()["ImportSummaryList"]
                   if s["ImportArn"] == arns[0]) if len(everything) <= 25 else None
    if summary is not None:
        assert summary["ImportStatus"] == "COMPLETED" and summary["InputFormat"] == "DYNAMODB_JSON"


def test_an_index_key_of_the_wrong_type_is_a_bad_line(ddb, s3_server):
    root = s3_server[1]
    prefix = unique_name("gsi") + "/"
    _put(root, prefix + "x.json", b"\n".join(json.dumps({"Item": item}).encode() for item in (
        {"pk": {"S": "a"}, "sk": {"N": "1"}, "city": {"S": "Oslo"}},
        {"pk": {"S": "b"}, "sk": {"N": "1"}, "city": {"N": "7"}},
        {"pk": {"S": "c"}, "sk": {"N": "1"}})))
    index = {"IndexName": "by-city", "Projection": {"ProjectionType": "KEYS_ONLY"},
             "KeySchema": [{"AttributeName": "city", "KeyType": "HASH"}]}
    done = _import(ddb, prefix, "DYNAMODB_JSON", parameters={
        **KEYS, "GlobalSecondaryIndexes": [index], "AttributeDefinitions":
            KEYS["AttributeDefinitions"] + [{"AttributeName": "city", "AttributeType": "S"}]})
    assert (done["ImportedItemCount"], done["ErrorCount"]) == (2, 1)
    table = done["TableArn"].rpartition("/")[2]
    assert [item["pk"]["S"] for item in _scan(ddb, table)] == ["a", "c"]
    assert ddb.scan(TableName=table, IndexName="by-city")["Count"] == 1


def test_import_request_validation(s3_server):
    server = s3_server[0]
    reply = server.post("ImportTable", {
        "S3BucketSource": {"S3Bucket": BUCKET}, "InputFormat": "XML",
        "TableCreationParameters": {"TableName": unique_name(), **KEYS}})
    assert reply.status == 400 and reply.json["message"] == (
        "1 validation error detected: Value 'XML' at 'inputFormat' failed to satisfy "
        "constraint: Member must satisfy enum value set: [DYNAMODB_JSON, ION, CSV]")
    reply = server.post("ImportTable", {
        "S3BucketSource": {"S3Bucket": BUCKET}, "InputFormat": "CSV",
        "TableCreationParameters": {"TableName": unique_name(), **KEYS,
                                    "BillingMode": "PROVISIONED"}})
    assert reply.status == 400 and reply.json["__type"].endswith("ValidationException")
