"""The servers under test: how to install, start, time, measure and stop each.

Peers are installed into bench/.work/ (git-ignored) on first use. Each server runs
in its own process group pinned to core 0; run.py and its load generators stay on
core 1, so the load generator never steals the server's core.
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dynamo import headers

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work"
SERVER_CORE, CLIENT_CORE = 0, 1


def pinned(command: list[str], core: int) -> list[str]:
    """Prefix taskset when this machine has the two cores the benchmark separates."""
    if {SERVER_CORE, CLIENT_CORE} <= os.sched_getaffinity(0) and shutil.which("taskset"):
        return ["taskset", "-c", str(core), *command]
    return command


def _run(command: list[str], what: str) -> None:
    print(f"  installing {what}: {' '.join(command)}", flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def ensure_wrk() -> str:
    if not shutil.which("wrk"):
        _run(["apt-get", "install", "-y", "wrk"], "wrk")
    return shutil.which("wrk")


def _dynalite() -> str:
    binary = WORK / "node_modules" / ".bin" / "dynalite"
    if not binary.exists():
        _run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(WORK), "dynalite"], "dynalite")
    return str(binary)


def _moto() -> str:
    venv = WORK / "moto-venv"
    binary = venv / "bin" / "moto_server"
    if not binary.exists():
        _run([sys.executable, "-m", "venv", str(venv)], "a venv for moto")
        _run([str(venv / "bin" / "pip"), "install", "-q", "moto[server]"], "moto")
    return str(binary)


def _okura() -> list[str]:
    script = shutil.which("okura")
    return [script, "serve"] if script else [sys.executable, "-m", "okura", "serve"]


@dataclass(frozen=True)
class Server:
    name: str  # --servers takes these
    # (port, fresh data directory) -> argv; installs the server first if it must.
    command: Callable[[int, Path], list[str]]
    # The ceiling answers every request with one fixed reply: no tables to create.
    fixed_reply: bool = False


SERVERS = [
    Server("okura-disk", lambda port, data: [*_okura(), "--host", "127.0.0.1", "--port", str(port),
                                              "--data-dir", str(data)]),
    Server("okura-mem", lambda port, data: [*_okura(), "--port", str(port), "--memory"]),
    Server("moto", lambda port, data: [_moto(), "-p", str(port)]),
    # Tables become ACTIVE at once instead of after dynalite's simulated 500 ms.
    Server("dynalite-disk", lambda port, data: [_dynalite(), "--port", str(port), "--path", str(data),
                                                 "--createTableMs", "0", "--deleteTableMs", "0"]),
    Server("dynalite-mem", lambda port, data: [_dynalite(), "--port", str(port),
                                                "--createTableMs", "0", "--deleteTableMs", "0"]),
    Server("ceiling", lambda port, data: [sys.executable, str(BENCH / "ceiling.py"), "--port", str(port)],
           fixed_reply=True),
    Server("ceiling-json", lambda port, data: [sys.executable, str(BENCH / "ceiling.py"), "--port", str(port),
                                               "--decode"], fixed_reply=True),
]
BY_NAME = {server.name: server for server in SERVERS}
OKURA = [server.name for server in SERVERS if server.name.startswith("okura")]


class StartError(Exception):
    pass


class Running:
    """A started server: its process group, port, start-up time and idle memory."""

    def __init__(self, server: Server, startup_timeout: float = 60.0) -> None:
        self.server = server
        self.port = _free_port()
        (WORK / "data").mkdir(parents=True, exist_ok=True)
        # unique, so a second bench run at the same time cannot delete this one's data
        self.data = Path(tempfile.mkdtemp(prefix=server.name + "-", dir=WORK / "data"))
        logs = WORK / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        self.log_path = logs / f"{server.name}.log"
        command = pinned(server.command(self.port, self.data), SERVER_CORE)
        with open(self.log_path, "wb") as log:
            started = time.perf_counter()
            self.process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            self._wait_ready(startup_timeout)
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.perf_counter() - started
        time.sleep(1.0)  # settle: the RSS of an idle server, not one mid-start
        self.idle_rss = _tree_rss(self.process.pid)

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, lines: int = 5) -> str:
        text = self.log_path.read_text(errors="replace").strip().splitlines()
        return " | ".join(text[-lines:])

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.data, ignore_errors=True)

    def _wait_ready(self, timeout: float) -> None:
        """Poll with ListTables until the first 200: start-up ends at the first served request."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if not self.alive():
                raise StartError(f"exited with {self.process.returncode}: {self.log_tail()}")
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
            try:
                connection.request("POST", "/", b"{}", headers("ListTables"))
                if connection.getresponse().status == 200:
                    return
            except OSError:
                pass
            finally:
                connection.close()
            time.sleep(0.005)
        raise StartError(f"no reply to ListTables within {timeout:.0f} s: {self.log_tail()}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants (taskset and npm shims exec or fork)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # comm may hold spaces and parentheses: the ppid is the second field after the last ')'
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, ()))
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total
