"""Contended transactions: N clients move money between a few accounts with
TransactWriteItems for a few seconds (the workload of tests/api/bank_transfers.py);
prints how many committed, how many were cancelled and why, and any other error.

    python bench/contention.py --url http://127.0.0.1:8000 --threads 8 --accounts 4 --seconds 10

docs/postgres.md (Contended transactions) records its figures on each backend and what causes them.
"""
from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "api"))
import bank_transfers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--accounts", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    table = bank_transfers.setup(args.url, args.accounts)
    outcomes = bank_transfers.run(args.url, table, args.threads, args.accounts, args.seconds)
    kinds = collections.Counter(outcome.kind for outcome in outcomes)
    count = len(outcomes)
    for kind, number in kinds.most_common():
        print(f"{kind:40} {number:7} {100 * number / count:6.1f} %")
    print(f"{'transfers':40} {count:7}   ({count / args.seconds:.0f}/s)")
    alone = sum(not bank_transfers.overlapped(outcome, outcomes)
                for outcome in outcomes if outcome.kind.startswith("cancelled"))
    print(f"cancelled without another transfer of its accounts in flight: {alone}")
    money = bank_transfers.total(args.url, table, args.accounts)
    print(f"money conserved: {money == bank_transfers.START * args.accounts}")


if __name__ == "__main__":
    main()
