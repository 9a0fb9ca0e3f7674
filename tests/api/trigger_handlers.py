"""Functions the trigger tests declare in okura.toml (imported by okura's worker
processes, never by pytest). Each records what it was given in $OUT/<table>.jsonl,
one line per invocation, so a test reads back every event a mapping delivered."""
from __future__ import annotations

import json
import os
import sys


def _table(event: dict) -> str:
    records = event.get("Records") or []
    arn = records[0]["eventSourceARN"] if records else event["eventSourceARN"]
    return arn.split(":table/")[1].split("/")[0]


def _record(event: dict) -> None:
    with open(os.path.join(os.environ["OUT"], _table(event) + ".jsonl"), "a") as out:
        out.write(json.dumps(event) + "\n")


def _seen(key: str) -> int:
    """How many times a record was seen before (a counter file per record)."""
    path = os.path.join(os.environ["OUT"], "seen-" + key)
    count = int(open(path).read()) if os.path.exists(path) else 0
    with open(path, "w") as out:
        out.write(str(count + 1))
    return count


def _fails(record: dict) -> bool:
    """A record whose NewImage says `fail` (N: fail its first N deliveries; "always")."""
    fail = record["dynamodb"].get("NewImage", {}).get("fail")
    if fail is None:
        return False
    # (tables are unique to a test, sequence numbers only to a server)
    key = record["eventSourceARN"].split("/")[1] + "-" + record["dynamodb"]["SequenceNumber"]
    return fail.get("S") == "always" or _seen(key) < int(fail.get("N", "0"))


def collect(event, context):
    print(f"collect got {len(event['Records'])} records of {_table(event)}")  # its output
    _record(event)
    return {"ok": context.aws_request_id}


def gated(event, context):
    """Records the event, then holds the call until $OUT/open exists (30 s at most): a
    test kills the server while a batch is surely in flight."""
    import time
    _record(event)
    deadline = time.monotonic() + 30
    while not os.path.exists(os.path.join(os.environ["OUT"], "open")):
        if time.monotonic() > deadline:
            raise TimeoutError("the gate was never opened")
        time.sleep(0.01)


def fail_on_bad(event, context):
    _record(event)
    for record in event["Records"]:
        if _fails(record):
            raise ValueError(f"bad record {record['dynamodb']['SequenceNumber']}")
    return None


def partial(event, context):
    _record(event)
    for record in event["Records"]:
        if _fails(record):
            return {"batchItemFailures": [
                {"itemIdentifier": record["dynamodb"]["SequenceNumber"]}]}
    return {"batchItemFailures": []}


def windowed(event, context):
    _record(event)
    state = dict(event["state"])
    state["count"] = state.get("count", 0) + len(event["Records"])
    return {"state": state}


def big(event, context):
    _record(event)
    print("y" * 100_000)  # a line of output past asyncio's default 64 KiB
    return {"blob": "x" * 200_000}


def sleepy(event, context):
    import time
    time.sleep(60)


def command_main() -> None:
    """The `command` function: the event on stdin, the response on stdout."""
    event = json.load(sys.stdin)
    _record(event)
    print("command saw", len(event["Records"]), file=sys.stderr)
    json.dump({"seen": len(event["Records"])}, sys.stdout)


if __name__ == "__main__":
    command_main()
