"""The report as text for a terminal, as JSON, and as Markdown; and the exit status
--fail-on asks for."""
from __future__ import annotations

import json

from okura.advisor.model import SEVERITIES

_COST_COLUMNS = ("billing_mode", "on_demand", "provisioned", "provisioned_reserved", "storage",
                 "indexes", "streams", "pitr", "backups", "replicated_writes", "total")


def failed(report: dict, fail_on: str | None) -> bool:
    """Whether a finding is at least as severe as `fail_on`."""
    if fail_on is None:
        return False
    floor = SEVERITIES.index(fail_on)
    return any(SEVERITIES.index(f["severity"]) >= floor for f in report["findings"])


def _counts(report: dict) -> str:
    counts = {s: sum(f["severity"] == s for f in report["findings"]) for s in SEVERITIES}
    return ", ".join(f"{n} {s}" for s, n in reversed(counts.items()))


def _money(value) -> str:
    return "-" if value is None else value if isinstance(value, str) else f"{value:,.2f}"


def _evidence(evidence: dict) -> str:
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in evidence.items())


def _ordered(report: dict) -> list[dict]:
    return sorted(report["findings"], key=lambda f: (f["table"], -SEVERITIES.index(f["severity"]),
                                                     f["rule"], f["index"] or ""))


def _cost_rows(cost: dict) -> list[list[str]]:
    return [[line["table"], *(_money(line[c]) for c in _COST_COLUMNS)] for line in cost["tables"]]


def _cost_title(cost: dict) -> str:
    return (f"Monthly cost ({cost['currency']}, {cost['region']} prices of {cost['prices_date']}; "
            f"total {_money(cost['total'])})")


def text(report: dict) -> str:
    lines = [f"{len(report['findings'])} findings ({_counts(report)})", ""]
    table = None
    for f in _ordered(report):
        if f["table"] != table:
            table = f["table"]
            lines.append(table)
        where = f" [{f['index']}]" if f["index"] else ""
        lines += [f"  {f['severity'].upper():7} {f['rule']}{where}: {f['message']}",
                  f"          evidence: {_evidence(f['evidence'])}",
                  f"          do: {f['recommendation']}",
                  f"          source: {f['source']}"]
    rows = _cost_rows(report["cost"])
    if rows:
        lines += ["", _cost_title(report["cost"])]
        header = ["table", *_COST_COLUMNS]
        widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
        for row in [header, *rows]:
            lines.append("  " + "  ".join(cell.rjust(w) if i else cell.ljust(w)
                                          for i, (cell, w) in enumerate(zip(row, widths))))
    return "\n".join(lines) + "\n"


def markdown(report: dict) -> str:
    def cell(value: str) -> str:
        return value.replace("|", "\\|")

    lines = ["# Design advice", "", f"{len(report['findings'])} findings ({_counts(report)}).",
             "", "| severity | table | index | rule | finding | evidence | recommendation | source |",
             "|---|---|---|---|---|---|---|---|"]
    for f in _ordered(report):
        lines.append("| " + " | ".join(cell(v) for v in (
            f["severity"], f["table"], f["index"] or "", f["rule"], f["message"],
            _evidence(f["evidence"]), f["recommendation"], f["source"])) + " |")
    rows = _cost_rows(report["cost"])
    if rows:
        lines += ["", f"## {_cost_title(report['cost'])}", "",
                  "| table | " + " | ".join(_COST_COLUMNS) + " |",
                  "|---" * (len(_COST_COLUMNS) + 1) + "|"]
        lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def render(report: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    return markdown(report) if fmt == "markdown" else text(report)
