"""Which write hooks a table document turns on, and whether its writes then read the
item they replace: made once per document, remade for the next."""
from __future__ import annotations

import pytest

from okura.core import items, write_hooks  # noqa: F401 (items registers the hooks)
from okura.core.catalog import ACTIVE, Table

DOC = {"TableName": "t", "TableStatus": ACTIVE,
       "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
KINESIS = {"KinesisDestinations": [{"StreamArn": "arn", "State": "ACTIVE", "Until": 0}]}


@pytest.mark.parametrize("members, hooks, observes_old", [
    ({}, [], False),
    ({"PointInTime": {"Log": 7, "Period": 35}}, [("history", 7)], False),
    ({"Snapshots": {"8": 1.0}}, [("snapshots", (8,))], True),
    ({"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
      "LatestStreamLabel": "label"}, [("stream", "label")], True),
    (KINESIS, [("kinesis", True)], True),
    ({"KinesisDestinations": [dict(KINESIS["KinesisDestinations"][0], State="DISABLED")]},
     [], False),
    ({"TimeToLive": {"AttributeName": "expires"}}, [("ttl", "expires")], True),
])
def test_a_document_turns_on_its_hooks(members, hooks, observes_old):
    plan = write_hooks.plan(Table(1, 1, "r", "0", dict(DOC, **members)))
    assert [(hook.name, state) for hook, state in plan.hooks] == hooks
    assert plan.observes_old is observes_old


def test_a_plan_is_made_once_per_document():
    table = Table(2, 1, "r", "0", DOC)
    plan = write_hooks.plan(table)
    assert write_hooks.plan(table) is plan
    newer = Table(2, 2, "r", "0", dict(DOC, PointInTime={"Log": 9, "Period": 35}))
    remade = write_hooks.plan(newer)
    assert [hook.name for hook, _ in remade.hooks] == ["history"]
    assert write_hooks.plan(newer) is remade
    write_hooks.forget(2)  # the table was deleted
    assert write_hooks.plan(newer) is not remade
