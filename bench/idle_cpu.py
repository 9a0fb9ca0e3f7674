"""CPU an idle okura spends: `okura serve` with no tables, and with 100 idle tables
(every fifth with TTL on, every fifth with a stream, every tenth with both), CPU
seconds (user + system, /proc/<pid>/stat) over a window with no request.

    python bench/idle_cpu.py [--seconds 60] [--engines memory,sqlite,postgres]
                             [--postgres postgresql://postgres@127.0.0.1] [--checkout DIR]
                             [-- okura serve flags]

PostgreSQL runs with --postgres (a server where the user may create databases: each
run gets a database of its own, dropped after it).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time

import asyncpg
import boto3
from botocore.config import Config

HERE = os.path.dirname(os.path.abspath(__file__))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def client(port: int):
    return boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}",
                        region_name="us-east-1", aws_access_key_id="idle",
                        aws_secret_access_key="idle", config=Config(retries={"max_attempts": 3}))


def make_tables(ddb, count: int) -> None:
    for n in range(count):
        name = f"idle-{n:03d}"
        extra = {}
        if n % 5 == 1 or n % 10 == 0:
            extra["StreamSpecification"] = {"StreamEnabled": True,
                                            "StreamViewType": "NEW_AND_OLD_IMAGES"}
        ddb.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                         KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         **extra)
        if n % 5 == 0:
            ddb.update_time_to_live(TableName=name, TimeToLiveSpecification={
                "Enabled": True, "AttributeName": "expires"})
        ddb.put_item(TableName=name, Item={"pk": {"S": "one"},
                                           "expires": {"N": str(int(time.time()) + 86400)}})


@contextlib.contextmanager
def storage_of(engine: str, server: str | None):
    """The okura serve arguments of a fresh, empty storage."""
    if engine == "postgres":
        with fresh_database(server, "okura_idle") as url:
            yield ["--postgres", url]
        return
    with tempfile.TemporaryDirectory() as data:
        yield ["--memory"] if engine == "memory" else ["--data-dir", data]


@contextlib.contextmanager
def fresh_database(server: str | None, prefix: str):
    """The URL of a new PostgreSQL database on `server`, dropped afterwards."""
    name = f"{prefix}_{os.getpid()}_{time.monotonic_ns()}"
    asyncio.run(_database(server, f'CREATE DATABASE "{name}"'))
    try:
        yield f"{server}/{name}"
    finally:
        asyncio.run(_database(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def _database(server: str | None, statement: str) -> None:
    connection = await asyncpg.connect(f"{server}/postgres")
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def measure(storage: list[str], tables: int, seconds: float, settle: float,
            checkout: str, flags: list[str]) -> float:
    port = 18000 + os.getpid() % 1000
    command = [sys.executable, "-m", "okura", "serve", "--port", str(port),
               "--log-level", "warning", *storage, *flags]
    process = subprocess.Popen(command, cwd=checkout)  # python -m okura: the checkout's
    try:
        ddb = client(port)
        deadline = time.monotonic() + 15
        while True:
            try:
                ddb.list_tables()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        make_tables(ddb, tables)
        time.sleep(settle)  # the writes' own background work (index backfills) ends
        before = cpu_seconds(process.pid)
        time.sleep(seconds)
        return cpu_seconds(process.pid) - before
    finally:
        process.terminate()
        process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--engines", default="memory,sqlite")
    parser.add_argument("--postgres", help="a PostgreSQL server's URL (no database)")
    parser.add_argument("--checkout", default=os.path.join(HERE, ".."),
                        help="the okura checkout to run (default: this one)")
    parser.add_argument("flags", nargs="*", help="more okura serve flags (after --)")
    args = parser.parse_args()
    print(f"{'storage':9} {'tables':>6} {'CPU s':>7} {'% of a core':>11}  over {args.seconds:.0f} s")
    for engine in args.engines.split(","):
        if engine == "postgres" and not args.postgres:
            print("postgres: skipped (no --postgres)")
            continue
        for tables in (0, 100):
            with storage_of(engine, args.postgres) as storage:
                used = measure(storage, tables, args.seconds, args.settle, args.checkout,
                               args.flags)
            print(f"{engine:9} {tables:6d} {used:7.2f} {100 * used / args.seconds:10.2f} %")


if __name__ == "__main__":
    main()
