"""A minimal DynamoDB JSON client over one keep-alive HTTP connection.

Used for table setup, preloading and the Scan loop. boto3 would add retries,
backoff and signing time that blur a benchmark, and would hide a failing server
behind its retry policy; here every non-200 reply raises at once.
"""

from __future__ import annotations

import http.client
import os
import time
from collections.abc import Iterable, Iterator

import orjson

# Well-formed but fake SigV4: the servers read the region from it, none verify it.
AUTHORIZATION = (
    "AWS4-HMAC-SHA256 Credential=AKIDBENCHMARK/20240101/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" + "0" * 64
)
AMZ_DATE = "20240101T000000Z"

# ~200 B per item as DynamoDB counts size (names + values), the key excluded.
# bench/lua/common.lua builds the same item for the load generator.
ITEM_ATTRIBUTES = {
    "name": {"S": "Ada Lovelace Byron King"},
    "email": {"S": "ada.lovelace@analytical.example"},
    "age": {"N": "36"},
    "active": {"BOOL": True},
    "payload": {"S": "x" * 100},
}


# OKURA_BENCH_PROVISIONED=1: tables of 40,000 read and write units (the per-table
# quota), which the load stays within, rather than billed per request (bench/README.md)
_BILLING: dict = ({"ProvisionedThroughput": {"ReadCapacityUnits": 40000,
                                             "WriteCapacityUnits": 40000}}
                  if os.environ.get("OKURA_BENCH_PROVISIONED") else
                  {"BillingMode": "PAY_PER_REQUEST"})


class CallError(Exception):
    """A non-200 reply, kept whole so the report can show what went wrong."""

    def __init__(self, target: str, status: int, body: bytes) -> None:
        super().__init__(f"{target}: HTTP {status}: {body[:300].decode(errors='replace')}")
        self.status = status
        self.body = body


def headers(target: str) -> dict[str, str]:
    return {
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": "DynamoDB_20120810." + target,
        "X-Amz-Date": AMZ_DATE,
        "Authorization": AUTHORIZATION,
    }


class Client:
    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 120.0) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)
        self.headers = {target: headers(target) for target in ("Scan", "BatchWriteItem")}

    def close(self) -> None:
        self.connection.close()

    def call(self, target: str, request: dict) -> dict:
        status, body = self.call_raw(target, orjson.dumps(request))
        if status != 200:
            raise CallError(target, status, body)
        return orjson.loads(body)

    def call_raw(self, target: str, body: bytes) -> tuple[int, bytes]:
        """One request; returns status and undecoded body (the Scan loop decodes it itself)."""
        head = self.headers.get(target) or headers(target)
        self.connection.request("POST", "/", body, head)
        response = self.connection.getresponse()
        return response.status, response.read()

    def create_table(self, name: str, hash_key: tuple[str, str], range_key: tuple[str, str] | None = None) -> None:
        """Create an on-demand table (dropping any leftover of the same name) and wait until ACTIVE."""
        self.delete_table(name)
        keys = [hash_key] + ([range_key] if range_key else [])
        self.call(
            "CreateTable",
            {
                "TableName": name,
                "AttributeDefinitions": [{"AttributeName": n, "AttributeType": t} for n, t in keys],
                "KeySchema": [
                    {"AttributeName": n, "KeyType": kind} for (n, _), kind in zip(keys, ("HASH", "RANGE"))
                ],
                **_BILLING,
            },
        )
        self._wait(name, lambda status: status == "ACTIVE")

    def delete_table(self, name: str) -> None:
        try:
            self.call("DeleteTable", {"TableName": name})
        except CallError as error:
            if b"ResourceNotFoundException" in error.body:
                return
            raise
        self._wait(name, lambda status: status is None)

    def _wait(self, name: str, done, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                status = self.call("DescribeTable", {"TableName": name})["Table"]["TableStatus"]
            except CallError as error:
                if b"ResourceNotFoundException" not in error.body:
                    raise
                status = None
            if done(status):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"table {name} still {status} after {timeout:.0f} s")
            time.sleep(0.05)

    def batch_write(self, table: str, items: Iterable[dict]) -> None:
        """Put items 25 at a time, resending whatever comes back unprocessed.

        A server without BatchWriteItem gets one PutItem per item, so the read
        workloads can be measured before the server has every write operation.
        """
        batches = True
        for chunk in _chunks(items, 25):
            if batches:
                try:
                    self._batch(table, chunk)
                    continue
                except CallError as error:
                    if b"UnknownOperationException" not in error.body:
                        raise
                    batches = False
            for entry in chunk:
                self.call("PutItem", {"TableName": table, "Item": entry})

    def _batch(self, table: str, chunk: list[dict]) -> None:
        pending = {table: [{"PutRequest": {"Item": entry}} for entry in chunk]}
        while pending:
            pending = self.call("BatchWriteItem", {"RequestItems": pending}).get("UnprocessedItems") or {}


def item(key: dict) -> dict:
    return {**key, **ITEM_ATTRIBUTES}


def _chunks(items: Iterable[dict], size: int) -> Iterator[list[dict]]:
    chunk: list[dict] = []
    for entry in items:
        chunk.append(entry)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
