"""Drive one workload against one running server and return what was measured.

wrk (with bench/lua/<workload>.lua) or the Scan loop runs in its own process on
the load generator's core. A warm-up run comes first and is thrown away; its keys
differ from the measured run's, so "fresh key" stays fresh. A server of several
nodes gets one load generator per node, run at once, the connections split between
them: their rates add up, and the worst node's percentiles are reported.

With a target rate (run.py --half-peak) each wrk thread paces its connections to its
share of that rate through the delay() of bench/lua/common.lua; the achieved rate is
measured as always, so a target out of reach shows as a lower req/s.
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
    rate: float = 0.0  # requests/s over all load generators; 0: as fast as replies come (peak)


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


def wrk(binary: str, script: str, ports: list[int], table: str, keys: int, items_per_request: int,
        settings: Settings, check_bodies: bool) -> Result:
    """check_bodies: also check what each reply says (the item found, 10 items queried), not only its status."""
    numbers = {}
    connections = max(1, settings.connections // len(ports))
    threads = min(settings.threads, connections)
    thread_rate = settings.rate / len(ports) / threads  # common.lua paces each wrk thread
    for seconds in (settings.warmup, settings.duration):
        if seconds <= 0:
            continue  # no warm-up
        commands = [[
            binary, f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "-s", str(BENCH / "lua" / f"{script}.lua"), f"http://127.0.0.1:{port}/",
            "--", table, uuid.uuid4().hex[:8], str(keys), "1" if check_bodies else "0", f"{thread_rate:.3f}",
        ] for port in ports]
        numbers = _combined([_wrk_summary(output) for output in _outputs(commands, seconds)])
    return Result.measured(numbers, items_per_request)


def scan(ports: list[int], table: str, expect: int, settings: Settings) -> Result:
    commands = [[
        sys.executable, str(BENCH / "scan_client.py"), "--port", str(port), "--table", table,
        "--expect", str(expect), "--limit", str(settings.scan_limit),
        "--warmup", str(settings.warmup), "--duration", str(settings.duration),
    ] for port in ports]
    numbers = _combined([orjson.loads(output) for output in
                         _outputs(commands, settings.warmup + settings.duration)])
    pages = numbers["requests"]
    # pages may be short (a server's own 1 MB cap, the table's last page): count the items returned
    return Result.measured(numbers, numbers["items"] / pages if pages else 0)


def _combined(runs: list[dict]) -> dict:
    """One summary of load generators that ran at once: counts add up, and the duration
    is the one at which the summed requests give the summed rates."""
    if len(runs) == 1:
        return runs[0]
    rate = sum(run["requests"] / run["duration_us"] for run in runs if run["duration_us"])
    requests = sum(run["requests"] for run in runs)
    out = {
        "requests": requests,
        "duration_us": requests / rate if rate else 0,
        "p50_us": max(run["p50_us"] for run in runs),
        "p99_us": max(run["p99_us"] for run in runs),
        "errors": sum(run["errors"] for run in runs),
        "first_error": next((run["first_error"] for run in runs if run.get("first_error")), ""),
    }
    if "items" in runs[0]:
        out["items"] = sum(run["items"] for run in runs)
    return out


def _outputs(commands: list[list[str]], seconds: float) -> list[str]:
    """Run the commands at once on the load generator's core; their outputs."""
    running = [subprocess.Popen(pinned(command, CLIENT_CORE), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for command in commands]
    outputs = []
    for command, process in zip(commands, running):
        try:
            out, err = process.communicate(timeout=seconds + 60)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
        if process.returncode:
            said = (err.strip() + " " + out.strip()).strip()
            raise RuntimeError(f"{' '.join(command)} exited with {process.returncode}: {said[-300:]}")
        outputs.append(out)
    return outputs


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
