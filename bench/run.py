"""Run every workload against every server in one go and report okura's ratios.

    python bench/run.py                       # everything, ~10 s measured per run
    python bench/run.py --quick               # smoke run: short runs, small tables
    python bench/run.py --servers okura-mem,dynalite-mem --only get_item,query
    python bench/run.py --servers okura-disk,okura-pg,okura-pg-2   # SQLite, PostgreSQL 1 and 2 nodes
    python bench/run.py --servers okura-mem --only get_item,put_item --half-peak   # p99 at half of peak
    python bench/run.py --servers okura-mem,dynalite-mem --only update_item --rounds 3   # median of 3

Each workload runs against every server in turn, so its runs are minutes apart: each
server is started for it (pinned to core 0; its first start is timed to the first served
request and measured idle), driven by a load generator on core 1, and stopped. A server
that fails a workload is reported INVALID for it; the run goes on.
With --half-peak each okura server runs each wrk workload a second time, paced to half
of the req/s it just reached, for the latency at that load (issue 7).
With --rounds N every server runs each workload N times, the servers taking turns, and
the report gives each server's median run and the spread: the machine's speed drifts
by tens of percent within an hour, and one run per server can catch okura and a peer at
different speeds.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import sys
import time
from pathlib import Path

from dynamo import Client
from loadgen import Result, Settings, scan, wrk
from report import HalfPeak, Report
from servers import BENCH, BY_NAME as SERVERS, CLIENT_CORE, OKURA, SERVER_CORE, WORK, Running, Server, ensure_wrk
from workloads import BY_NAME as WORKLOADS, DEFAULT, Scale, Workload

SPEED_SECONDS = 3  # each machine-speed probe: 1 s warm-up, then this


def measure(running: Running, workload: Workload, settings: Settings, scale: Scale, wrk_binary: str) -> Result | None:
    """One workload on one server: fresh table, preload, warm-up, measured run, table dropped."""
    fixed = running.server.fixed_reply
    if fixed and workload.script is None:
        return None  # a fixed reply has no LastEvaluatedKey to follow
    client = Client(running.port)
    try:
        if fixed:
            keys = scale.keys  # nothing stored; the scripts still need a key range to draw from
        else:
            started = time.perf_counter()
            client.create_table(workload.table, ("pk", "S"), workload.range_key)
            keys = workload.preload(client, workload.table, scale)
            print(f"    set up in {time.perf_counter() - started:.1f} s", flush=True)
        if workload.script is None:
            return scan(running.ports, workload.table, keys, settings)
        return wrk(wrk_binary, workload.script, running.ports, workload.table, keys,
                   workload.items_per_request, settings, check_bodies=not fixed)
    except Exception as error:  # noqa: BLE001 - a failing server is a result, not a crash
        return Result(problem=f"{type(error).__name__}: {error}")
    finally:
        if not fixed and running.alive():
            try:
                client.delete_table(workload.table)
            except Exception:  # noqa: BLE001 - the result already says what failed
                pass
        client.close()


def at_half_peak(running: Running, workload: Workload, peak: Result | None, settings: Settings, scale: Scale,
                 wrk_binary: str) -> HalfPeak | None:
    """The workload again, its requests paced to half of the peak just measured: peak latency
    is queueing at full load, while issue 7 asks how fast replies are with headroom left.
    None where there is nothing to pace: Scan (not driven by wrk) or a peak run that failed."""
    if workload.script is None or peak is None or not peak.valid:
        return None
    target = peak.requests_per_s / 2
    result = measure(running, workload, dataclasses.replace(settings, rate=target), scale, wrk_binary)
    return HalfPeak(peak=peak, target=target, result=result)


def machine_speed(settings: Settings, scale: Scale, wrk_binary: str) -> float | None:
    """The ceiling server's GetItem req/s over a short run: how fast this shared machine
    is right now (see report.SPEED)."""
    try:
        running = Running(SERVERS["ceiling"])
    except Exception:  # noqa: BLE001 - a failed probe is reported as such
        return None
    try:
        result = measure(running, WORKLOADS["get_item"],
                         dataclasses.replace(settings, warmup=1, duration=SPEED_SECONDS, rate=0.0),
                         scale, wrk_binary)
        return result.requests_per_s if result is not None and result.valid else None
    finally:
        running.stop()


def start(server: Server, report: Report) -> Running | str:
    """Start a server; its first start records its start-up time and idle memory. If it
    does not start, why (also in the report, when it never started)."""
    try:
        running = Running(server)
    except Exception as error:  # noqa: BLE001 - install or start failure: report it, go on
        problem = f"{type(error).__name__}: {error}"
        print(f"    did not start: {problem}", flush=True)
        report.startups.setdefault(server.name, problem)
        return problem
    if server.name not in report.startups:
        report.startups[server.name] = (running.startup_s, running.idle_rss)
        print(f"    first reply after {running.startup_s * 1000:.0f} ms, "
              f"idle RSS {running.idle_rss / 2**20:.1f} MiB", flush=True)
    cores = set().union(*(os.sched_getaffinity(process.pid) for process in running.processes))
    if cores != {SERVER_CORE} and {SERVER_CORE, CLIENT_CORE} <= set(range(os.cpu_count() or 1)):
        print(f"    warning: {server.name} runs on cores {sorted(cores)}, not core {SERVER_CORE}",
              flush=True)
    return running


def bench_workload(workload: Workload, servers: list[Server], settings: Settings, scale: Scale,
                   wrk_binary: str, report: Report, half_peak: bool, rounds: int = 1) -> None:
    """One workload against every server in turn (`rounds` times over), each freshly
    started and stopped after (and the disk's dirty pages flushed): a workload's ratios
    then compare runs minutes apart, not a whole run apart (the machine's speed drifts),
    and no server's leftover work (a compaction, a writeback, a deleted table) falls on
    another's run. A server's report is its median run (see median)."""
    print(f"== {workload.name}", flush=True)
    runs: dict[str, list[Result]] = {}
    for turn in range(rounds):
        for server in servers:
            if server.fixed_reply and workload.script is None:
                continue  # a fixed reply has no LastEvaluatedKey to follow (see measure)
            print(f"  {server.name}" + (f" (round {turn + 1} of {rounds})" if rounds > 1 else ""),
                  flush=True)
            result = run_once(workload, server, settings, scale, wrk_binary, report,
                              half_peak and turn == 0)
            if result is not None:
                runs.setdefault(server.name, []).append(result)
    for name, results in runs.items():
        report.results[_key(workload)][name] = median(results)
        if rounds > 1:
            report.spread[_key(workload)][name] = results


def run_once(workload: Workload, server: Server, settings: Settings, scale: Scale,
             wrk_binary: str, report: Report, half_peak: bool) -> Result | None:
    running = start(server, report)
    if isinstance(running, str):
        return Result(problem=f"server did not start: {running}")
    try:
        result = measure(running, workload, settings, scale, wrk_binary)
        if result is not None and not running.alive():
            result = Result(problem=f"server died (exit {running.exit_codes()}): "
                                    f"{running.log_tail()}")
        if result is not None:
            print(f"    {_said(result)}", flush=True)
        paced = at_half_peak(running, workload, result, settings, scale, wrk_binary) \
            if half_peak and server.name in OKURA else None
        if paced is not None:
            report.half_peak[workload.name][server.name] = paced
            print(f"    half of peak, {paced.target:,.0f} req/s targeted: {_said(paced.result)}",
                  flush=True)
        return result
    finally:
        running.stop()
        os.sync()


def median(results: list[Result]) -> Result:
    """The run of median req/s (the lower of the middle two), or an invalid run: a
    workload that failed once is not rescued by the rounds that passed."""
    invalid = next((result for result in results if not result.valid), None)
    if invalid is not None:
        return invalid
    return sorted(results, key=lambda result: result.requests_per_s)[(len(results) - 1) // 2]


def _said(result: Result) -> str:
    return (f"{result.requests_per_s:,.0f} req/s, {result.items_per_s:,.0f} items/s, "
            f"p50 {result.p50_ms:.2f} ms, p99 {result.p99_ms:.2f} ms"
            + ("" if result.valid else f"  INVALID, {result.errors} errors: {result.problem[:200]}"))


def _key(workload: Workload) -> tuple[str, str]:
    per = "pages; items/s counts returned items" if workload.script is None else \
        f"{workload.items_per_request} item{'s' * (workload.items_per_request > 1)}/request"
    return workload.title, per


def _names(text: str, known: dict, what: str) -> list:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown:
        sys.exit(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(known)})")
    return [known[name] for name in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--servers", default=",".join(
                            name for name in SERVERS if not name.startswith("okura-base-")),
                        help="comma-separated; default: all but okura-base-mem and okura-base-pg "
                             "(okura from the checkout OKURA_BENCH_BASE names, to compare a "
                             "change with what it changes)")
    parser.add_argument("--only", default=",".join(DEFAULT),
                        help="workloads, comma-separated; default: all but put_loaded and "
                             f"delete_item (known: {', '.join(WORKLOADS)})")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1 s warm-up, 2 s measured, 1,000 keys, 2,000 items to scan")
    # wrk counts whole seconds
    parser.add_argument("--warmup", type=int, help="seconds of warm-up per run (default 3; 0: none)")
    parser.add_argument("--duration", type=int, help="measured seconds per run (default 10)")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1, help="wrk threads (all on the load generator's core)")
    parser.add_argument("--keys", type=int, help="preloaded items for GetItem/mix, x10 items for Query (10,000)")
    parser.add_argument("--scan-items", type=int, help="items in the scanned table (default 10,000)")
    parser.add_argument("--scan-limit", type=int, default=1000, help="Limit of each Scan page")
    parser.add_argument("--half-peak", action="store_true",
                        help="okura servers also run each workload but Scan paced to half of its peak req/s "
                             "and report p50/p99 at that rate")
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs per server and workload, servers taking turns; the median run is "
                             "reported, with the spread")
    parser.add_argument("--no-speed", action="store_true",
                        help="skip the machine-speed probe (the ceiling's GetItem rate before each workload)")
    parser.add_argument("--output", type=Path,
                        help="Markdown results (default bench/RESULTS.md; --quick: bench/.work/RESULTS-quick.md)")
    args = parser.parse_args()
    if args.duration is not None and args.duration < 1:
        parser.error("--duration must be at least 1 second")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    servers = _names(args.servers, SERVERS, "server")
    workloads = _names(args.only, WORKLOADS, "workload")
    quick = args.quick
    settings = Settings(
        connections=args.connections, threads=args.threads, scan_limit=args.scan_limit,
        warmup=args.warmup if args.warmup is not None else (1 if quick else 3),
        duration=args.duration if args.duration is not None else (2 if quick else 10),
    )
    scale = Scale(keys=args.keys or (1000 if quick else 10_000),
                  scan_items=args.scan_items or (2000 if quick else 10_000))
    output = args.output or (WORK / "RESULTS-quick.md" if quick else BENCH / "RESULTS.md")

    if {SERVER_CORE, CLIENT_CORE} <= os.sched_getaffinity(0):
        os.sched_setaffinity(0, {CLIENT_CORE})  # setup traffic and reporting stay off the server's core
    else:
        print("warning: fewer than two cores; server and load generator share the CPU", flush=True)
    load_before = os.getloadavg()
    if load_before[0] > 0.5:
        print(f"warning: load average {load_before[0]:.2f} before the run; other work will skew the numbers",
              flush=True)
    WORK.mkdir(exist_ok=True)
    wrk_binary = ensure_wrk()

    report = Report(
        command=shlex.join(["python", "bench/run.py", *sys.argv[1:]]),
        settings=(f"{settings.connections} connections, {settings.threads} wrk thread(s), "
                  f"{settings.warmup:g} s warm-up + {settings.duration:g} s measured per run, "
                  f"{scale.keys:,} preloaded keys, Query over {max(1, scale.keys // 10):,} partitions of 10, "
                  f"Scan of {scale.scan_items:,} items with Limit {settings.scan_limit}"
                  + (f", {args.rounds} rounds (each server's median run)" if args.rounds > 1 else "")),
        servers=[server.name for server in servers],
        okura=[server.name for server in servers if server.name in OKURA],
        load_before=load_before,
    )
    for workload in workloads:
        report.results[_key(workload)] = {}
        report.spread[_key(workload)] = {}
        if args.half_peak and workload.script is not None:
            report.half_peak[workload.name] = {}
    for workload in workloads:
        if not args.no_speed:
            report.speed[f"before {workload.name}"] = machine_speed(settings, scale, wrk_binary)
        bench_workload(workload, servers, settings, scale, wrk_binary, report, args.half_peak,
                       args.rounds)
    if not args.no_speed:
        report.speed["at the end"] = machine_speed(settings, scale, wrk_binary)

    print("\n" + report.text())
    output.write_text(report.markdown())
    print(f"\nwritten to {output}")


if __name__ == "__main__":
    main()
