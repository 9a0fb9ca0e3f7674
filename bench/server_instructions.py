"""Instructions per request of a real okura server, counted by callgrind: repeatable
where wall-clock load on this shared machine is not (the same server's rate moves by
10-100 % between runs minutes apart; bench/NOTES.md).

Unlike bench/inprocess.py, this measures the server as it runs: its sockets and
transports, its background tasks, its default settings. The server runs under
`valgrind --tool=callgrind` (--memory); the client sends the requests bench/inprocess.py
builds over 16 keep-alive connections, one per connection at a time. Counters are zeroed
before and dumped after each phase (callgrind_control), so start-up and set-up count
nothing: an idle phase gives the background tasks' instructions per second, which are
taken off the measured phase in proportion to its length (valgrind runs the server ~50×
slower, so a background task weighs ~50× more per request than at full speed).

    python bench/server_instructions.py get                       # this checkout
    python bench/server_instructions.py put --base ../base        # and another, beside it
    python bench/server_instructions.py get -- --throttling off   # this checkout's flags
"""
from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import inprocess  # noqa: E402 - after the path set-up: the requests it builds

CONNECTIONS = 16


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _found(match):
    if match is None:
        raise SystemExit("a reply or profile without the expected line")
    return match.group(1)


def _reply(connection: socket.socket, pending: bytes) -> bytes:
    """Read one whole reply (it must be a 200); the bytes after it."""
    while True:
        end = pending.find(b"\r\n\r\n")
        if end >= 0:
            head = pending[:end]
            length = int(_found(re.search(rb"(?i)content-length: *(\d+)", head)))
            if len(pending) >= end + 4 + length:
                if not head.startswith(b"HTTP/1.1 200"):
                    raise SystemExit(f"bad reply: {pending[:300]!r}")
                return pending[end + 4 + length:]
        chunk = connection.recv(65536)
        if not chunk:
            raise SystemExit("the server closed a connection")
        pending += chunk


class Client:
    def __init__(self, port: int):
        self.connections = [socket.create_connection(("127.0.0.1", port))
                            for _ in range(CONNECTIONS)]
        self.pending = [b""] * CONNECTIONS

    def send(self, raws: list[bytes]) -> None:
        """Up to one request per connection, and their replies."""
        for connection, raw in zip(self.connections, raws):
            connection.sendall(raw)
        for i, connection in enumerate(self.connections[:len(raws)]):
            self.pending[i] = _reply(connection, self.pending[i])

    def run(self, raws: list[bytes]) -> None:
        for first in range(0, len(raws), CONNECTIONS):
            self.send(raws[first:first + CONNECTIONS])


def _counted(out: Path) -> int:
    """Instructions in the newest callgrind dump."""
    dumps = sorted(out.parent.glob(out.name + ".*"), key=lambda path: int(path.suffix[1:]))
    text = dumps[-1].read_text()
    return int(_found(re.search(r"^(?:summary|totals): (\d+)", text, re.M)))


def measure(checkout: Path, operation: str, requests: int, idle: float,
            server_args: list[str]) -> tuple[float, float, float]:
    """(instructions per request, background instructions per second, the measured
    phase's seconds) of `operation` against okura from `checkout`."""
    port = _free_port()
    work = Path(tempfile.mkdtemp(prefix="okura-callgrind-"))
    out = work / "callgrind.out"
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(checkout))
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
         "-m", "okura", "serve", "--memory", "--port", str(port), "--log-level", "warning",
         *server_args], cwd=checkout, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    control = ["callgrind_control"]

    def dump() -> int:
        subprocess.run([*control, "--dump", str(server.pid)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return _counted(out)

    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                if server.poll() is not None:
                    raise SystemExit(f"okura from {checkout} did not start "
                                     f"(flags {server_args})") from None
                time.sleep(0.2)
        client = Client(port)
        per_request, make = inprocess.WORKLOADS[operation]
        for raw in inprocess.setup_requests():
            client.send([raw])
        requests -= requests % CONNECTIONS
        raws = [inprocess.request(*make(i)) for i in range(requests + 4 * CONNECTIONS)]
        client.run(raws[requests:])  # warm-up
        dump()
        time.sleep(idle)
        background = dump() / idle
        started = time.monotonic()
        client.run(raws[:requests])
        seconds = time.monotonic() - started
        measured = dump()
        return (measured - background * seconds) / requests, background, seconds
    finally:
        server.terminate()
        server.wait()
        for path in work.iterdir():
            path.unlink()
        work.rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__)
    parser.add_argument("operation", choices=sorted(inprocess.WORKLOADS))
    parser.add_argument("--base", type=Path, help="another checkout, measured beside this one")
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--idle", type=float, default=5.0,
                        help="seconds of the idle phase that measures background work")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    args.server_args = argv[split + 1:]  # more `okura serve` flags
    checkouts = [BENCH.parent] + ([args.base.resolve()] if args.base else [])
    results = []
    for checkout in checkouts:  # the flags are this checkout's: the base runs as it is
        instructions, background, seconds = measure(
            checkout, args.operation, args.requests, args.idle,
            args.server_args if checkout == checkouts[0] else [])
        results.append(instructions)
        print(f"{checkout}: {args.operation} {instructions:,.0f} instructions per request "
              f"(background {background:,.0f} a second, {seconds:.1f} s measured)")
    if len(results) == 2:
        print(f"this checkout / base: {results[0] / results[1]:.3f}")


if __name__ == "__main__":
    main()
