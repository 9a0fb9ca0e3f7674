"""Exports, imports and bulk puts through an S3-compatible service (`--s3-endpoint`): moto's server
mode, used here purely as an S3 endpoint, with credentials from the AWS variables."""
from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
import sys
import time

import boto3
import pytest

from conftest import Server, free_port, unique_name
from transfer_common import pitr, wait_export, wait_import, wait_until

CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
               "AWS_DEFAULT_REGION": "us-east-1"}
KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}


@pytest.fixture(scope="module")
def s3_url():
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                "-p", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.1):
                break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("moto's S3 server did not start")
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(10)


@pytest.fixture(scope="module")
def s3(s3_url):
    return boto3.client("s3", endpoint_url=s3_url, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


@pytest.fixture(scope="module")
def okura(s3_url, tmp_path_factory):
    saved = {name: os.environ.get(name) for name in CREDENTIALS}
    os.environ.update(CREDENTIALS)  # the server process inherits them
    try:
        server = Server("--s3-endpoint", s3_url, "--import-error-dir",
                        str(tmp_path_factory.mktemp("errors")),
                        data_dir=str(tmp_path_factory.mktemp("data")))
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    yield server
    server.stop()


def test_export_and_import_through_an_s3_endpoint(okura, s3):
    ddb = okura.client()
    bucket = unique_name("bucket")
    s3.create_bucket(Bucket=bucket)
    name = unique_name()
    ddb.create_table(TableName=name, **KEYS)
    items = [{"pk": {"S": f"k{i}"}, "n": {"N": str(i)}, "b": {"B": b"\x00\x01"}}
             for i in range(30)]
    for item in items:
        ddb.put_item(TableName=name, Item=item)
    pitr(ddb, name)
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    done = wait_export(ddb, ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket=bucket, S3Prefix="exports")["ExportDescription"]["ExportArn"])
    assert (done["ExportStatus"], done["ItemCount"]) == ("COMPLETED", 30)
    base = done["ExportManifest"].rpartition("/")[0] + "/"
    keys = {entry["Key"] for entry in s3.list_objects_v2(Bucket=bucket)["Contents"]}
    assert {base + name for name in ("_started", "manifest-summary.json",
                                     "manifest-summary.checksum", "manifest-files.json",
                                     "manifest-files.checksum")} <= keys
    summary = json.loads(s3.get_object(Bucket=bucket, Key=base + "manifest-summary.json")
                         ["Body"].read())
    assert summary["itemCount"] == 30 and summary["s3Bucket"] == bucket
    manifest = s3.get_object(Bucket=bucket, Key=base + "manifest-files.json")["Body"].read()
    lines = []
    for entry in map(json.loads, manifest.splitlines()):
        obj = s3.get_object(Bucket=bucket, Key=entry["dataFileS3Key"])
        assert obj["ETag"].strip('"') == entry["etag"]
        lines += gzip.decompress(obj["Body"].read()).splitlines()
    assert len(lines) == 30
    copy = unique_name()
    imported = wait_import(ddb, ddb.import_table(
        S3BucketSource={"S3Bucket": bucket, "S3KeyPrefix": base + "data/"},
        InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
        TableCreationParameters={"TableName": copy, **KEYS})["ImportTableDescription"]["ImportArn"])
    assert (imported["ImportStatus"], imported["ImportedItemCount"]) == ("COMPLETED", 30)
    assert sorted(ddb.scan(TableName=copy)["Items"], key=lambda i: int(i["n"]["N"])) == items


def test_missing_bucket_fails_the_job(okura):
    ddb = okura.client()
    name = unique_name()
    ddb.create_table(TableName=name, **KEYS)
    pitr(ddb, name)
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    done = wait_export(ddb, ddb.export_table_to_point_in_time(
        TableArn=arn, S3Bucket="no-such-bucket-here")["ExportDescription"]["ExportArn"])
    assert (done["ExportStatus"], done["FailureCode"]) == ("FAILED", "S3NoSuchBucket")
    imported = wait_import(ddb, ddb.import_table(
        S3BucketSource={"S3Bucket": "no-such-bucket-here"}, InputFormat="CSV",
        TableCreationParameters={"TableName": unique_name(), **KEYS})["ImportTableDescription"]
        ["ImportArn"])
    assert (imported["ImportStatus"], imported["FailureCode"]) == ("FAILED", "S3NoSuchBucket")


def test_bulk_put_through_an_s3_endpoint(okura, s3):
    ddb = okura.client()
    bucket = unique_name("bucket")
    s3.create_bucket(Bucket=bucket)
    lines = [json.dumps({"Item": {"pk": {"S": f"k{i}"}}}) for i in range(20)] + ["bad"]
    data = gzip.compress("\n".join(lines).encode())
    s3.put_object(Bucket=bucket, Key="in/a.json.gz", Body=data)
    name = unique_name()
    ddb.create_table(TableName=name, **KEYS)
    arn = ddb.start_bulk_put_items(
        TableName=name, InputS3Configuration={"S3Bucket": bucket, "S3KeyPrefix": "in/",
                                              "InputFormat": "DYNAMODB_JSON",
                                              "InputCompressionType": "GZIP"},
        OutputS3Configuration={"S3Bucket": bucket, "S3KeyPrefix": "out", "OutputType": ["ERROR"]},
    )["BulkOperationDescription"]["BulkOperationArn"]
    done = wait_until(lambda: ddb.describe_bulk_operation(BulkOperationArn=arn)[
        "BulkOperationDescription"], "BulkOperationStatus")
    assert (done["BulkOperationStatus"], done["ProcessedItemCount"], done["FailedItemCount"],
            done["TotalInputBytes"]) == ("COMPLETED_WITH_ERRORS", 21, 1, len(data))
    assert len(ddb.scan(TableName=name)["Items"]) == 20
    keys = [entry["Key"] for entry in s3.list_objects_v2(Bucket=bucket, Prefix="out/")["Contents"]]
    errors = [key for key in keys if "/ERROR/" in key]
    assert len(errors) == 1 and any(key.endswith("/manifest-summary.json") for key in keys)
    assert json.loads(s3.get_object(Bucket=bucket, Key=errors[0])["Body"].read())["line"] == 21
