"""Drive one workload against one running server and return what was measured.

wrk (with bench/lua/<workload>.lua) or the Scan loop runs in its own process on
the load generator's core. A warm-up run comes first and is thrown away; its keys
differ from the measured run's, so "fresh key" stays fresh.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from dataclasses import dataclass

import orjson

from servers import BENCH, CLIENT_CORE, pinned


@dataclass(frozen=True)
class Settings:
    connections: int
    threads: int
    warmup: int  # seconds: wrk counts whole seconds
    duration: int
    scan_limit: int


@dataclass(frozen=True)
class Result:
    requests_per_s: float = 0.0
    items_per_s: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    errors: int = 0
    problem: str = ""  # why the run is invalid: the first bad reply, a crash, a failed setup

    @property
    def valid(self) -> bool:
        return not self.problem and self.errors == 0 and self.requests_per_s > 0

    @classmethod
    def measured(cls, numbers: dict, items_per_request: float) -> Result:
        seconds = numbers["duration_us"] / 1e6
        rate = numbers["requests"] / seconds if seconds else 0.0
        return cls(
            requests_per_s=rate,
            items_per_s=rate * items_per_request,
            p50_ms=numbers["p50_us"] / 1000,
            p99_ms=numbers["p99_us"] / 1000,
            errors=numbers["errors"],
            problem=numbers["first_error"] or ("no request completed" if not numbers["requests"] else ""),
        )


def wrk(binary: str, script: str, port: int, table: str, keys: int, items_per_request: int,
        settings: Settings, check_bodies: bool) -> Result:
    """check_bodies: also check what each reply says (the item found, 10 items queried), not only its status."""
    numbers = {}
    for seconds in (settings.warmup, settings.duration):
        if seconds <= 0:
            continue  # no warm-up
        command = [
            binary, f"-t{settings.threads}", f"-c{settings.connections}", f"-d{seconds}s", "--timeout", "10s", "-s", str(BENCH / "lua" / f"{script}.lua"), f"http://127.0.0.1:{port}/",
            "--", table, uuid.uuid4().hex[:8], str(keys), "1" if check_bodies else "0",
        ]
        numbers = _wrk_summary(_output(pinned(command, CLIENT_CORE), seconds))
    return Result.measured(numbers, items_per_request)


def scan(port: int, table: str, expect: int, settings: Settings) -> Result:
    command = [
        sys.executable, str(BENCH / "scan_client.py"), "--port", str(port), "--table", table,
        "--expect", str(expect), "--limit", str(settings.scan_limit),
        "--warmup", str(settings.warmup), "--duration", str(settings.duration),
    ]
    numbers = orjson.loads(_output(pinned(command, CLIENT_CORE), settings.warmup + settings.duration))
    pages = numbers["requests"]
    # pages may be short (a server's own 1 MB cap, the table's last page): count the items returned
    return Result.measured(numbers, numbers["items"] / pages if pages else 0)


def _output(command: list[str], seconds: float) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    if done.returncode:
        said = (done.stderr.strip() + " " + done.stdout.strip()).strip()
        raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}: {said[-300:]}")
    return done.stdout


def _wrk_summary(output: str) -> dict:
    """The BENCH lines written by done() in bench/lua/common.lua."""
    numbers: dict = {}
    for line in output.splitlines():
        if line.startswith("BENCH "):
            _, key, *value = line.split(" ", 2)
            text = value[0] if value else ""
            numbers[key] = text.strip() if key == "first_error" else int(text)
    if "requests" not in numbers:
        raise RuntimeError(f"wrk printed no summary: {output.strip()[-300:]}")
    return numbers
