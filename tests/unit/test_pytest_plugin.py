"""okura's pytest plugin: the `okura` fixture, its options and its isolation between
tests, run in a pytest of its own (pytester) as a user's suite would run it (issue 25).
The inner run (in this process, for speed) loads the plugin by name with entry-point
plugins off, so it is this worktree's plugin whether or not okura is installed."""
from __future__ import annotations

import os
import tomllib

import pytest

pytest_plugins = ["pytester"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

USER_TESTS = '''
import boto3

KEY = dict(KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
           BillingMode="PAY_PER_REQUEST")


def test_first_makes_a_table(okura):
    assert okura.endpoint_url.startswith("http://127.0.0.1:")
    okura.client().create_table(TableName="users", **KEY)
    okura.resource().Table("users").put_item(Item={"pk": "a"})
    assert okura.client().scan(TableName="users")["Count"] == 1


def test_second_starts_clean_with_the_same_server(okura):
    assert okura.client().list_tables()["TableNames"] == []
    okura.client().create_table(TableName="users", **KEY)


def test_clock_streams_and_reset(okura):
    before = okura.clock.now()
    assert okura.clock.advance(86400) >= before + 86400
    assert okura.streams_client().list_streams()["Streams"] == []
    okura.client().create_table(TableName="gone", **KEY)
    okura.reset()
    assert okura.client().list_tables()["TableNames"] == []
'''


@pytest.fixture
def inner(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_user=USER_TESTS)
    return lambda *args: pytester.runpytest("-p", "okura.pytest_plugin", *args)


def test_the_fixture_serves_each_test_a_clean_server(inner):
    inner().assert_outcomes(passed=3)


def test_a_data_directory_and_keeping_tables(inner, tmp_path):
    data = tmp_path / "data"
    inner("--okura-data-dir", str(data), "--okura-keep-tables", "-k", "first or second"
          ).assert_outcomes(passed=1, failed=1)  # the second test saw the first's table
    assert (data / "okura.sqlite3").exists()


EVENTUAL_TESTS = '''
def test_an_index_lags_until_settled(okura, pytestconfig):
    ddb = okura.client()
    ddb.create_table(TableName="users", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"}
                                           for n in ("pk", "email")],
                     GlobalSecondaryIndexes=[{"IndexName": "by-email",
                         "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
                         "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    ddb.put_item(TableName="users", Item={"pk": {"S": "a"}, "email": {"S": "a@x"}})

    def found():
        return ddb.query(TableName="users", IndexName="by-email",
                         KeyConditionExpression="email = :e",
                         ExpressionAttributeValues={":e": {"S": "a@x"}})["Count"]

    assert found() == (0 if pytestconfig.getoption("okura_consistency") == "eventual" else 1)
    okura.settle()
    assert found() == 1
'''


def test_the_consistency_option(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_lag=EVENTUAL_TESTS)
    for mode in ("strong", "eventual"):
        # delays of hours: a read right after the write is inside its delay
        pytester.runpytest("-p", "okura.pytest_plugin", "--okura-consistency", mode,
                           "--okura-consistency-seed", "7",
                           "--okura-consistency-max-delay", "100000").assert_outcomes(passed=1)


def test_the_documented_example_passes(pytester, monkeypatch):
    with open(os.path.join(ROOT, "docs", "testing.md"), encoding="utf-8") as handle:
        text = handle.read()
    example = text.split("```python\n# test_users.py")[1].split("```")[0]
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(test_users="# test_users.py" + example)
    pytester.runpytest("-p", "okura.pytest_plugin").assert_outcomes(passed=4)


def test_the_plugin_is_registered_as_an_entry_point():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)["project"]
    assert project["entry-points"]["pytest11"] == {"okura": "okura.pytest_plugin"}
