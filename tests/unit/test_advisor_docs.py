"""docs/advisor.md catalogues every rule the advisor has, with its severity."""
from __future__ import annotations

import re
from pathlib import Path

from okura.advisor.rules import CATALOGUE

DOC = Path(__file__).parents[2] / "docs" / "advisor.md"


def test_the_catalogue_is_documented():
    rows = re.findall(r"^\| `([a-z-]+)` \| (\w+) \|", DOC.read_text(encoding="utf-8"), re.M)
    assert dict(rows) == {rule.id: rule.severity for rule in CATALOGUE.values()}
