"""Turn measurements into tables: aligned text for the terminal, Markdown for RESULTS.md.

Both renderings come from the same rows, so the terminal and the file never disagree.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
from dataclasses import dataclass, field

from loadgen import Result
from servers import REPO, WORK

Rows = list[list[str]]


@dataclass(frozen=True)
class HalfPeak:
    """A workload paced to half of its peak req/s (run.py --half-peak)."""
    peak: Result
    target: float  # requests/s asked of wrk: half of peak.requests_per_s
    result: Result


HALF_PEAK = ("Latency at half of peak throughput (issue 7: p99 under 2 ms)",
             "okura only; the peak run's connections, warm-up and duration, each wrk thread pacing "
             "its requests on a Poisson schedule (Lua delay(), whole milliseconds) to half of the peak "
             "req/s beside it (with rounds: the first round's); achieved = measured req/s and its "
             "share of the target; latency counts from each request's send, not its scheduled time "
             "(bench/README.md)")


SPEED = ("Machine speed during the run",
         "the ceiling server's GetItem rate over a few seconds, measured before each workload "
         "and at the end: its code never changes, so its rate moves only with the machine. "
         "Each workload runs against every server in turn, so its ratios compare runs minutes "
         "apart; a rate that moved between workloads moves okura's numbers against other "
         "days' results more than its ratios within a workload")


@dataclass
class Report:
    command: str
    settings: str
    servers: list[str]
    okura: list[str]  # the okura variants that ran: one ratio column each
    load_before: tuple[float, float, float]  # other work on the machine skews every number
    startups: dict[str, tuple[float, int] | str] = field(default_factory=dict)  # name -> (s, bytes) or why not
    # (workload title, items note) -> server -> Result, or None where the workload does not apply
    results: dict[tuple[str, str], dict[str, Result | None]] = field(default_factory=dict)
    # with --rounds: (workload title, items note) -> server -> every run, in order
    spread: dict[tuple[str, str], dict[str, list[Result]]] = field(default_factory=dict)
    # workload name -> okura server -> its paced run; empty without --half-peak
    half_peak: dict[str, dict[str, HalfPeak]] = field(default_factory=dict)
    # when (before which workload, or at the end) -> the ceiling's GetItem req/s (None: failed)
    speed: dict[str, float | None] = field(default_factory=dict)

    def startup_rows(self) -> Rows:
        rows = [["server", "start → first reply", "idle RSS"]]
        for name in self.servers:
            startup = self.startups.get(name, "not run")
            if isinstance(startup, str):
                rows.append([name, f"did not start: {startup[:200]}", ""])
            else:
                rows.append([name, f"{startup[0] * 1000:,.0f} ms", f"{startup[1] / 2**20:,.1f} MiB"])
        return rows

    def workload_rows(self, results: dict[str, Result | None],
                      spread: dict[str, list[Result]] | None = None) -> Rows:
        rows = [["server", "req/s", "items/s", "p50 ms", "p99 ms", *(f"{name} ÷" for name in self.okura)]
                + (["each round's req/s"] if spread else [])]
        for name in self.servers:
            result = results.get(name)
            if result is None:
                rows.append([name, "n/a"])
            elif not result.valid:
                errors = f" ({result.errors:,} errors)" if result.errors else ""
                rows.append([name, f"INVALID{errors}: {(result.problem or 'no request completed')[:200]}"])
            else:
                rows.append([
                    name, f"{result.requests_per_s:,.0f}", f"{result.items_per_s:,.0f}",
                    f"{result.p50_ms:.2f}", f"{result.p99_ms:.2f}",
                    *("" if okura == name else _ratio(results.get(okura), result) for okura in self.okura),
                    *([" / ".join(f"{run.requests_per_s:,.0f}" for run in spread.get(name, []))]
                      if spread else []),
                ])
        return rows

    def half_peak_rows(self) -> Rows:
        rows = [["workload", "server", "peak req/s", "peak p99 ms", "target req/s", "achieved req/s",
                 "p50 ms", "p99 ms"]]
        for workload, paced in self.half_peak.items():
            for name in self.servers:
                if name not in paced:
                    continue
                run = paced[name]
                start = [workload, name, f"{run.peak.requests_per_s:,.0f}", f"{run.peak.p99_ms:.2f}",
                         f"{run.target:,.0f}"]
                result = run.result
                if not result.valid:
                    errors = f" ({result.errors:,} errors)" if result.errors else ""
                    rows.append(start + [f"INVALID{errors}: {(result.problem or 'no request completed')[:120]}",
                                         "–", "–"])
                else:
                    rows.append(start + [f"{result.requests_per_s:,.0f} ({result.requests_per_s / run.target:.0%})",
                                         f"{result.p50_ms:.2f}", f"{result.p99_ms:.2f}"])
        return rows

    def speed_rows(self) -> Rows:
        rows = [["measured", "ceiling GetItem req/s", "of the first"]]
        first = next(iter(self.speed.values()), None)
        for when, rate in self.speed.items():
            if rate is None:
                rows.append([when, "probe failed"])
            else:
                rows.append([when, f"{rate:,.0f}", f"{rate / first:.0%}" if first else "–"])
        return rows

    def text(self) -> str:
        parts = ["Start-up and idle memory", _aligned(self.startup_rows())]
        if self.speed:
            parts += [f"{SPEED[0]}\n{SPEED[1]}", _aligned(self.speed_rows())]
        for key, results in self.results.items():
            parts += [f"{key[0]} ({key[1]})", _aligned(self.workload_rows(results, self.spread.get(key)))]
        if self.half_peak:
            parts += [f"{HALF_PEAK[0]}\n{HALF_PEAK[1]}", _aligned(self.half_peak_rows())]
        parts.append("Ratio columns: that okura's req/s ÷ this server's req/s (above 1: okura is faster).")
        return "\n\n".join(parts)

    def markdown(self) -> str:
        parts = [
            "# okura benchmark results",
            "Written by `python bench/run.py`; see bench/README.md. Benchmarks report, they never fail CI.",
            "## Machine\n" + "\n".join(f"- {key}: {value}" for key, value in machine().items())
            + "\n- load average before the run: " + " ".join(f"{load:.2f}" for load in self.load_before),
            f"## Run\n- command: `{self.command}`\n- {self.settings}\n"
            "- server pinned to core 0, load generator to core 1 (taskset)\n"
            "- ratio columns: that okura's req/s ÷ this server's req/s (above 1: okura is faster)\n"
            "- a run with any error reply is INVALID and gets no numbers\n"
            "- okura-pg: okura on PostgreSQL, a fresh database per run; okura-pg-2: two okura nodes "
            "over one database (both on core 0), one load generator per node with half the "
            "connections each, rates summed, the worse node's percentiles; PostgreSQL itself is "
            "not pinned (it uses both cores)",
            "## Start-up and idle memory\n" + _markdown(self.startup_rows()),
        ]
        if self.speed:
            parts.append(f"## {SPEED[0]}\n{SPEED[1]}.\n\n" + _markdown(self.speed_rows()))
        for key, results in self.results.items():
            parts.append(f"## {key[0]} ({key[1]})\n"
                         + _markdown(self.workload_rows(results, self.spread.get(key))))
        if self.half_peak:
            parts.append(f"## {HALF_PEAK[0]}\n{HALF_PEAK[1]}.\n\n" + _markdown(self.half_peak_rows()))
        return "\n\n".join(parts) + "\n"


def _ratio(okura: Result | None, other: Result) -> str:
    if okura is None or not okura.valid:
        return "–"
    return f"{okura.requests_per_s / other.requests_per_s:.2f}×"


def _aligned(rows: Rows) -> str:
    full = [row for row in rows if len(row) > 2]
    widths = [max(len(row[i]) for row in (rows if i == 0 else full)) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        if len(row) <= 2:  # a status spanning the numeric columns
            lines.append(f"{row[0]:<{widths[0]}}  {row[1] if len(row) > 1 else ''}")
        else:
            lines.append("  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths))
            ).rstrip())
    return "\n".join(lines)


def _markdown(rows: Rows) -> str:
    width = len(rows[0])
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(["---"] + ["---:"] * (width - 1)) + "|"]
    for row in rows[1:]:
        cells = [cell.replace("|", "\\|") for cell in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> dict[str, str]:
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
               platform.processor())
    return {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "nproc": str(os.cpu_count()),
        "CPU": cpu,
        "memory": _meminfo(),
        "kernel": platform.release(),
        "Python": platform.python_version(),
        "okura commit": _command(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]) or "uncommitted",
        "moto": _command([str(WORK / "moto-venv" / "bin" / "python"), "-c", "import moto; print(moto.__version__)"]),
        "dynalite": _package_version(WORK / "node_modules" / "dynalite" / "package.json"),
        "node": _command(["node", "--version"]),
        "wrk": (_command(["wrk", "-v"]) or "").split(" [")[0],
        "PostgreSQL (client)": _command(["psql", "--version"]) or "not installed",
    }


def _meminfo() -> str:
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    return "?"


def _command(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except OSError:
        return ""
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if lines and done.returncode in (0, 1) else ""


def _package_version(path) -> str:
    try:
        return json.loads(path.read_text())["version"]
    except OSError:
        return "not installed"
