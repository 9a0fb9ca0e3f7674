"""`okura advise`: the design advisor over a running okura, any DynamoDB endpoint, and
Terraform and CloudFormation files (docs/advisor.md)."""
from __future__ import annotations

import sys

from okura.advisor import advise
from okura.advisor.cost import Rates
from okura.advisor.model import TableView
from okura.advisor.report import failed, render
from okura.advisor.sources import Refused, from_endpoint

DEFAULT_ENDPOINT = "http://127.0.0.1:8000"


def run(endpoint: str | None, aws: bool, terraform: list[str], cloudformation: list[str],
        region: str, sample: int | None, fmt: str, fail_on: str | None,
        access_control: bool, rates: Rates) -> None:
    from okura.advisor import templates

    tables: list[TableView] = []
    try:
        for path in terraform:
            tables += templates.terraform(path)
        for path in cloudformation:
            tables += templates.cloudformation(path)
    except templates.TemplateError as error:
        print(f"okura advise: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    live = aws or endpoint is not None or not (terraform or cloudformation)
    if live:
        try:
            found, control = from_endpoint(None if aws else endpoint or DEFAULT_ENDPOINT,
                                           region, sample)
        except Refused as error:
            print(f"okura advise: {error}", file=sys.stderr)
            raise SystemExit(2) from None
        tables += found
        access_control = access_control or control
    report = advise(tables, rates, region, access_control)
    sys.stdout.write(render(report, fmt))
    if failed(report, fail_on):
        raise SystemExit(1)
