"""--log-level debug logs one line per request, --access-log FILE one JSON line per
request: operation, table, status, error type, milliseconds (issue 25)."""
from __future__ import annotations

import json

import pytest
from botocore.exceptions import ClientError
from conftest import Server, unique_name


def test_debug_log_and_access_log_show_each_request(tmp_path):
    access = tmp_path / "access.jsonl"
    server = Server("--log-level", "debug", "--access-log", str(access))
    try:
        ddb = server.client()
        name = unique_name()
        ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
        with pytest.raises(ClientError):
            ddb.put_item(TableName=name, Item={"other": {"S": "a"}})
        with pytest.raises(ClientError):
            ddb.get_item(TableName="absent-table", Key={"pk": {"S": "a"}})
        lines = [json.loads(line) for line in access.read_text().splitlines()]
        log = server.log_text()
    finally:
        server.stop()
    assert [(line["operation"], line["table"], line["status"], line["error"])
            for line in lines] == [
        ("CreateTable", name, 200, None), ("PutItem", name, 200, None),
        ("PutItem", name, 400, "ValidationException"),
        ("GetItem", "absent-table", 400, "ResourceNotFoundException")]
    assert all(line["ms"] >= 0 and line["region"] == "us-east-1" and len(line["request_id"]) == 52
               for line in lines)
    assert lines[2]["message"] == ("One or more parameter values were invalid: Missing the key "
                                   "pk in the item")
    requests = [line.split("okura.requests: ", 1)[1] for line in log.splitlines()
                if "okura.requests: " in line]
    assert len(requests) == 4
    assert requests[0].startswith(f"CreateTable {name} 200 - ")
    assert requests[3].startswith("GetItem absent-table 400 ResourceNotFoundException ")
    assert requests[3].endswith(" ms: Requested resource not found")


def test_without_them_nothing_is_logged_per_request():
    server = Server("--log-level", "info")
    try:
        server.client().list_tables()
        log = server.log_text()
    finally:
        server.stop()
    assert "okura.requests" not in log and "ListTables" not in log
