"""The AWS CLI (v1, from PyPI: the test extra) against okura: README's quick start
verbatim, then a script of create / put / query / scan with pagination / a global
secondary index / delete, with the CLI's shorthand syntax, waiters and paginator.
Skipped when awscli is not installed, a failure with OKURA_REQUIRE_TOOLS=1."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from clients_common import endpoint  # noqa: F401 - a fixture
from conftest import imported

imported("awscli", "the AWS CLI (pip install awscli) is not installed")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TABLE = "cli-orders"


def clean_environment(home) -> dict:
    """No AWS settings or credentials but what a command sets: a fresh machine's."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    environment.update(HOME=str(home), AWS_CONFIG_FILE=str(home / "none"),
                       AWS_SHARED_CREDENTIALS_FILE=str(home / "none"))
    environment["PATH"] = os.path.dirname(sys.executable) + os.pathsep + environment["PATH"]
    return environment


def test_readme_quick_start_works_verbatim(endpoint, tmp_path):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    shell = next(block for block in re.findall(r"```sh\n(.*?)```", readme, re.S)
                 if "aws dynamodb" in block)
    commands = [line for line in shell.splitlines() if not line.startswith("pip install")]
    script = "set -e\n" + "\n".join(commands).replace("http://127.0.0.1:8000", endpoint)
    done = subprocess.run(["bash", "-c", script], env=clean_environment(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "TableNames" in json.loads(done.stdout)
    python = re.search(r"```python\n(import boto3\n.*?)```", readme, re.S).group(1)
    names: dict = {}
    exec(python.replace("http://127.0.0.1:8000", endpoint), names)
    assert "TableNames" in names["ddb"].list_tables()


def test_a_script_of_the_aws_cli(endpoint, tmp_path):
    at = f"--endpoint-url {endpoint} --region us-east-1 --output json"
    items = " ".join(
        f'{{PutRequest={{Item={{pk={{S=c{n % 3}}},sk={{N={n}}},status={{S={"open" if n % 2 else "shipped"}}}}}}}}}'
        for n in range(12))
    script = [
        f"dynamodb create-table --table-name {TABLE} {at} --billing-mode PAY_PER_REQUEST "
        "--attribute-definitions AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=N "
        "AttributeName=status,AttributeType=S "
        "--key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE "
        "--global-secondary-indexes "
        "'IndexName=by-status,KeySchema=[{AttributeName=status,KeyType=HASH}],"
        "Projection={ProjectionType=KEYS_ONLY}'",
        f"dynamodb wait table-exists --table-name {TABLE} {at}",
        f"dynamodb batch-write-item {at} --request-items '{TABLE}=[{items.replace(' ', ',')}]'",
        f"dynamodb put-item --table-name {TABLE} {at} --return-consumed-capacity TOTAL "
        "--item '{\"pk\": {\"S\": \"c0\"}, \"sk\": {\"N\": \"100\"}, \"status\": {\"S\": \"open\"}}'",
        f"dynamodb query --table-name {TABLE} {at} --key-condition-expression 'pk = :p AND sk > :s' "
        "--expression-attribute-values '{\":p\": {\"S\": \"c0\"}, \":s\": {\"N\": \"3\"}}' "
        "--no-scan-index-forward",
        f"dynamodb scan --table-name {TABLE} {at} --page-size 4",
        f"dynamodb scan --table-name {TABLE} {at} --max-items 5 --page-size 3",
        f"dynamodb query --table-name {TABLE} {at} --index-name by-status "
        "--key-condition-expression '#s = :s' --expression-attribute-names '{\"#s\": \"status\"}' "
        "--expression-attribute-values '{\":s\": {\"S\": \"open\"}}' --select COUNT",
        f"dynamodb delete-item --table-name {TABLE} {at} --key 'pk={{S=c0}},sk={{N=100}}' "
        "--condition-expression 'attribute_exists(pk)' --return-values ALL_OLD",
        f"dynamodb delete-item --table-name {TABLE} {at} --key 'pk={{S=c0}},sk={{N=100}}' "
        "--condition-expression 'attribute_exists(pk)'",
        f"dynamodb delete-table --table-name {TABLE} {at}",
        f"dynamodb wait table-not-exists --table-name {TABLE} {at}",
        f"dynamodb list-tables {at}",
    ]
    environment = clean_environment(tmp_path)
    environment.update(AWS_ACCESS_KEY_ID="any", AWS_SECRET_ACCESS_KEY="any")
    done = subprocess.run([sys.executable, os.path.join(HERE, "aws_cli_runner.py")],
                          input=json.dumps(script), env=environment, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    (created, waited, batch, put, query, scan, first_page, by_status, deleted, again,
     dropped, gone, listed) = results
    for result in results[:9] + results[10:]:
        assert result["rc"] == 0, result
    assert json.loads(created["out"])["TableDescription"]["GlobalSecondaryIndexes"][0][
        "IndexName"] == "by-status"
    assert json.loads(batch["out"])["UnprocessedItems"] == {}
    # one unit for the table, one for the index's entry
    assert json.loads(put["out"])["ConsumedCapacity"] == {"TableName": TABLE,
                                                          "CapacityUnits": 2.0}
    assert [item["sk"]["N"] for item in json.loads(query["out"])["Items"]] == [
        "100", "9", "6"]
    whole = json.loads(scan["out"])  # the CLI followed LastEvaluatedKey page after page
    assert (whole["Count"], len(whole["Items"])) == (13, 13)
    page = json.loads(first_page["out"])
    assert len(page["Items"]) == 5 and "NextToken" in page
    assert json.loads(by_status["out"])["Count"] == 7
    assert json.loads(deleted["out"])["Attributes"]["sk"] == {"N": "100"}
    assert again["rc"] != 0 and "ConditionalCheckFailedException" in again["err"]
    assert json.loads(dropped["out"])["TableDescription"]["TableStatus"] == "DELETING"
    assert TABLE not in json.loads(listed["out"])["TableNames"]
