"""Contended transactions: clients move money between a few accounts with
TransactWriteItems (test_transact_contention.py; bench/contention.py measures it for
docs/postgres.md, Contended transactions)."""
from __future__ import annotations

import random
import threading
import time
import uuid
from typing import NamedTuple

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

START = 1_000_000  # never drained: a cancellation is a conflict, not a balance too low


class Outcome(NamedTuple):
    """One transfer: "ok", "cancelled: <reason codes>" or "<HTTP status> <error code>",
    the accounts it moved money between, and when it was sent and answered."""
    kind: str
    accounts: frozenset
    start: float
    end: float


def client(url: str):
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret",
                        config=Config(retries={"max_attempts": 0}))


def setup(url: str, accounts: int) -> str:
    """A new table of `accounts` accounts of START each."""
    ddb = client(url)
    table = f"bank-{uuid.uuid4().hex[:8]}"
    ddb.create_table(TableName=table, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    for i in range(accounts):
        ddb.put_item(TableName=table, Item={"pk": {"S": f"a{i}"}, "balance": {"N": str(START)}})
    return table


def _transfer(table: str, source: str, target: str, amount: int) -> list[dict]:
    def step(account: str, sign: str, condition: str | None) -> dict:
        update = {"TableName": table, "Key": {"pk": {"S": account}},
                  "UpdateExpression": f"SET balance = balance {sign} :a",
                  "ExpressionAttributeValues": {":a": {"N": str(amount)}}}
        if condition:
            update["ConditionExpression"] = condition
        return {"Update": update}
    return [step(source, "-", "balance >= :a"), step(target, "+", None)]


def _kind(error: ClientError) -> str:
    code = error.response["Error"]["Code"]
    if code == "TransactionCanceledException":
        reasons = {reason["Code"] for reason in error.response["CancellationReasons"]}
        return "cancelled: " + ",".join(sorted(reasons - {"None"}))
    return f"{error.response['ResponseMetadata']['HTTPStatusCode']} {code}"


def run(url: str, table: str, threads: int, accounts: int, seconds: float) -> list[Outcome]:
    """`threads` clients transfer between random pairs of the accounts for `seconds`."""
    outcomes: list[Outcome] = []
    barrier = threading.Barrier(threads)

    def worker(number: int) -> None:
        ddb = client(url)
        rng = random.Random(number)
        barrier.wait()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            pair = rng.sample(range(accounts), 2)
            start = time.monotonic()
            try:
                ddb.transact_write_items(TransactItems=_transfer(
                    table, f"a{pair[0]}", f"a{pair[1]}", rng.randint(1, 20)))
                kind = "ok"
            except ClientError as error:
                kind = _kind(error)
            outcomes.append(Outcome(kind, frozenset(pair), start, time.monotonic()))

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return outcomes


def overlapped(outcome: Outcome, outcomes: list[Outcome]) -> bool:
    """Whether another transfer of one of its accounts was in flight while it was."""
    return any(other is not outcome and other.accounts & outcome.accounts
               and other.start < outcome.end and outcome.start < other.end
               for other in outcomes)


def total(url: str, table: str, accounts: int) -> int:
    ddb = client(url)
    return sum(int(ddb.get_item(TableName=table, Key={"pk": {"S": f"a{i}"}},
                                ConsistentRead=True)["Item"]["balance"]["N"])
               for i in range(accounts))
