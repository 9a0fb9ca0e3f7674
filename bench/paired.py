"""Two checkouts' in-process CPU time per request, measured at the same time: each pair
runs bench/inprocess.py in both, one pinned to each core (they swap cores every pair), so
that whatever else the machine does falls on both alike. The steadiest comparison this
shared machine allows (bench/NOTES.md, "How to measure").

    python bench/paired.py /work/base query                 # this checkout against another
    python bench/paired.py /work/base put --pairs 10 -- --provisioned
    python bench/paired.py . put --this="--throttling enforce" -- --provisioned   # the gate

Prints each side's minimum and median over the pairs (each run's own figure is the
minimum of its 8 slices), and the ratios of both. Read the medians: identical code on both
sides reads 0.99-1.01 in medians over 40 pairs, but 0.97 in minima (bench/NOTES.md,
"How to measure").
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _run(checkout: Path, core: int, operation: str, extra: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        ["taskset", "-c", str(core), sys.executable, "-P", "bench/inprocess.py", operation,
         "--memory", *extra], cwd=checkout, stdout=subprocess.PIPE, text=True)


def _figure(process: subprocess.Popen) -> float:
    out, _ = process.communicate()
    if process.returncode:
        raise SystemExit(f"bench/inprocess.py failed: {out}")
    return float(out.split()[2])  # "query (memory): 36.2 µs/request minimum, ..."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__)
    parser.add_argument("other", type=Path, help="the checkout to compare with")
    parser.add_argument("operation", help="a bench/inprocess.py workload (get, put, ...)")
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--this", default="", help="bench/inprocess.py options for this "
                        "checkout's runs only (compare two settings of one checkout)")
    # after --: bench/inprocess.py's options, for both checkouts' runs
    args, extra = parser.parse_known_args()
    extra = [arg for arg in extra if arg != "--"]
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("paired runs need two cores")
    sides: dict[str, list[float]] = {"this": [], "other": []}
    for pair in range(args.pairs):
        this = _run(HERE, pair % 2, args.operation, extra + args.this.split())
        other = _run(args.other.resolve(), 1 - pair % 2, args.operation, extra)
        sides["this"].append(_figure(this))
        sides["other"].append(_figure(other))
    for name, figures in sides.items():
        print(f"{name:5} {args.operation}: minimum {min(figures):.1f} µs, median "
              f"{statistics.median(figures):.1f} ({' '.join(f'{f:.1f}' for f in figures)})")
    this, other = sides["this"], sides["other"]
    print(f"this / other: medians {statistics.median(this) / statistics.median(other):.3f}, "
          f"minima {min(this) / min(other):.3f}")


if __name__ == "__main__":
    main()
