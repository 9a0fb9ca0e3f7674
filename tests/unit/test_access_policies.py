"""The IAM policy engine (okura/access): statements, wildcards, conditions and variables,
as the IAM user guide defines them; and SigV4 cases the SDKs do not send."""
from __future__ import annotations

import time

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from okura.access.conditions import Condition, Facts, PolicyError
from okura.access.policies import Policy, judge, unconditional
from okura.access.sigv4 import Verifier, parse
from okura.errors import DynamoError

TABLE = "arn:aws:dynamodb:us-east-1:000000000000:table/orders"
CALLER = {"aws:username": ["alice"], "aws:principaltag/tenant": ["t1"],
          "aws:userid": ["AIDAX"]}


def facts(**check) -> Facts:
    return Facts({key.replace("__", ":").replace("_", "/").lower(): value
                  for key, value in check.items()},
                 {"aws:sourceip": ["10.1.2.3"], "aws:securetransport": ["false"]}, CALLER,
                 1_700_000_000.0)


def holds(operator: str, key: str, values, given: Facts) -> bool:
    return Condition(operator, key, values).test(given)


def allowed(statements: list, action: str = "dynamodb:GetItem", resource: str = TABLE,
            given: Facts | None = None):
    verdict = judge(Policy({"Statement": statements}).statements, action, resource,
                    given or facts())
    return "deny" if verdict.denied else "allow" if verdict.allowed else "none"


def test_actions_and_resources_with_wildcards():
    statement = {"Effect": "Allow", "Action": "dynamodb:Get*",
                 "Resource": "arn:aws:dynamodb:*:*:table/ord?rs"}
    assert allowed([statement]) == "allow"
    assert allowed([statement], action="DYNAMODB:GETITEM") == "allow"  # actions ignore case
    assert allowed([statement], action="dynamodb:PutItem") == "none"
    assert allowed([statement], resource=TABLE + "/index/byDate") == "none"
    assert allowed([dict(statement, Resource=TABLE + "*")],
                   resource=TABLE + "/index/byDate") == "allow"
    # a wildcard in the account part stays within it
    assert allowed([dict(statement, Resource="arn:aws:dynamodb:us-east-1:*/orders")]) == "none"
    assert allowed([{"Effect": "Allow", "NotAction": "dynamodb:Delete*", "Resource": "*"}],
                   action="dynamodb:DeleteItem") == "none"
    assert allowed([{"Effect": "Allow", "Action": "*", "NotResource": TABLE}]) == "none"
    assert allowed([{"Effect": "Allow", "Action": "*", "Resource": "*"},
                    {"Effect": "Deny", "Action": "dynamodb:GetItem", "Resource": "*"}]) == "deny"


def test_string_numeric_date_bool_ip_arn_null():
    given = facts(dynamodb__select=["SPECIFIC_ATTRIBUTES"], aws__ResourceTag_env=["prod"])
    assert holds("StringEquals", "dynamodb:Select", "SPECIFIC_ATTRIBUTES", given)
    assert not holds("StringEquals", "dynamodb:select", "specific_attributes", given)
    assert holds("StringEqualsIgnoreCase", "dynamodb:Select", "specific_attributes", given)
    assert holds("StringNotEquals", "dynamodb:Select", ["ALL_ATTRIBUTES", "COUNT"], given)
    assert holds("StringLike", "aws:ResourceTag/env", "pr?d*", given)
    assert holds("StringNotLike", "aws:ResourceTag/env", "dev*", given)
    assert holds("NumericLessThan", "aws:EpochTime", "1700000001", given)
    assert not holds("NumericGreaterThanEquals", "aws:EpochTime", "1700000001", given)
    assert holds("DateGreaterThan", "aws:CurrentTime", "2023-01-01T00:00:00Z", given)
    assert holds("DateLessThanEquals", "aws:CurrentTime", "2023-11-14T22:13:20Z", given)
    assert holds("Bool", "aws:SecureTransport", False, given)
    assert holds("IpAddress", "aws:SourceIp", ["192.168.0.0/16", "10.0.0.0/8"], given)
    assert holds("NotIpAddress", "aws:SourceIp", "10.1.3.0/24", given)
    arn = facts(aws__PrincipalArn=["arn:aws:iam::000000000000:role/app"])
    assert holds("ArnLike", "aws:PrincipalArn", "arn:aws:iam::*:role/*", arn)
    assert holds("ArnNotEquals", "aws:PrincipalArn", "arn:aws:iam::*:role/other", arn)
    assert holds("Null", "dynamodb:LeadingKeys", "true", given)
    assert holds("Null", "dynamodb:Select", "false", given)


def test_missing_keys_qualifiers_and_if_exists():
    none = facts()
    assert not holds("StringEquals", "dynamodb:ReturnValues", "NONE", none)
    assert holds("StringNotEquals", "dynamodb:ReturnValues", "ALL_OLD", none)
    assert holds("StringEqualsIfExists", "dynamodb:ReturnValues", "NONE", none)
    assert holds("ForAllValues:StringEquals", "dynamodb:Attributes", ["pk"], none)
    assert not holds("ForAnyValue:StringEquals", "dynamodb:Attributes", ["pk"], none)
    attributes = facts(dynamodb__Attributes=["pk", "name", "secret"])
    assert not holds("ForAllValues:StringEquals", "dynamodb:Attributes", ["pk", "name"], attributes)
    assert holds("ForAnyValue:StringEquals", "dynamodb:Attributes", ["secret"], attributes)
    assert holds("ForAllValues:StringNotEquals", "dynamodb:Attributes", ["password"], attributes)
    assert not holds("ForAnyValue:StringLike", "dynamodb:Attributes", ["x*"], attributes)


def test_policy_variables():
    keys = facts(dynamodb__LeadingKeys=["t1"])
    assert holds("ForAllValues:StringEquals", "dynamodb:LeadingKeys",
                 ["${aws:PrincipalTag/tenant}"], keys)
    assert not holds("ForAllValues:StringEquals", "dynamodb:LeadingKeys",
                     ["${aws:PrincipalTag/missing}"], keys)
    assert holds("ForAllValues:StringEquals", "dynamodb:LeadingKeys",
                 ["${aws:PrincipalTag/missing, 't1'}"], keys)
    statement = {"Effect": "Allow", "Action": "dynamodb:*",
                 "Resource": "arn:aws:dynamodb:*:*:table/${aws:username}_*"}
    assert allowed([statement], resource=TABLE.replace("orders", "alice_orders")) == "allow"
    assert allowed([statement], resource=TABLE.replace("orders", "bob_orders")) == "none"
    assert holds("StringLike", "aws:username", "${*}*", facts()) is False  # a literal "*"


def test_unconditional_decisions():
    plain = Policy({"Statement": [{"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"}]})
    assert unconditional(plain.statements, "dynamodb:GetItem", TABLE)
    guarded = Policy({"Statement": [
        {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"},
        {"Effect": "Deny", "Action": "dynamodb:GetItem", "Resource": "*",
         "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]})
    assert not unconditional(guarded.statements, "dynamodb:GetItem", TABLE)
    assert unconditional(guarded.statements, "dynamodb:PutItem", TABLE)


def test_bad_policies():
    for document in ({"Statement": [{"Effect": "Maybe", "Action": "*", "Resource": "*"}]},
                     {"Statement": [{"Effect": "Allow", "Resource": "*"}]},
                     {"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*",
                                     "Condition": {"StringSorta": {"a": "b"}}}]},
                     {"NoStatement": []}, "not json"):
        with pytest.raises(PolicyError):
            Policy(document)


def _signed(headers: dict, body: bytes = b"{}") -> dict[bytes, bytes]:
    request = AWSRequest("POST", "http://localhost:8000/", data=body, headers=headers)
    SigV4Auth(Credentials("AK", "secret"), "dynamodb", "us-east-1").add_auth(request)
    return {b"host": b"localhost:8000", **{
        name.lower().encode(): value.encode() for name, value in request.headers.items()}}


def test_sigv4_trims_and_refuses():
    verifier = Verifier(lambda key: "secret" if key == "AK" else None)
    now = time.time()
    pairs = _signed({"X-Amz-Target": "DynamoDB_20120810.ListTables", "X-Custom": "a  b"})
    parsed = parse(pairs[b"authorization"].decode(), True, algorithm_checked=True)
    # the value is signed trimmed ("a b"); sent with its two spaces it still verifies
    for _ in range(2):  # the second time by the plan the first left
        assert verifier.verify(b"POST", b"/", pairs, b"{}", now, parsed)[:2] == ("AK", "us-east-1")
    with pytest.raises(DynamoError) as caught:
        verifier.verify(b"POST", b"/", pairs, b"{} ", now, parsed)  # another body
    assert caught.value.name == "InvalidSignatureException"
    with pytest.raises(DynamoError) as caught:
        verifier.verify(b"POST", b"/", pairs, b"{}", now - 3600, parsed)
    assert caught.value.message.startswith("Signature not yet current: ")
    assert caught.value.message.endswith(" + 15 min.)")


def test_sigv4_a_signature_of_other_characters_is_a_mismatch():
    """(It made a TypeError in the comparison: an InternalServerError.)"""
    verifier = Verifier(lambda key: "secret" if key == "AK" else None)
    pairs = _signed({"X-Amz-Target": "DynamoDB_20120810.ListTables"})
    head = pairs[b"authorization"].rpartition(b"Signature=")[0]
    pairs[b"authorization"] = head + "Signature=é".encode("latin-1")
    parsed = parse(pairs[b"authorization"].decode("latin-1"), True, algorithm_checked=True)
    with pytest.raises(DynamoError) as caught:
        verifier.verify(b"POST", b"/", pairs, b"{}", time.time(), parsed)
    assert caught.value.name == "InvalidSignatureException"
