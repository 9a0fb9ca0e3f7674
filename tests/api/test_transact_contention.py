"""Contended TransactWriteItems on every backend: never a 500, money conserved, and a
transfer cancelled only while another transfer of one of its accounts was in flight
(docs/postgres.md, Contended transactions)."""
from __future__ import annotations

import collections

import bank_transfers

THREADS, ACCOUNTS, SECONDS = 6, 4, 2.0


def test_contended_transfers_conflict_only_where_they_overlap(server, request):
    table = bank_transfers.setup(server.url, ACCOUNTS)
    outcomes = bank_transfers.run(server.url, table, THREADS, ACCOUNTS, SECONDS)
    kinds = collections.Counter(outcome.kind for outcome in outcomes)
    assert set(kinds) <= {"ok", "cancelled: TransactionConflict"}, kinds
    assert bank_transfers.total(server.url, table, ACCOUNTS) == bank_transfers.START * ACCOUNTS
    cancelled = [outcome for outcome in outcomes if outcome.kind != "ok"]
    if request.node.callspec.params["server"] == "postgres":
        # transactions in flight together hold their items (row locks) until COMMIT
        assert kinds["ok"] >= len(outcomes) / 10, kinds
        assert all(bank_transfers.overlapped(outcome, outcomes) for outcome in cancelled)
    else:
        # one process runs each transaction whole: two are never in flight at once
        assert not cancelled, kinds
