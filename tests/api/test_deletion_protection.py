"""Deletion protection guards every way a table can be deleted: DeleteTable (by name or
ARN) refuses, and PartiQL has no statement that drops a table (DynamoDB's PartiQL has no
DDL), so a DROP TABLE is refused as a statement and the table stays."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError
from conftest import error_of

PROTECTED = ("ValidationException", "Resource cannot be deleted as it is currently protected "
             "against deletion. Disable deletion protection first.")


def test_no_path_deletes_a_protected_table(ddb, make_table):
    name = make_table(DeletionProtectionEnabled=True)
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    for table in (name, arn):
        with pytest.raises(ClientError) as caught:
            ddb.delete_table(TableName=table)
        assert error_of(caught) == PROTECTED
    for statement in (f'DROP TABLE "{name}"', f'DELETE TABLE "{name}"'):
        with pytest.raises(ClientError) as caught:
            ddb.execute_statement(Statement=statement)
        assert error_of(caught)[0] == "ValidationException"
    assert ddb.describe_table(TableName=name)["Table"]["TableStatus"] == "ACTIVE"
