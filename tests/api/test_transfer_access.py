"""Access control of exports, imports and bulk puts (--auth enforce):
ExportTableToPointInTime, ImportTable and StartBulkPutItems are checked on their table,
DescribeExport, DescribeImport, DescribeBulkOperation and CancelBulkOperation on the job's
ARN, ListExports, ListImports and ListBulkOperations on "*"."""
from __future__ import annotations

import pytest

from tests.api.test_access import _arn, _denied, client, error_of, start
from transfer_common import BUCKET, pitr, wait_export

KEYS = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST"}


@pytest.fixture(scope="module")
def enforced(tmp_path_factory):
    root = tmp_path_factory.mktemp("s3")
    (root / BUCKET).mkdir()
    server = start(tmp_path_factory, "enforce", "--s3-dir", str(root), "--import-error-dir",
                   str(tmp_path_factory.mktemp("errors")))
    admin = client(server, "AKIAADMIN")
    for name in ("dev_exported", "prod_exported"):
        admin.create_table(TableName=name, **KEYS)
        pitr(admin, name)
    yield server
    server.stop()


def test_exports_and_imports_are_checked_on_their_resources(enforced):
    dev, admin = client(enforced, "AKIADEV"), client(enforced, "AKIAADMIN")
    started = dev.export_table_to_point_in_time(TableArn=_arn("dev_exported"), S3Bucket=BUCKET)
    arn = started["ExportDescription"]["ExportArn"]
    assert wait_export(dev, arn)["ExportStatus"] == "COMPLETED"
    prod = _arn("prod_exported")
    assert error_of(dev.export_table_to_point_in_time, TableArn=prod, S3Bucket=BUCKET) == (
        "AccessDeniedException", _denied("dev", "ExportTableToPointInTime", prod))
    other = admin.export_table_to_point_in_time(TableArn=prod, S3Bucket=BUCKET)[
        "ExportDescription"]["ExportArn"]
    assert error_of(dev.describe_export, ExportArn=other) == (
        "AccessDeniedException", _denied("dev", "DescribeExport", other))
    assert error_of(dev.list_exports) == (
        "AccessDeniedException", _denied("dev", "ListExports", "*"))
    assert error_of(dev.import_table, S3BucketSource={"S3Bucket": BUCKET}, InputFormat="CSV",
                    TableCreationParameters={"TableName": "prod_imported", **KEYS}) == (
        "AccessDeniedException", _denied("dev", "ImportTable", _arn("prod_imported")))
    imported = dev.import_table(S3BucketSource={"S3Bucket": BUCKET}, InputFormat="CSV",
                                TableCreationParameters={"TableName": "dev_imported", **KEYS})
    assert imported["ImportTableDescription"]["ImportArn"].startswith(_arn("dev_imported"))
    assert error_of(dev.list_imports) == (
        "AccessDeniedException", _denied("dev", "ListImports", "*"))


def test_bulk_operations_are_checked_on_their_resources(enforced):
    dev, admin = client(enforced, "AKIADEV"), client(enforced, "AKIAADMIN")
    request = {"InputS3Configuration": {"S3Bucket": BUCKET, "InputFormat": "DYNAMODB_JSON"},
               "OutputS3Configuration": {"S3Bucket": BUCKET, "OutputType": ["ERROR"]}}
    mine = dev.start_bulk_put_items(TableName="dev_exported", **request)[
        "BulkOperationDescription"]["BulkOperationArn"]
    assert mine.startswith(_arn("dev_exported") + "/bulk-operation/")
    assert dev.describe_bulk_operation(BulkOperationArn=mine)["BulkOperationDescription"][
        "BulkOperationArn"] == mine
    assert error_of(dev.start_bulk_put_items, TableName="prod_exported", **request) == (
        "AccessDeniedException", _denied("dev", "StartBulkPutItems", _arn("prod_exported")))
    other = admin.start_bulk_put_items(TableName="prod_exported", **request)[
        "BulkOperationDescription"]["BulkOperationArn"]
    for action, call in (("DescribeBulkOperation", dev.describe_bulk_operation),
                         ("CancelBulkOperation", dev.cancel_bulk_operation)):
        assert error_of(call, BulkOperationArn=other) == (
            "AccessDeniedException", _denied("dev", action, other))
    assert error_of(dev.list_bulk_operations) == (
        "AccessDeniedException", _denied("dev", "ListBulkOperations", "*"))
