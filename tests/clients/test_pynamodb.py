"""PynamoDB (the test extra) against okura: models with a global secondary index, create
and wait, save with conditions, update actions, query and scan with paging, batch,
transactions, delete. Skipped when pynamodb is not installed, a failure with
OKURA_REQUIRE_TOOLS=1."""
from __future__ import annotations

import pytest
from clients_common import endpoint  # noqa: F401 - a fixture
from conftest import imported

pynamodb = imported("pynamodb", "PynamoDB (pip install pynamodb) is not installed")
from pynamodb.attributes import (ListAttribute, MapAttribute, NumberAttribute,  # noqa: E402
                                 UnicodeAttribute, UnicodeSetAttribute)
from pynamodb.connection import Connection  # noqa: E402
from pynamodb.exceptions import PutError, TransactWriteError  # noqa: E402
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex  # noqa: E402
from pynamodb.models import Model  # noqa: E402
from pynamodb.transactions import TransactWrite  # noqa: E402


def models(endpoint: str):
    class ByTeam(GlobalSecondaryIndex):
        class Meta:
            index_name = "by-team"
            projection = AllProjection()
        team = UnicodeAttribute(hash_key=True)
        age = NumberAttribute(range_key=True)

    class Address(MapAttribute):
        city = UnicodeAttribute()

    class User(Model):
        class Meta:
            table_name = "pynamo-users"
            host = endpoint
            region = "us-east-1"
            aws_access_key_id = "any"
            aws_secret_access_key = "any"
            billing_mode = "PAY_PER_REQUEST"
        pk = UnicodeAttribute(hash_key=True)
        team = UnicodeAttribute()
        age = NumberAttribute()
        roles = UnicodeSetAttribute(null=True)
        address = Address(null=True)
        visits = ListAttribute(of=NumberAttribute, null=True)
        by_team = ByTeam()

    return User


def test_pynamodb_models(endpoint):
    User = models(endpoint)
    User.create_table(wait=True)
    assert User.exists()
    User(pk="ann", team="red", age=31, roles={"admin"}, address={"city": "Oslo"},
         visits=[1, 2]).save()
    with pytest.raises(PutError) as caught:
        User(pk="ann", team="red", age=1).save(condition=User.pk.does_not_exist())
    assert caught.value.cause_response_code == "ConditionalCheckFailedException"
    with User.batch_write() as batch:
        for n in range(30):
            batch.save(User(pk=f"u{n:02}", team="blue" if n % 3 else "red", age=20 + n))
    ann = User.get("ann")
    assert (ann.roles, ann.address.city, ann.visits) == ({"admin"}, "Oslo", [1, 2])
    ann.update(actions=[User.age.add(1), User.roles.add({"ops"}), User.visits[0].remove()])
    ann.refresh()
    assert (ann.age, ann.roles, ann.visits) == (32, {"admin", "ops"}, [2])
    reds = list(User.by_team.query("red", User.age > 30, scan_index_forward=False))
    assert [user.pk for user in reds] == ["u27", "u24", "u21", "u18", "u15", "u12", "ann"]
    everyone = User.scan(page_size=7)
    assert len(list(everyone)) == 31
    assert User.count() == 31
    assert sorted(u.pk for u in User.batch_get(["u01", "u02", "nobody"])) == ["u01", "u02"]
    connection = Connection(host=endpoint, region="us-east-1", aws_access_key_id="any",
                            aws_secret_access_key="any")
    with pytest.raises(TransactWriteError) as failed:
        with TransactWrite(connection=connection) as transaction:
            transaction.save(User(pk="new", team="red", age=1))
            transaction.condition_check(User, "u01", condition=User.age > 100)
    assert failed.value.cause_response_code == "TransactionCanceledException"
    # PynamoDB sends the condition checks first
    assert [r.code if r else None for r in failed.value.cancellation_reasons] == [
        "ConditionalCheckFailed", None]
    assert User.count("new") == 0
    User.get("u01").delete()
    assert User.count() == 30
    User.delete_table()
    assert not User.exists()
