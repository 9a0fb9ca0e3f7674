"""Access control of exports and imports (--auth enforce): ExportTableToPointInTime and
ImportTable are checked on their table, DescribeExport and DescribeImport on the export's
or import's ARN, ListExports and ListImports on "*"."""
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
