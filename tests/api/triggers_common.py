"""What the trigger tests share: an okura.toml declaring the functions of
trigger_handlers.py, reading back what they recorded, and waiting for delivery."""
from __future__ import annotations

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HANDLERS = ("collect", "gated", "fail_on_bad", "partial", "windowed", "sleepy", "big")


def config(tmp_path, out: str, extra: str = "") -> str:
    """The path of an okura.toml declaring the test functions, recording into `out`."""
    lines = []
    for name in HANDLERS:
        timeout = 0.2 if name == "sleepy" else 10
        lines += [f"[functions.{name}]", f'handler = "trigger_handlers:{name}"',
                  f'code = "{HERE}"', f"timeout = {timeout}", f'environment = {{OUT = "{out}"}}',
                  ""]
    lines += ["[functions.command]",
              f'command = "{sys.executable} {os.path.join(HERE, "trigger_handlers.py")}"',
              f'environment = {{OUT = "{out}"}}', "timeout = 10", ""]
    path = tmp_path / "okura.toml"
    path.write_text("\n".join(lines) + extra)
    return str(path)


def events(out: str, table: str) -> list[dict]:
    path = os.path.join(out, table + ".jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.endswith("\n")]


def keys_delivered(out: str, table: str) -> list[str]:
    return [r["dynamodb"]["Keys"]["pk"]["S"] for e in events(out, table) for r in e["Records"]]


def failure_files(directory: str) -> list[str]:
    """The failure records an on-failure destination directory holds (whole ones only)."""
    if not os.path.isdir(directory):
        return []
    return sorted(name for name in os.listdir(directory) if name.endswith(".json"))


def wait_for(condition, timeout: float = 15.0, what: str = "delivery"):
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what} did not happen in time"
        time.sleep(0.02)


def put_many(ddb, table: str, items: list[dict]) -> None:
    for start in range(0, len(items), 25):
        ddb.batch_write_item(RequestItems={table: [
            {"PutRequest": {"Item": item}} for item in items[start:start + 25]]})
