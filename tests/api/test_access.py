"""Access control through boto3 with real signatures (--auth enforce and warn):
SigV4 verification, identity-based policies with LeadingKeys tenant isolation and
table-name patterns, admin endpoints."""
from __future__ import annotations

import datetime
import gzip
import http.client
import json
import re
import uuid
from unittest import mock

import boto3
import pytest
from botocore.auth import SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.exceptions import ClientError

from conftest import Server

ACCOUNT = "000000000000"
OTHER = "111111111111"
TENANT_POLICY = {"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow",
    "Action": ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:PutItem",
               "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem",
               "dynamodb:ConditionCheckItem", "dynamodb:PartiQLSelect", "dynamodb:PartiQLInsert"],
    "Resource": "arn:aws:dynamodb:*:*:table/tenants",
    "Condition": {"ForAllValues:StringEquals": {
        "dynamodb:LeadingKeys": ["${aws:PrincipalTag/tenant}"]}}}]}
DEV_POLICY = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "arn:aws:dynamodb:*:*:table/dev_*"},
    {"Effect": "Allow", "Action": "dynamodb:ListTables", "Resource": "*"},
    {"Effect": "Deny", "Action": "dynamodb:DeleteTable", "Resource": "*"}]}
EVERYTHING = {"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
# Tables may be made only tagged env=dev (and no other tag), read only when so tagged.
TAG_POLICY = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Action": ["dynamodb:CreateTable", "dynamodb:DescribeTable"],
     "Resource": "*", "Condition": {"StringEquals": {"aws:RequestTag/env": "dev"},
                                    "ForAllValues:StringEquals": {"aws:TagKeys": ["env"]}}},
    {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": "*",
     "Condition": {"StringEquals": {"aws:ResourceTag/env": "dev"}}}]}
CONFIG = {
    "account_id": ACCOUNT,
    "users": [
        {"name": "alice", "access_key_id": "AKIAALICE", "secret_access_key": "alice-secret",
         "tags": {"tenant": "t1"}, "policies": [TENANT_POLICY]},
        {"name": "bob", "access_key_id": "AKIABOB", "secret_access_key": "bob-secret",
         "tags": {"tenant": "t2"}, "policies": [TENANT_POLICY]},
        {"name": "dev", "access_key_id": "AKIADEV", "secret_access_key": "dev-secret",
         "policies": [DEV_POLICY]},
        {"name": "root", "access_key_id": "AKIAADMIN", "secret_access_key": "admin-secret",
         "policies": [EVERYTHING]},
        {"name": "carol", "access_key_id": "AKIACAROL", "secret_access_key": "carol-secret"},
        {"name": "tagger", "access_key_id": "AKIATAGGER", "secret_access_key": "tagger-secret",
         "policies": [TAG_POLICY]},
        {"name": "mallory", "account_id": OTHER, "access_key_id": "AKIAMALLORY",
         "secret_access_key": "mallory-secret", "policies": [EVERYTHING]},
    ],
    "roles": [{"name": "reader", "policies": [EVERYTHING], "sessions": [
        {"session_name": "s1", "access_key_id": "ASIAREADER", "secret_access_key": "reader-secret",
         "session_token": "token-1", "expiration": "2999-01-01T00:00:00Z"}]}],
    "admin_access_key_ids": ["AKIAADMIN"],
}
SECRETS = {"AKIAALICE": "alice-secret", "AKIABOB": "bob-secret", "AKIADEV": "dev-secret",
           "AKIAADMIN": "admin-secret", "ASIAREADER": "reader-secret",
           "AKIACAROL": "carol-secret", "AKIAMALLORY": "mallory-secret",
           "AKIATAGGER": "tagger-secret"}


def _denied(user: str, action: str, resource: str, reason: str | None = None) -> str:
    reason = reason or f"because no identity-based policy allows the dynamodb:{action} action"
    return (f"User: arn:aws:iam::{ACCOUNT}:user/{user} is not authorized to perform: "
            f"dynamodb:{action} on resource: {resource} {reason}")


def _arn(table: str) -> str:
    return f"arn:aws:dynamodb:us-east-1:{ACCOUNT}:table/{table}"


def start(tmp_path_factory, mode: str, *extra: str) -> Server:
    path = tmp_path_factory.mktemp("auth") / "auth.json"
    path.write_text(json.dumps(CONFIG))
    return Server("--auth", mode, "--auth-config", str(path), *extra)


def client(server: Server, key: str, secret: str | None = None, token: str | None = None):
    return boto3.client("dynamodb", endpoint_url=server.url, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret or SECRETS[key],
                        aws_session_token=token, config=Config(retries={"max_attempts": 0}))


def signed_post(server: Server, path: str, body: bytes, key: str = "AKIAADMIN",
                headers: dict | None = None, presign: bool = False,
                sent: bytes | None = None) -> tuple[int, bytes]:
    """A request signed by botocore's own signers, sent raw (with `sent` as its body
    instead of the one signed, if given)."""
    request = AWSRequest(method="POST", url=server.url + path, data=b"" if presign else body,
                         headers={"Content-Type": "application/x-amz-json-1.0", **(headers or {})})
    credentials = Credentials(key, SECRETS[key])
    if presign:
        class _Signer(SigV4QueryAuth):  # signs the body it will carry (botocore's form)
            def payload(self, request):
                import hashlib
                return hashlib.sha256(body).hexdigest()
        _Signer(credentials, "dynamodb", "us-east-1", expires=300).add_auth(request)
    else:
        SigV4Auth(credentials, "dynamodb", "us-east-1").add_auth(request)
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        target = request.url[len(server.url):]
        connection.request("POST", target, body if sent is None else sent,
                           dict(request.headers.items()))
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def error_of(call, *args, **kwargs) -> tuple[str, str]:
    with pytest.raises(ClientError) as caught:
        call(*args, **kwargs)
    error = caught.value.response["Error"]
    return error["Code"], error["Message"]


@pytest.fixture(scope="module")
def audit_path(tmp_path_factory):
    return tmp_path_factory.mktemp("audit") / "audit.jsonl"


@pytest.fixture(scope="module")
def enforced(tmp_path_factory, audit_path):
    server = start(tmp_path_factory, "enforce", "--audit-log", str(audit_path))
    admin = client(server, "AKIAADMIN")
    admin.create_table(TableName="tenants", KeySchema=[
        {"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "sk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST")
    for tenant in ("t1", "t2"):
        for n in range(2):
            admin.put_item(TableName="tenants", Item={"pk": {"S": tenant}, "sk": {"S": str(n)}})
    yield server
    server.stop()


def test_tenant_reads_its_own_partition_only(enforced):
    alice = client(enforced, "AKIAALICE")
    own = {"pk": {"S": "t1"}, "sk": {"S": "0"}}
    assert alice.get_item(TableName="tenants", Key=own)["Item"] == own
    assert error_of(alice.get_item, TableName="tenants",
                    Key={"pk": {"S": "t2"}, "sk": {"S": "0"}}) == (
        "AccessDeniedException", _denied("alice", "GetItem", _arn("tenants")))
    assert alice.query(TableName="tenants", KeyConditionExpression="pk = :p",
                       ExpressionAttributeValues={":p": {"S": "t1"}})["Count"] == 2
    assert error_of(alice.query, TableName="tenants", KeyConditionExpression="#p = :p",
                    ExpressionAttributeNames={"#p": "pk"},
                    ExpressionAttributeValues={":p": {"S": "t2"}})[0] == "AccessDeniedException"
    # a Scan names no partition: the policy does not list it
    assert error_of(alice.scan, TableName="tenants") == (
        "AccessDeniedException", _denied("alice", "Scan", _arn("tenants")))


def test_tenant_batches_and_transactions(enforced):
    alice = client(enforced, "AKIAALICE")
    own = [{"pk": {"S": "t1"}, "sk": {"S": "0"}}, {"pk": {"S": "t1"}, "sk": {"S": "1"}}]
    got = alice.batch_get_item(RequestItems={"tenants": {"Keys": own}})
    assert len(got["Responses"]["tenants"]) == 2
    assert error_of(alice.batch_get_item, RequestItems={"tenants": {
        "Keys": own + [{"pk": {"S": "t2"}, "sk": {"S": "0"}}]}}) == (
        "AccessDeniedException", _denied("alice", "BatchGetItem", _arn("tenants")))
    alice.transact_write_items(TransactItems=[
        {"Put": {"TableName": "tenants", "Item": {"pk": {"S": "t1"}, "sk": {"S": "9"}}}}])
    assert error_of(alice.transact_write_items, TransactItems=[
        {"Put": {"TableName": "tenants", "Item": {"pk": {"S": "t1"}, "sk": {"S": "8"}}}},
        {"Delete": {"TableName": "tenants", "Key": {"pk": {"S": "t2"}, "sk": {"S": "0"}}}}]) == (
        "AccessDeniedException", _denied("alice", "DeleteItem", _arn("tenants")))
    # nothing of the refused transaction was written
    assert "Item" not in alice.get_item(TableName="tenants",
                                        Key={"pk": {"S": "t1"}, "sk": {"S": "8"}})


def test_tenant_partiql(enforced):
    bob = client(enforced, "AKIABOB")
    rows = bob.execute_statement(Statement="SELECT * FROM tenants WHERE pk = 't2'")["Items"]
    assert len(rows) == 2
    rows = bob.execute_statement(Statement="SELECT * FROM tenants WHERE pk = ?",
                                 Parameters=[{"S": "t2"}])["Items"]
    assert len(rows) == 2
    assert error_of(bob.execute_statement, Statement="SELECT * FROM tenants WHERE pk = ?",
                    Parameters=[{"S": "t1"}]) == (
        "AccessDeniedException", _denied("bob", "PartiQLSelect", _arn("tenants")))
    assert error_of(bob.execute_statement,
                    Statement="INSERT INTO tenants VALUE {'pk': 't1', 'sk': 'x'}")[0] == \
        "AccessDeniedException"
    bob.execute_statement(Statement="INSERT INTO tenants VALUE {'pk': 't2', 'sk': 'x'}")


def test_table_name_patterns_and_explicit_deny(enforced):
    dev = client(enforced, "AKIADEV")
    for name in ("dev_orders", "prod_orders"):
        client(enforced, "AKIAADMIN").create_table(
            TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST")
    dev.put_item(TableName="dev_orders", Item={"pk": {"S": "a"}})
    assert dev.describe_table(TableName="dev_orders")["Table"]["TableName"] == "dev_orders"
    assert error_of(dev.put_item, TableName="prod_orders", Item={"pk": {"S": "a"}}) == (
        "AccessDeniedException", _denied("dev", "PutItem", _arn("prod_orders")))
    # an ARN as TableName is the same resource
    assert error_of(dev.get_item, TableName=_arn("prod_orders"), Key={"pk": {"S": "a"}})[0] == \
        "AccessDeniedException"
    # a table that does not exist is still refused before it is looked for
    assert error_of(dev.describe_table, TableName="prod_missing") == (
        "AccessDeniedException", _denied("dev", "DescribeTable", _arn("prod_missing")))
    assert error_of(dev.delete_table, TableName="dev_orders") == (
        "AccessDeniedException", _denied("dev", "DeleteTable", _arn("dev_orders"),
                                         "with an explicit deny in an identity-based policy"))
    assert "dev_orders" in dev.list_tables()["TableNames"]


def test_signature_errors(enforced):
    code, message = error_of(client(enforced, "AKIAALICE", "wrong").list_tables)
    assert code == "InvalidSignatureException"
    assert message.startswith(
        "The request signature we calculated does not match the signature you provided. "
        "Check your AWS Secret Access Key and signing method. Consult the service "
        "documentation for details.")
    unknown = boto3.client("dynamodb", endpoint_url=enforced.url, region_name="us-east-1",
                           aws_access_key_id="AKIANOBODY", aws_secret_access_key="x",
                           config=Config(retries={"max_attempts": 0}))
    assert error_of(unknown.list_tables) == (
        "UnrecognizedClientException", "The security token included in the request is invalid.")
    hour_ago = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) - \
        datetime.timedelta(hours=1)
    with mock.patch("botocore.auth.get_current_datetime", return_value=hour_ago):
        code, message = error_of(client(enforced, "AKIAALICE").list_tables)
    stamp = hour_ago.strftime("%Y%m%dT%H%M%SZ")
    assert code == "InvalidSignatureException"
    assert re.fullmatch(rf"Signature expired: {stamp} is now earlier than (\d{{8}}T\d{{6}}Z) "
                        r"\((\d{8}T\d{6}Z) - 15 min\.\)", message), message
    status, raw = enforced_post(enforced, {"Authorization": None})
    assert (status, json.loads(raw)["__type"].rpartition("#")[2]) == (
        400, "MissingAuthenticationTokenException")


def _scoped(server: Server, stamp: str, scope: str, key: str = "AKIANOBODY") -> tuple[str, str]:
    """A request at `stamp` signed (badly) with `key` for `scope`: its error's code and
    message."""
    reply = server.post("ListTables", {}, {
        "X-Amz-Date": stamp, "Authorization": f"AWS4-HMAC-SHA256 Credential={key}/{scope}, "
                                              "SignedHeaders=host;x-amz-date, Signature=abc"})
    assert reply.status == 400
    return reply.json["__type"].rpartition("#")[2], reply.json["message"]


@pytest.mark.parametrize("hours, words", [(-2, "Signature expired: "),
                                          (2, "Signature not yet current: ")])
def test_time_is_judged_before_the_key_and_the_scope(enforced, hours, words):
    """DynamoDB judges the request's time first: a request signed far in the past or the
    future is refused for it whatever its access key and credential scope."""
    signed = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=hours)
    stamp, day = signed.strftime("%Y%m%dT%H%M%SZ"), signed.strftime("%Y%m%d")
    for scope in (f"{day}/us-east-1/s3/aws4_request", f"{day}//dynamodb/aws4_request",
                  f"20200101/us-east-1/dynamodb/aws4_request",
                  f"{day}/us-east-1/dynamodb/aws4_request"):
        code, message = _scoped(enforced, stamp, scope)
        assert code == "InvalidSignatureException" and message.startswith(words), (scope, message)
    # within the window, the scope and then the key are judged
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    assert _scoped(enforced, stamp, f"{day}/us-east-1/s3/aws4_request") == (
        "InvalidSignatureException", "Credential should be scoped to correct service: 'dynamodb'. ")
    assert _scoped(enforced, stamp, f"{day}/us-east-1/dynamodb/aws4_request") == (
        "UnrecognizedClientException", "The security token included in the request is invalid.")


def enforced_post(server: Server, headers: dict) -> tuple[int, bytes]:
    reply = server.post("ListTables", {}, headers)
    return reply.status, reply.raw


def test_session_credentials(enforced):
    reader = client(enforced, "ASIAREADER", token="token-1")
    assert "tenants" in reader.list_tables()["TableNames"]
    assert error_of(client(enforced, "ASIAREADER", token="other").list_tables) == (
        "UnrecognizedClientException", "The security token included in the request is invalid.")


def test_presigned_request(enforced):
    status, raw = signed_post(enforced, "/", b"{}", key="AKIADEV", presign=True,
                              headers={"X-Amz-Target": "DynamoDB_20120810.ListTables"})
    assert status == 200, raw
    assert "tenants" in json.loads(raw)["TableNames"]
    # the same signature over another body
    status, raw = signed_post(enforced, "/", b"{}", key="AKIADEV", presign=True,
                              headers={"X-Amz-Target": "DynamoDB_20120810.ListTables"},
                              sent=b'{"Limit": 1}')
    assert (status, json.loads(raw)["__type"].rpartition("#")[2]) == (
        400, "InvalidSignatureException")


def test_accept_encoding_lines_are_one_list(enforced):
    """With auth on too, Accept-Encoding sent in several lines is one list (signed as SigV4
    joins them): the reply is compressed as the list asks."""
    item = {"pk": {"S": "t1"}, "sk": {"S": "big"}, "data": {"S": "okura " * 1000}}
    client(enforced, "AKIAADMIN").put_item(TableName="tenants", Item=item)
    body = json.dumps({"TableName": "tenants", "Key": {"pk": item["pk"], "sk": item["sk"]}}).encode()
    request = AWSRequest(method="POST", url=enforced.url + "/", data=body, headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.GetItem",
        "Accept-Encoding": "gzip,identity;q=0"})
    SigV4Auth(Credentials("AKIAADMIN", SECRETS["AKIAADMIN"]), "dynamodb", "us-east-1").add_auth(request)
    connection = http.client.HTTPConnection("127.0.0.1", enforced.port, timeout=10)
    try:
        connection.putrequest("POST", "/", skip_accept_encoding=True)
        for name, value in request.headers.items():
            if name.lower() != "accept-encoding":
                connection.putheader(name, value)
        connection.putheader("Accept-Encoding", "gzip")  # alone, the last would refuse all
        connection.putheader("Accept-Encoding", "identity;q=0")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        raw = response.read()
        assert response.status == 200, raw
        assert response.getheader("Content-Encoding") == "gzip"
        assert json.loads(gzip.decompress(raw))["Item"] == item
    finally:
        connection.close()
        client(enforced, "AKIAADMIN").delete_item(TableName="tenants",
                                                  Key={"pk": item["pk"], "sk": item["sk"]})


def test_admin_endpoints_need_an_admin_key(enforced):
    connection = http.client.HTTPConnection("127.0.0.1", enforced.port, timeout=10)
    connection.request("GET", "/okura/clock")
    response = connection.getresponse()
    assert response.status == 403
    response.read()
    connection.close()
    assert signed_post(enforced, "/okura/clock", b'{"advance": 0}', key="AKIAALICE")[0] == 403
    status, raw = signed_post(enforced, "/okura/clock", b'{"advance": 0}')
    assert status == 200 and "now" in json.loads(raw)


def test_clock_judges_the_window(tmp_path_factory):
    ahead = start(tmp_path_factory, "enforce", "--clock-offset", "3600")
    try:
        code, message = error_of(client(ahead, "AKIAADMIN").list_tables)
        assert code == "InvalidSignatureException" and message.startswith("Signature expired: ")
    finally:
        ahead.stop()


def test_warn_lets_everything_through_and_counts(tmp_path_factory):
    server = start(tmp_path_factory, "warn")
    try:
        admin = client(server, "AKIAADMIN")
        admin.create_table(TableName="tenants", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           BillingMode="PAY_PER_REQUEST")
        alice = client(server, "AKIAALICE")
        alice.put_item(TableName="tenants", Item={"pk": {"S": "t2"}})  # would be denied
        alice.put_item(TableName="tenants", Item={"pk": {"S": "t1"}})  # allowed
        client(server, "AKIAALICE", "wrong").list_tables()  # would be refused
        # a scope for another service is refused, as with --auth off
        now = datetime.datetime.now(datetime.timezone.utc)
        assert _scoped(server, now.strftime("%Y%m%dT%H%M%SZ"),
                       now.strftime("%Y%m%d") + "/us-east-1/s3/aws4_request", "AKIAALICE") == (
            "InvalidSignatureException", "Credential should be scoped to correct service: "
                                         "'dynamodb'. ")
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/okura/clock")  # unsigned: would be refused
        assert connection.getresponse().status == 200
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/metrics")
        page = connection.getresponse().read().decode()
        connection.close()
        assert ('okura_access_denials_total{action="dynamodb:PutItem",resource="'
                + _arn("tenants") + '",reason="AccessDeniedException"} 1') in page
        assert ('okura_access_denials_total{action="dynamodb:ListTables",resource="*",'
                'reason="InvalidSignatureException"} 1') in page
        assert ('okura_access_denials_total{action="okura:admin",resource="/okura/clock",'
                'reason="AccessDeniedException"} 1') in page
        assert "would deny dynamodb:PutItem" in server.log_text()
    finally:
        server.stop()


def _resource_policy(*statements: dict) -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": list(statements)})


def _new_table(server: Server) -> str:
    name = f"shared_{uuid.uuid4().hex[:8]}"
    client(server, "AKIAADMIN").create_table(
        TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST")
    return name


def test_resource_policy_within_the_account(enforced):
    name = _new_table(enforced)
    admin, carol = client(enforced, "AKIAADMIN"), client(enforced, "AKIACAROL")
    assert error_of(carol.get_item, TableName=name, Key={"pk": {"S": "a"}}) == (
        "AccessDeniedException", _denied("carol", "GetItem", _arn(name)))
    admin.delete_item(TableName=name, Key={"pk": {"S": "a"}})  # allowed (and remembered)
    admin.put_resource_policy(ResourceArn=_arn(name), Policy=_resource_policy(
        {"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/carol"},
         "Action": ["dynamodb:GetItem", "dynamodb:Query"], "Resource": [_arn(name), _arn(name) + "/index/*"]},
        {"Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/alice"},
         "Action": "dynamodb:*", "Resource": "*"},
        {"Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/root"},
         "Action": "dynamodb:DeleteItem", "Resource": "*"}))
    # the policy changed the table: what was allowed before is decided again
    assert error_of(admin.delete_item, TableName=name, Key={"pk": {"S": "a"}}) == (
        "AccessDeniedException", _denied("root", "DeleteItem", _arn(name),
                                         "with an explicit deny in a resource-based policy"))
    # within one account the resource policy's Allow is enough
    assert "Item" not in carol.get_item(TableName=name, Key={"pk": {"S": "a"}})
    assert error_of(carol.put_item, TableName=name, Item={"pk": {"S": "a"}}) == (
        "AccessDeniedException", _denied("carol", "PutItem", _arn(name)))
    # its Deny beats an identity policy's Allow (the admin's policy allows everything)
    assert error_of(client(enforced, "AKIAALICE").get_item, TableName=name,
                    Key={"pk": {"S": "t1"}}) == (
        "AccessDeniedException", _denied("alice", "GetItem", _arn(name),
                                         "with an explicit deny in a resource-based policy"))


def test_resource_policy_across_accounts(enforced):
    name = _new_table(enforced)
    mallory = client(enforced, "AKIAMALLORY")
    stranger = f"User: arn:aws:iam::{OTHER}:user/mallory is not authorized to perform: " \
               f"dynamodb:GetItem on resource: {_arn(name)} because no resource-based policy " \
               "allows the dynamodb:GetItem action"
    # her own policy allows everything, but the table's account has not let her in
    assert error_of(mallory.get_item, TableName=_arn(name), Key={"pk": {"S": "a"}}) == (
        "AccessDeniedException", stranger)
    client(enforced, "AKIAADMIN").put_resource_policy(ResourceArn=_arn(name), Policy=_resource_policy(
        {"Effect": "Allow", "Principal": {"AWS": OTHER}, "Action": "dynamodb:GetItem",
         "Resource": _arn(name)}))
    assert "Item" not in mallory.get_item(TableName=_arn(name), Key={"pk": {"S": "a"}})


def test_confirm_remove_self_resource_access(enforced):
    name = _new_table(enforced)
    admin = client(enforced, "AKIAADMIN")
    locking = _resource_policy({
        "Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/root"},
        "Action": "dynamodb:PutResourcePolicy", "Resource": _arn(name)})
    assert error_of(admin.put_resource_policy, ResourceArn=_arn(name), Policy=locking)[0] == \
        "ValidationException"
    admin.put_resource_policy(ResourceArn=_arn(name), Policy=locking,
                              ConfirmRemoveSelfResourceAccess=True)
    assert error_of(admin.put_resource_policy, ResourceArn=_arn(name), Policy=_resource_policy()) == (
        "AccessDeniedException", _denied("root", "PutResourcePolicy", _arn(name),
                                         "with an explicit deny in a resource-based policy"))


def _events(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_audit_log_of_control_plane_events(enforced, audit_path):
    name = _new_table(enforced)
    dev = client(enforced, "AKIADEV")
    client(enforced, "AKIAADMIN").put_item(TableName=name, Item={"pk": {"S": "secret-key"},
                                                                  "v": {"S": "secret value"}})
    error_of(dev.describe_table, TableName=name)
    error_of(client(enforced, "AKIADEV", "wrong").list_tables)
    events = _events(audit_path)
    created = [e for e in events if e["eventName"] == "CreateTable"
               and e["requestParameters"]["tableName"] == name]
    assert len(created) == 1
    event = created[0]
    assert event["userIdentity"] == {
        "type": "IAMUser", "principalId": event["userIdentity"]["principalId"],
        "arn": f"arn:aws:iam::{ACCOUNT}:user/root", "accountId": ACCOUNT,
        "accessKeyId": "AKIAADMIN", "userName": "root"}
    assert event["eventSource"] == "dynamodb.amazonaws.com" and event["awsRegion"] == "us-east-1"
    assert event["sourceIPAddress"] == "127.0.0.1" and event["userAgent"].startswith("Boto3/")
    assert event["resources"] == [{"accountId": ACCOUNT, "type": "AWS::DynamoDB::Table",
                                   "ARN": _arn(name)}]
    assert (event["readOnly"], event["managementEvent"], event["eventCategory"]) == (
        False, True, "Management")
    assert "errorCode" not in event and len(event["requestID"]) == 52
    # data events are not recorded unless asked for
    assert not [e for e in events if e["eventName"] == "PutItem"]
    refused = [e for e in events if e["eventName"] == "DescribeTable"
               and e["requestParameters"] == {"tableName": name}]
    assert refused[-1]["errorCode"] == "AccessDeniedException"
    assert refused[-1]["errorMessage"] == _denied("dev", "DescribeTable", _arn(name))
    unsigned = [e for e in events if e["eventName"] == "ListTables"
                and e.get("errorCode") == "InvalidSignatureException"]
    assert unsigned and unsigned[-1]["userIdentity"] == {"type": "Unknown",
                                                         "accessKeyId": "AKIADEV"}


def test_audit_log_of_data_events(tmp_path_factory):
    path = tmp_path_factory.mktemp("audit") / "audit.jsonl"
    server = start(tmp_path_factory, "enforce", "--audit-log", str(path), "--audit-data-events")
    try:
        name = _new_table(server)
        admin = client(server, "AKIAADMIN")
        admin.put_item(TableName=name, Item={"pk": {"S": "k1"}, "v": {"S": "secret value"}},
                       ConditionExpression="attribute_not_exists(v) OR v <> :x",
                       ExpressionAttributeValues={":x": {"S": "another secret"}})
        admin.batch_write_item(RequestItems={name: [
            {"PutRequest": {"Item": {"pk": {"S": "k2"}, "v": {"S": "secret value"}}}}]})
        text = path.read_text()
        assert "secret" not in text
        put = [e for e in _events(path) if e["eventName"] == "PutItem"][0]
        assert put["requestParameters"] == {
            "tableName": name, "key": {"pk": {"S": "k1"}},
            "conditionExpression": "attribute_not_exists(v) OR v <> :x"}
        assert (put["managementEvent"], put["eventCategory"]) == (False, "Data")
        batch = [e for e in _events(path) if e["eventName"] == "BatchWriteItem"][0]
        assert batch["requestParameters"] == {"requestItems": {
            name: [{"putRequest": {"key": {"pk": {"S": "k2"}}}}]}}
    finally:
        server.stop()


def test_streams_are_checked_on_the_stream(enforced):
    admin = client(enforced, "AKIAADMIN")
    arns = {}
    for name in ("dev_streamed", "prod_streamed"):
        admin.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           BillingMode="PAY_PER_REQUEST",
                           StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        arns[name] = admin.describe_table(TableName=name)["Table"]["LatestStreamArn"]

    def streams(key: str):
        return boto3.client("dynamodbstreams", endpoint_url=enforced.url, region_name="us-east-1",
                            aws_access_key_id=key, aws_secret_access_key=SECRETS[key],
                            config=Config(retries={"max_attempts": 0}))

    dev, root = streams("AKIADEV"), streams("AKIAADMIN")
    shard = dev.describe_stream(StreamArn=arns["dev_streamed"])["StreamDescription"]["Shards"][0]
    iterator = dev.get_shard_iterator(StreamArn=arns["dev_streamed"], ShardId=shard["ShardId"],
                                      ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    assert dev.get_records(ShardIterator=iterator)["Records"] == []
    assert error_of(dev.describe_stream, StreamArn=arns["prod_streamed"]) == (
        "AccessDeniedException", _denied("dev", "DescribeStream", arns["prod_streamed"]))
    shard = root.describe_stream(StreamArn=arns["prod_streamed"])["StreamDescription"]["Shards"][0]
    theirs = root.get_shard_iterator(StreamArn=arns["prod_streamed"], ShardId=shard["ShardId"],
                                     ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
    assert error_of(dev.get_records, ShardIterator=theirs) == (
        "AccessDeniedException", _denied("dev", "GetRecords", arns["prod_streamed"]))
    assert error_of(dev.list_streams) == ("AccessDeniedException", _denied("dev", "ListStreams", "*"))


def test_index_reads_are_checked_on_the_index(enforced):
    admin = client(enforced, "AKIAADMIN")
    name = f"dev_indexed_{uuid.uuid4().hex[:6]}"
    admin.create_table(
        TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "owner", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "byOwner", "KeySchema": [
            {"AttributeName": "owner", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}],
        BillingMode="PAY_PER_REQUEST")
    admin.put_resource_policy(ResourceArn=_arn(name), Policy=_resource_policy({
        "Effect": "Deny", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/dev"},
        "Action": "dynamodb:Query", "Resource": _arn(name) + "/index/byOwner",
        "Condition": {"ForAnyValue:StringEquals": {"dynamodb:LeadingKeys": ["root"]}}}))
    dev = client(enforced, "AKIADEV")
    query = {"TableName": name, "IndexName": "byOwner", "KeyConditionExpression": "#o = :o",
             "ExpressionAttributeNames": {"#o": "owner"}}
    assert dev.query(**query, ExpressionAttributeValues={":o": {"S": "dev"}})["Count"] == 0
    assert error_of(dev.query, **query, ExpressionAttributeValues={":o": {"S": "root"}}) == (
        "AccessDeniedException", _denied("dev", "Query", _arn(name) + "/index/byOwner",
                                         "with an explicit deny in a resource-based policy"))
    assert dev.query(TableName=name, KeyConditionExpression="pk = :p",
                     ExpressionAttributeValues={":p": {"S": "root"}})["Count"] == 0


def test_a_bad_auth_setting_stops_the_start(tmp_path):
    from tests.unit.test_startup import okura, refused

    assert refused(okura("serve", "--memory", "--auth", "enforce")) == (
        "okura: --auth enforce needs --auth-config PATH (docs/access.md)")
    config = tmp_path / "auth.json"
    config.write_text(json.dumps({"users": [{"name": "x", "access_key_id": "AK"}]}))
    assert refused(okura("serve", "--memory", "--auth", "warn", "--auth-config", str(config))) == (
        "okura: users[0]: access_key_id and secret_access_key are required strings")
    config.write_text(json.dumps({"users": [{"name": "x", "access_key_id": "AK",
                                             "secret_access_key": "s",
                                             "policies": [{"Statement": [{"Effect": "Allow"}]}]}]}))
    assert refused(okura("serve", "--memory", "--auth", "warn", "--auth-config", str(config))) == (
        "okura: users[0]: policy 0: a statement needs exactly one of Action and NotAction")
    assert refused(okura("serve", "--memory", "--tls-cert", str(config))) == (
        "okura: --tls-cert and --tls-key go together")


def test_request_and_resource_tags(enforced):
    tagger = client(enforced, "AKIATAGGER")
    schema = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
              "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
              "BillingMode": "PAY_PER_REQUEST"}
    name = f"tagged_{uuid.uuid4().hex[:6]}"
    assert error_of(tagger.create_table, TableName=name, **schema)[0] == "AccessDeniedException"
    assert error_of(tagger.create_table, TableName=name, **schema, Tags=[
        {"Key": "env", "Value": "dev"}, {"Key": "team", "Value": "x"}])[0] == "AccessDeniedException"
    tagger.create_table(TableName=name, **schema, Tags=[{"Key": "env", "Value": "dev"}])
    assert "Item" not in tagger.get_item(TableName=name, Key={"pk": {"S": "a"}})
    other = _new_table(enforced)  # untagged
    assert error_of(tagger.get_item, TableName=other, Key={"pk": {"S": "a"}}) == (
        "AccessDeniedException", _denied("tagger", "GetItem", _arn(other)))
