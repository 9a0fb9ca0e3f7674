"""The design advisor: the DynamoDB design guidelines (../shared/guidelines, cited per
rule) applied to tables as a running okura or DynamoDB describes them, or as Terraform
and CloudFormation declare them, with their observed traffic and a monthly cost estimate
(docs/advisor.md). `okura advise` and GET /okura/advice both call `advise`."""
from __future__ import annotations

from okura.advisor.cost import Rates, estimate
from okura.advisor.model import Finding, TableView
from okura.advisor.rules import run_rules


def advise(tables: list[TableView], rates: Rates, region: str = "us-east-1",
           access_control: bool = False) -> dict:
    """The report (docs/advisor.md's JSON schema) of `tables`."""
    findings: list[Finding] = []
    for table in tables:
        findings += run_rules(table, rates, region, access_control)
    return {"findings": [finding.as_json() for finding in findings],
            "cost": estimate(tables, rates, region)}
