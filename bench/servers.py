"""The servers under test: how to install, start, time, measure and stop each.

Peers are installed into bench/.work/ (git-ignored) on first use. Each server runs
in its own process group pinned to core 0; run.py and its load generators stay on
core 1, so the load generator never steals the server's core.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dynamo import headers

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work"
SERVER_CORE, CLIENT_CORE = 0, 1
# A PostgreSQL superuser's URL: the okura-pg servers get a fresh database created through it.
POSTGRES_ADMIN = os.environ.get("OKURA_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


# The cores this process may use, read at import: run.py then pins itself to the client
# core, and asking again after that would find one core and pin nothing (servers would
# then share the load generator's core, as they did before this was read here).
_CORES = frozenset(os.sched_getaffinity(0))


def pinned(command: list[str], core: int) -> list[str]:
    """Prefix taskset when this machine has the two cores the benchmark separates."""
    if {SERVER_CORE, CLIENT_CORE} <= _CORES and shutil.which("taskset"):
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
    # `-m` from this checkout (the servers' cwd), never an `okura` script on PATH: that one
    # runs wherever okura is installed (editable from another checkout, or a release)
    return [sys.executable, "-m", "okura", "serve"]


def _okura_base() -> list[str]:
    """okura from another checkout (OKURA_BENCH_BASE, e.g. a `git worktree` of the commit
    before a change), run by this venv's Python: before and after in one run."""
    base = os.environ.get("OKURA_BENCH_BASE")
    if not base:
        raise StartError("okura-base-mem and okura-base-pg need OKURA_BENCH_BASE: a checkout of the okura to compare")
    # -P: not the working directory (this checkout) ahead of PYTHONPATH
    return ["env", f"PYTHONPATH={Path(base).resolve()}", sys.executable, "-P", "-m", "okura", "serve"]


@dataclass(frozen=True)
class Server:
    name: str  # --servers takes these
    # (port, fresh data directory) -> argv; installs the server first if it must.
    command: Callable[[int, Path], list[str]]
    # The ceiling answers every request with one fixed reply: no tables to create.
    fixed_reply: bool = False
    # okura on PostgreSQL: each run gets a fresh database, passed as --postgres to
    # every one of `nodes` processes (all pinned to the server core, the database not).
    postgres: bool = False
    nodes: int = 1


SERVERS = [
    Server("okura-disk", lambda port, data: [*_okura(), "--host", "127.0.0.1", "--port", str(port),
                                              "--data-dir", str(data)]),
    Server("okura-mem", lambda port, data: [*_okura(), "--port", str(port), "--memory"]),
    Server("okura-base-mem", lambda port, data: [*_okura_base(), "--port", str(port), "--memory"]),
    # throttling's cost: its gate off, and enforcing (with OKURA_BENCH_PROVISIONED, tables
    # the load stays within)
    Server("okura-off-mem", lambda port, data: [*_okura(), "--port", str(port), "--memory",
                                                 "--throttling", "off"]),
    Server("okura-enforce-mem", lambda port, data: [*_okura(), "--port", str(port), "--memory",
                                                     "--throttling", "enforce"]),
    Server("okura-pg", lambda port, data: [*_okura(), "--port", str(port)], postgres=True),
    Server("okura-base-pg", lambda port, data: [*_okura_base(), "--port", str(port)], postgres=True),
    Server("okura-pg-2", lambda port, data: [*_okura(), "--port", str(port)], postgres=True, nodes=2),
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
    """A started server (one or more nodes): their processes, ports, start-up time and
    idle memory (summed over the nodes)."""

    def __init__(self, server: Server, startup_timeout: float = 60.0) -> None:
        self.server = server
        (WORK / "data").mkdir(parents=True, exist_ok=True)
        # unique, so a second bench run at the same time cannot delete this one's data
        self.data = Path(tempfile.mkdtemp(prefix=server.name + "-", dir=WORK / "data"))
        logs = WORK / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        self.log_path = logs / f"{server.name}.log"
        self.database = _create_database() if server.postgres else None
        self.ports: list[int] = []
        self.processes: list[subprocess.Popen] = []
        try:
            # The commands first: building one installs its server on first use, which
            # start-up time must not count.
            ports = [_free_port() for _ in range(server.nodes)]
            commands = [server.command(port, self.data) for port in ports]
            started = time.perf_counter()
            for port, command in zip(ports, commands):
                self._start_node(port, command, startup_timeout)
            self.startup_s = time.perf_counter() - started
        except BaseException:
            self.stop()
            raise
        time.sleep(1.0)  # settle: the RSS of an idle server, not one mid-start
        self.idle_rss = sum(_tree_rss(process.pid) for process in self.processes)

    @property
    def port(self) -> int:
        """The first node's port: setup traffic goes there."""
        return self.ports[0]

    def _start_node(self, port: int, command: list[str], timeout: float) -> None:
        if self.database is not None:
            command += ["--postgres", self.database[1]]
        with open(self.log_path, "ab") as log:
            self.processes.append(subprocess.Popen(
                pinned(command, SERVER_CORE), cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True))
        self.ports.append(port)
        self._wait_ready(port, timeout)

    def alive(self) -> bool:
        return all(process.poll() is None for process in self.processes)

    def exit_codes(self) -> list[int | None]:
        return [process.returncode for process in self.processes]

    def log_tail(self, lines: int = 5) -> str:
        text = self.log_path.read_text(errors="replace").strip().splitlines()
        return " | ".join(text[-lines:])

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        self.processes = []
        shutil.rmtree(self.data, ignore_errors=True)
        if self.database is not None:
            _drop_database(self.database[0])
            self.database = None

    def _wait_ready(self, port: int, timeout: float) -> None:
        """Poll with ListTables until the first 200: start-up ends at the first served request."""
        process = self.processes[-1]
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if process.poll() is not None:
                raise StartError(f"exited with {process.returncode}: {self.log_tail()}")
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
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


async def _admin_execute(statement: str) -> None:
    import asyncpg  # only the okura-pg servers need it

    connection = await asyncpg.connect(POSTGRES_ADMIN, timeout=5)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def _create_database() -> tuple[str, str]:
    """(name, URL) of a fresh PostgreSQL database on the server of POSTGRES_ADMIN."""
    name = f"okura_bench_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(_admin_execute(f'CREATE DATABASE "{name}"'))
    except Exception as error:  # noqa: BLE001 - say which server and why
        raise StartError(f"no PostgreSQL at {POSTGRES_ADMIN} (OKURA_BENCH_POSTGRES): {error}") from error
    return name, POSTGRES_ADMIN.rsplit("/", 1)[0] + "/" + name


def _drop_database(name: str) -> None:
    asyncio.run(_admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


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
