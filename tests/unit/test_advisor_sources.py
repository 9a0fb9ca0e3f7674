"""The live source asks another DynamoDB endpoint only read-only questions, and Scans
only when told to."""
from __future__ import annotations

from okura.advisor.sources import Refused, gather

READ_ONLY = {"ListTables", "DescribeTable", "DescribeTimeToLive", "DescribeContinuousBackups",
             "GetResourcePolicy", "ListBackups"}
TABLE = {"TableName": "prod-shop-order", "TableArn": "arn:aws:dynamodb:us-east-1:1:table/x",
         "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"}]}


def _endpoint(asked: list[str]):
    def call(operation: str, body: dict) -> dict:
        asked.append(operation)
        if operation == "ListTables":
            return {"TableNames": ["prod-shop-order"]}
        if operation == "DescribeTable":
            return {"Table": TABLE}
        if operation == "Scan":
            return {"Items": [{"user_id": {"S": "u1"}, "blob": {"B": b"\x00\x01"}}]}
        raise Refused("not here")  # what an endpoint without the operation answers
    return call


def test_without_sample_only_list_and_describe():
    asked: list[str] = []
    tables, access_control = gather(_endpoint(asked), lambda path: None, "us-east-1", None)
    assert set(asked) <= READ_ONLY and "Scan" not in asked
    assert tables[0].items is None and tables[0].usage is None and not access_control


def test_with_sample_one_bounded_scan():
    asked: list[str] = []
    tables, _ = gather(_endpoint(asked), lambda path: None, "us-east-1", 10)
    assert asked.count("Scan") == 1 and set(asked) - {"Scan"} <= READ_ONLY
    # boto3 hands binaries over as bytes; the rules see DynamoDB's base64
    assert tables[0].items == [{"user_id": {"S": "u1"}, "blob": {"B": "AAE="}}]
    assert tables[0].complete
