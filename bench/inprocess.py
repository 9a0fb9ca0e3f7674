"""okura's CPU cost per request, in-process: raw HTTP requests fed to the server's
protocol objects, 16 at a time (as 16 connections arrive together, so group commit
behaves as under load), no sockets and no load generator. Steadier than wall-clock
load on a shared machine, and the place to profile.

    python bench/inprocess.py get                 # GetItem, SQLite on disk
    python bench/inprocess.py put --memory        # PutItem, in memory
    python bench/inprocess.py update --profile    # cProfile of UpdateItem, by own time
    python bench/inprocess.py batch --profile --sort cumtime
    python bench/inprocess.py get --auth enforce  # signed requests, a three-statement policy

Instructions of the measured part alone, in one run (bench/NOTES.md):

    PYTHONHASHSEED=0 valgrind --tool=callgrind --zero-before=os_sched_yield \
        --dump-before=os_getppid python -P bench/inprocess.py get --memory --marks \
        --keys 100 --requests 1024 --throttling shadow   # totals in callgrind.out.PID.1

Prints the main thread's CPU µs per request (the minimum and median of 8 slices of
the run: the minimum is the least disturbed by other work on the machine).
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

import orjson
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from okura.config import Settings  # noqa: E402 - after the path set-up
from okura.core.clock import Clock  # noqa: E402
from okura.core.consistency.lag import Lag  # noqa: E402
from okura.core.database import Database  # noqa: E402
from okura.core.throughput import Throughput  # noqa: E402
from okura.server.app import App, make_engine  # noqa: E402
from okura.server.guarded import GuardedProtocol, guard_app  # noqa: E402
from okura.server.http import HttpProtocol  # noqa: E402

CONNECTIONS = 16
KEYS = 1000
_AUTHORIZATION = ("AWS4-HMAC-SHA256 Credential=AKIDBENCHMARK/20240101/us-east-1/dynamodb/"
                  "aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                  "Signature=" + "0" * 64)
# The ~200 B item of bench/lua/common.lua, without its key.
_ATTRIBUTES = ('"name":{"S":"Ada Lovelace Byron King"},"email":{"S":"ada.lovelace@analytical.'
               'example"},"age":{"N":"36"},"active":{"BOOL":true},"payload":{"S":"'
               + "x" * 100 + '"}')
_TABLE = {"TableName": "bench", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
          "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
          "BillingMode": "PAY_PER_REQUEST"}
_SORTED = {"TableName": "bench_q", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                 {"AttributeName": "sk", "KeyType": "RANGE"}],
           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                    {"AttributeName": "sk", "AttributeType": "S"}],
           "BillingMode": "PAY_PER_REQUEST"}


def _put(table: str, key: str) -> tuple[str, str]:
    return "PutItem", f'{{"TableName":"{table}","Item":{{{key},{_ATTRIBUTES}}}}}'


def setup_requests(provisioned: bool = False) -> list[bytes]:
    """The workloads' tables (`provisioned`: of 40,000 read and write units, which the
    workloads stay well within, rather than on demand) and their KEYS items each."""
    raws = []
    for table in (_TABLE, _SORTED):
        if provisioned:
            table = {key: value for key, value in table.items() if key != "BillingMode"}
            table["ProvisionedThroughput"] = {"ReadCapacityUnits": 40000,
                                              "WriteCapacityUnits": 40000}
        raws.append(request("CreateTable", orjson.dumps(table).decode()))
    for i in range(KEYS):
        raws.append(request(*_put("bench", f'"pk":{{"S":"k{i}"}}')))
        raws.append(request(*_put("bench_q", f'"pk":{{"S":"p{i % (KEYS // 10)}"}},'
                                             f'"sk":{{"S":"s{i}"}}')))
    return raws


# operation -> (items per request, i -> (target, body))
WORKLOADS = {
    "get": (1, lambda i: ("GetItem", f'{{"TableName":"bench","Key":{{"pk":{{"S":"k{i % KEYS}"}}}}}}')),
    "put": (1, lambda i: _put("bench", f'"pk":{{"S":"fresh{i}"}}')),
    "update": (1, lambda i: ("UpdateItem", (
        f'{{"TableName":"bench","Key":{{"pk":{{"S":"c{i % KEYS}"}}}},"UpdateExpression":"ADD #c :one",'
        '"ExpressionAttributeNames":{"#c":"count"},"ExpressionAttributeValues":{":one":{"N":"1"}},'
        '"ReturnValues":"UPDATED_NEW"}'))),
    "batch": (25, lambda i: ("BatchWriteItem", '{"RequestItems":{"bench":[' + ",".join(
        f'{{"PutRequest":{{"Item":{{"pk":{{"S":"b{i}-{j}"}},{_ATTRIBUTES}}}}}}}' for j in range(25))
        + "]}}")),
    "query": (10, lambda i: ("Query", (
        f'{{"TableName":"bench_q","KeyConditionExpression":"pk = :p",'
        f'"ExpressionAttributeValues":{{":p":{{"S":"p{i % (KEYS // 10)}"}}}}}}'))),
}


# --auth: the bench's one user and its three statements
_POLICY = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
                                   "dynamodb:Query", "dynamodb:BatchWriteItem",
                                   "dynamodb:CreateTable"],
     "Resource": "arn:aws:dynamodb:*:*:table/bench*"},
    {"Effect": "Deny", "Action": "dynamodb:*", "Resource": "arn:aws:dynamodb:*:*:table/prod_*"},
    {"Effect": "Allow", "Action": "dynamodb:ListTables", "Resource": "*"}]}
_USER = {"name": "bench", "access_key_id": "AKIDBENCHMARK", "secret_access_key": "bench-secret",
         "policies": [_POLICY]}
_signing = False


def request(target: str, body: str) -> bytes:
    data = body.encode()
    if _signing:
        return _signed(target, data)
    return (f"POST / HTTP/1.1\r\nHost: localhost:8000\r\n"
            f"Content-Type: application/x-amz-json-1.0\r\n"
            f"X-Amz-Target: DynamoDB_20120810.{target}\r\nX-Amz-Date: 20240101T000000Z\r\n"
            f"Authorization: {_AUTHORIZATION}\r\nContent-Length: {len(data)}\r\n\r\n"
            ).encode() + data


def _signed(target: str, data: bytes) -> bytes:
    """The request as an SDK signs it (botocore's signer, the bench user's key)."""
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    sent = AWSRequest("POST", "http://localhost:8000/", data=data, headers={
        "Content-Type": "application/x-amz-json-1.0",
        "X-Amz-Target": f"DynamoDB_20120810.{target}"})
    SigV4Auth(Credentials(_USER["access_key_id"], _USER["secret_access_key"]), "dynamodb",
              "us-east-1").add_auth(sent)
    lines = "".join(f"{name}: {value}\r\n" for name, value in sent.headers.items())
    return (f"POST / HTTP/1.1\r\nHost: localhost:8000\r\n{lines}"
            f"Content-Length: {len(data)}\r\n\r\n").encode() + data


class _Transport:
    """Just enough of an asyncio transport: keeps what the server writes."""

    def __init__(self):
        self.out: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.out.append(data)

    def get_extra_info(self, name: str):
        return ("127.0.0.1", 8000)

    def close(self) -> None:
        pass


class Connections:
    def __init__(self, app: App, count: int):
        self.transports = [_Transport() for _ in range(count)]
        protocol = HttpProtocol if app.guard is None else GuardedProtocol
        self.protocols = [protocol(app) for _ in range(count)]
        for protocol, transport in zip(self.protocols, self.transports):
            protocol.connection_made(transport)

    async def send(self, requests: list[bytes]) -> None:
        """One request per connection, then the loop iterations that commit and reply."""
        for protocol, transport, raw in zip(self.protocols, self.transports, requests):
            transport.out.clear()
            protocol.data_received(raw)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        for transport in self.transports[:len(requests)]:
            if not transport.out or not transport.out[-1].startswith(b"HTTP/1.1 200 "):
                raise SystemExit(f"bad reply: {transport.out[-1:]!r}")


async def run(args) -> None:
    global KEYS
    KEYS = args.keys
    data = tempfile.mkdtemp(prefix="okura-inprocess-")
    settings = Settings(data_dir=data, memory=args.memory, auth=args.auth,
                        auth_config=str(Path(data) / "auth.json"))
    user = _USER
    if args.conditional:  # LeadingKeys on every item request: no decision is remembered
        policy = orjson.loads(orjson.dumps(_POLICY))
        policy["Statement"][0]["Condition"] = {"ForAllValues:StringLike": {
            "dynamodb:LeadingKeys": ["${aws:PrincipalTag/keys}"]}}
        user = dict(_USER, policies=[policy], tags={"keys": "*"})
    Path(settings.auth_config).write_bytes(orjson.dumps({"users": [user]}))
    db = Database(make_engine(settings), settings.account_id, 0, Clock(0))
    db.features[Throughput].throttle(args.throttling)
    db.features[Lag].set_mode(args.consistency)
    await db.open()
    try:
        app = App(db, settings)
        if args.auth != "off":
            global _signing
            _signing = True
            guard_app(app, settings)
        setup = Connections(app, 1)
        for raw in setup_requests(args.provisioned):
            await setup.send([raw])
        per_request, make = WORKLOADS[args.operation]
        # --signed: sign as many whatever --requests says, so that runs of different lengths
        # under callgrind spend the same on signing
        raws = [request(*make(i)) for i in range(max(args.requests, args.signed))][:args.requests]
        connections = Connections(app, CONNECTIONS)
        profile = cProfile.Profile() if args.profile else None
        slices, step = [], max(CONNECTIONS, args.requests // 8)
        if profile:
            profile.enable()
        if args.marks:
            os.sched_yield()
        for start in range(0, args.requests, step):
            started = time.thread_time()
            for first in range(start, min(args.requests, start + step), CONNECTIONS):
                await connections.send(raws[first:first + CONNECTIONS])
            slices.append((time.thread_time() - started) / len(raws[start:start + step]))
        if args.marks:
            os.getppid()
        if profile:
            profile.disable()
        slices.sort()
        where = "memory" if args.memory else "disk"
        print(f"{args.operation} ({where}): {slices[0] * 1e6:.1f} µs/request minimum, "
              f"{slices[len(slices) // 2] * 1e6:.1f} median; "
              f"{slices[0] * 1e6 / per_request:.1f} µs per item (main thread CPU)")
        if profile:
            pstats.Stats(profile).sort_stats(args.sort).print_stats(args.lines)
    finally:
        await db.close()
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__)
    parser.add_argument("operation", choices=sorted(WORKLOADS))
    parser.add_argument("--memory", action="store_true", help="SQLite in memory, not on disk")
    parser.add_argument("--requests", type=int, default=16000)
    parser.add_argument("--profile", action="store_true", help="cProfile the measured part")
    parser.add_argument("--sort", default="tottime", help="pstats sort key (tottime, cumtime)")
    parser.add_argument("--lines", type=int, default=40)
    parser.add_argument("--throttling", choices=["off", "shadow", "enforce"], default="off")
    parser.add_argument("--provisioned", action="store_true",
                        help="tables of 40,000 read and write units rather than on demand")
    parser.add_argument("--consistency", choices=["strong", "eventual"], default="strong",
                        help="eventual: reads and indexes lag writes (default delays, seed 0)")
    parser.add_argument("--auth", choices=["off", "warn", "enforce"], default="off",
                        help="verify signatures and a three-statement policy")
    parser.add_argument("--conditional", action="store_true",
                        help="--auth's policy with a LeadingKeys condition")
    parser.add_argument("--keys", type=int, default=KEYS,
                        help="items per table in the set-up (fewer: a shorter run under valgrind)")
    parser.add_argument("--marks", action="store_true",
                        help="call os.sched_yield() before the measured part and os.getppid() "
                             "after it, for callgrind's --zero-before and --dump-before")
    parser.add_argument("--signed", type=int, default=0,
                        help="build (and sign) at least this many requests")
    uvloop.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
