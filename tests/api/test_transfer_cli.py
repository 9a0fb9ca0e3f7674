"""`okura export` and `okura import` against a running server: a table exported to a
bucket directory and imported back into a new one."""
from __future__ import annotations

import pytest

from conftest import unique_name
from test_backup_cli import okura
from transfer_common import BUCKET, own_database, pitr, s3_server  # noqa: F401


@pytest.mark.parametrize("s3_server", ["sqlite"], indirect=True)  # the verbs only call the API
def test_export_and_import_verbs(s3_server):
    server, _ = s3_server
    ddb = server.client()
    name = unique_name()
    ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                {"AttributeName": "n", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "n", "AttributeType": "N"}])
    for i in range(5):
        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "n": {"N": str(i)}})
    pitr(ddb, name)
    exported = okura(server, "export", name, "--bucket", BUCKET, "--prefix", "cli",
                     "--format", "ION")
    assert (exported["ExportStatus"], exported["ItemCount"]) == ("COMPLETED", 5)
    data = exported["ExportManifest"].rpartition("/")[0] + "/data/"
    copy = unique_name("cli")
    imported = okura(server, "import", copy, "--bucket", BUCKET, "--prefix", data,
                     "--format", "ION", "--compression", "GZIP", "--key", "pk:S",
                     "--sort", "n:N")
    assert (imported["ImportStatus"], imported["ImportedItemCount"]) == ("COMPLETED", 5)
    assert ddb.scan(TableName=copy)["Count"] == 5
