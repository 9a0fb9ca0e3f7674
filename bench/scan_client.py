"""The Scan workload's load generator: full-table scans page after page.

wrk cannot chain a request to the previous reply's LastEvaluatedKey, so this is
a tight loop on one keep-alive connection, run in its own process on the load
generator's core. Each completed scan must return exactly --expect items, or it
counts as an error. Prints one JSON object for run.py.

    python bench/scan_client.py --port P --table T --expect 10000 [--limit 1000]
"""

from __future__ import annotations

import argparse
import sys
import time

import orjson

from dynamo import Client


def scan_pages(client: Client, table: str, limit: int, deadline: float, latencies: list[int] | None):
    """Pages of one full scan as (item count, finished); stops early at the deadline."""
    request = {"TableName": table, "Limit": limit}
    while True:
        started = time.perf_counter_ns()
        status, body = client.call_raw("Scan", orjson.dumps(request))
        if latencies is not None:
            latencies.append((time.perf_counter_ns() - started) // 1000)
        if status != 200:
            raise RuntimeError(f"{status} {body[:300].decode(errors='replace')}")
        page = orjson.loads(body)
        last = page.get("LastEvaluatedKey")
        yield len(page["Items"]), last is None
        if last is None or time.perf_counter() >= deadline:
            return
        request["ExclusiveStartKey"] = last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--expect", type=int, required=True, help="items one full scan must return")
    parser.add_argument("--limit", type=int, default=1000, help="Limit of each Scan page")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--duration", type=float, default=10.0)
    args = parser.parse_args()

    client = Client(args.port)
    latencies: list[int] = []
    pages = items = errors = 0
    first_error = ""
    try:
        for measured, seconds in ((False, args.warmup), (True, args.duration)):
            started = time.perf_counter()
            deadline = started + seconds
            while time.perf_counter() < deadline:
                scanned = 0
                for count, finished in scan_pages(client, args.table, args.limit, deadline,
                                                  latencies if measured else None):
                    scanned += count
                    if measured:
                        pages += 1
                        items += count
                if finished and scanned != args.expect:
                    errors += 1
                    first_error = first_error or f"a full scan returned {scanned} items, not {args.expect}"
        elapsed = time.perf_counter() - started
    except Exception as error:  # noqa: BLE001 - any failure makes the run invalid, reported not raised
        errors += 1
        first_error = f"{type(error).__name__}: {error}"
        elapsed = max(time.perf_counter() - started, 1e-9)
    latencies.sort()

    def percentile(p: int) -> int:
        return latencies[min(len(latencies) - 1, len(latencies) * p // 100)] if latencies else 0

    sys.stdout.write(orjson.dumps({
        "requests": pages, "items": items, "duration_us": int(elapsed * 1e6), "errors": errors,
        "p50_us": percentile(50), "p99_us": percentile(99), "first_error": first_error,
    }).decode() + "\n")


if __name__ == "__main__":
    main()
