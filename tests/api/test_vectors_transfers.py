"""Vector indexes through restores and imports: a restored table's vector indexes (its
source's, or VectorIndexOverride) hold the restored items; an import into a table
created with VectorIndexes indexes what it writes and refuses vectors of the wrong
length as bad lines."""
from __future__ import annotations

import json

import numpy as np

from conftest import unique_name
from test_backups import available, restored
from test_imports import _import, _put, ddb  # noqa: F401 (the module's server)
from test_vectors import DIMS, as_list, create, fill, reference, search, vector_index
from transfer_common import own_database, s3_server  # noqa: F401


def test_a_restore_indexes_the_restored_items(ddb):  # noqa: F811
    table = create(ddb, [vector_index(distance="COSINE")])
    vectors = fill(ddb, table, 40)
    arn = ddb.create_backup(TableName=table, BackupName="vectors")["BackupDetails"]["BackupArn"]
    available(ddb, arn)
    query = np.ones(DIMS)
    target = unique_name("restored")
    ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
    assert restored(ddb, target)["VectorIndexes"][0]["IndexName"] == "vix"
    assert [r["Item"]["pk"]["S"] for r in search(ddb, target, query, k=5)] == [
        key for key, _ in reference(vectors, query, "COSINE", 5)]
    other = unique_name("restored")
    ddb.restore_table_from_backup(TargetTableName=other, BackupArn=arn, VectorIndexOverride=[
        vector_index("dots", distance="DOT_PRODUCT")])
    assert [i["IndexName"] for i in restored(ddb, other)["VectorIndexes"]] == ["dots"]
    assert [r["Item"]["pk"]["S"] for r in search(ddb, other, query, k=5, index="dots")] == [
        key for key, _ in reference(vectors, query, "DOT_PRODUCT", 5)]


def test_an_import_indexes_what_it_writes(ddb, s3_server):  # noqa: F811
    prefix = unique_name("vectors") + "/"
    good = {"pk": {"S": "a"}, "v": as_list([1.0] * DIMS)}
    lines = [json.dumps({"Item": good}),
             json.dumps({"Item": {"pk": {"S": "b"}, "v": as_list([1.0, 2.0])}})]
    _put(s3_server[1], prefix + "part-1.json", "\n".join(lines).encode())
    done = _import(ddb, prefix, "DYNAMODB_JSON", parameters={
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST", "VectorIndexes": [vector_index()]})
    assert (done["ImportedItemCount"], done["ErrorCount"]) == (1, 1)
    table = done["TableArn"].rpartition("/")[2]
    assert [r["Item"]["pk"] for r in search(ddb, table, [1.0] * DIMS)] == [good["pk"]]
