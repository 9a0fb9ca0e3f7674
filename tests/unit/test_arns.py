"""okura/arns.py is the one home of ARNs: it builds and parses them for every partition,
and nothing else in the package writes or takes one apart."""
from __future__ import annotations

import ast
import pathlib
import re

import pytest

from okura import arns

PACKAGE = pathlib.Path(arns.__file__).parent
ACCOUNT = "123456789012"
# (region, its partition): the commercial partition, China's and GovCloud's
PARTITIONS = [("us-east-1", "aws"), ("cn-north-1", "aws-cn"), ("cn-northwest-1", "aws-cn"),
              ("us-gov-west-1", "aws-us-gov"), ("eu-west-1", "aws")]


@pytest.mark.parametrize("region,partition", PARTITIONS)
def test_a_regions_arns_carry_its_partition(region, partition):
    assert arns.partition(region) == partition
    table = arns.table(region, ACCOUNT, "orders")
    assert table == f"arn:{partition}:dynamodb:{region}:{ACCOUNT}:table/orders"
    assert arns.parse_table(table) == (partition, region, ACCOUNT, "orders")
    assert arns.is_local(table, region, ACCOUNT)
    assert not arns.is_local(table, region, "111122223333")
    assert not arns.is_local(table.replace(f"arn:{partition}:", "arn:aws-iso:"), region,
                             ACCOUNT)
    assert arns.region_of(table) == region
    stream = arns.stream(table, "2026-01-01T00:00:00.000")
    assert arns.parse_stream(stream) == (region, "orders", "2026-01-01T00:00:00.000")
    assert arns.index(table, "by_day") == table + "/index/by_day"
    assert arns.without_index(arns.index(table, "by_day")) == table
    backup = arns.backup(table, "01767225600000-0123abcd")
    assert arns.backup_id(backup) == "01767225600000-0123abcd"
    assert arns.job_id(arns.export(table, "01767225600000-89abcdef")) == \
        "01767225600000-89abcdef"
    assert arns.import_(table, "x") == table + "/import/x"
    assert arns.function(region, ACCOUNT, "f") == \
        f"arn:{partition}:lambda:{region}:{ACCOUNT}:function:f"
    assert arns.kms_key("alias/aws/dynamodb", region, ACCOUNT) == \
        f"arn:{partition}:kms:{region}:{ACCOUNT}:alias/aws/dynamodb"
    assert arns.root(region, ACCOUNT) == f"arn:{partition}:iam::{ACCOUNT}:root"
    assert arns.root_account(arns.root(region, ACCOUNT)) == ACCOUNT


def test_what_is_not_an_arn_of_its_kind_parses_to_none():
    assert arns.parse_table("arn:aws:dynamodb:us-east-1:123:table/orders") is None  # account
    assert arns.parse_table("arn:aws:dynamodb:us-east-1:123456789012:table/ab") is None
    assert arns.parse_table("orders") is None
    assert arns.parse_stream("arn:aws:dynamodb:us-east-1:123456789012:table/t") is None
    assert arns.parse_stream("arn:aws:kinesis:us-east-1:1:table/t/stream/x") is None
    assert arns.backup_id("arn:aws:dynamodb:us-east-1:123456789012:table/t") is None
    assert arns.parse_kinesis_stream("arn:aws-cn:kinesis:cn-north-1:1:stream/s") == (
        "cn-north-1", "s")
    assert arns.parse_kinesis_stream("arn:aws:kinesis:us-east-1:1:stream/a/b") is None
    assert arns.root_account("arn:root") is None


# What writes or takes apart an ARN: its prefix, a DynamoDB resource path, the other
# services' resource types okura names
_MARKERS = re.compile(r"(?<![a-z])arn:|table/|/index/|/stream/|/backup/|/export/|/import/"
                      r"|:function:|event-source-mapping:|log-group:|assumed-role/|:root\b")
# An error message that quotes the prefix (DynamoDB's words), not an ARN
_QUOTED = "ARNs must start with 'arn:': "


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}


def _offences(path: pathlib.Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                id(node) not in docs and _MARKERS.search(node.value.replace(_QUOTED, "")):
            found.append(f"{path}:{node.lineno}: {node.value!r}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("split", "rsplit") and node.args and \
                isinstance(node.args[0], ast.Constant) and node.args[0].value == ":":
            found.append(f"{path}:{node.lineno}: split(':')")
    return found


def test_nothing_but_arns_writes_or_parses_an_arn():
    offences = [offence for path in sorted(PACKAGE.rglob("*.py")) if path != PACKAGE / "arns.py"
                for offence in _offences(path)]
    assert offences == []


def test_the_check_sees_what_it_forbids(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""A docstring may say arn:aws:dynamodb:REGION:ACCOUNT:table/NAME."""\n'
                      'A = f"arn:aws:lambda:{1}:{2}:function:{3}"\n'
                      'B = "x".split(":")[3]\n'
                      'C = "t" + "/stream/" + "l"\n'
                      'D = "auth warn: would deny"\n')
    lines = {offence.split(": ", 1)[0].rsplit(":", 1)[1] for offence in _offences(sample)}
    assert sorted(lines) == ["2", "3", "4"]
