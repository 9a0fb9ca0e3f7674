"""HTTPS beside HTTP: a self-signed certificate kept in the data dir, SDKs trusting it as
their CA bundle, and aws:SecureTransport telling the two apart."""
from __future__ import annotations

import json

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import Server, free_port

SECURE_ONLY = {"Statement": [
    {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"},
    {"Effect": "Deny", "Action": "dynamodb:*", "Resource": "*",
     "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}


def _client(url: str, bundle: str | None = None, key: str = "AKIDEXAMPLE", secret: str = "s"):
    return boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=secret, verify=bundle,
                        config=Config(retries={"max_attempts": 0}))


def test_self_signed_certificate_is_kept_and_trusted(tmp_path):
    port = free_port()
    server = Server("--tls-self-signed", "--tls-port", str(port), data_dir=str(tmp_path))
    bundle = tmp_path / "tls" / "okura-cert.pem"
    try:
        secure = _client(f"https://127.0.0.1:{port}", str(bundle))
        secure.create_table(TableName="tls", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        # the same server over plain HTTP
        assert _client(server.url).list_tables()["TableNames"] == ["tls"]
        # a client that does not trust the certificate refuses the connection
        with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            _client(f"https://127.0.0.1:{port}").list_tables()
    finally:
        server.stop()
    first = bundle.read_bytes()
    server = Server("--tls-self-signed", "--tls-port", str(port), data_dir=str(tmp_path))
    try:
        assert bundle.read_bytes() == first  # made once, kept
        assert _client(f"https://127.0.0.1:{port}", str(bundle)).list_tables()["TableNames"] == ["tls"]
    finally:
        server.stop()


def test_secure_transport_condition(tmp_path):
    config = tmp_path / "auth.json"
    config.write_text(json.dumps({"users": [
        {"name": "sam", "access_key_id": "AKIASAM", "secret_access_key": "sam-secret",
         "policies": [SECURE_ONLY]}]}))
    port = free_port()
    server = Server("--tls-self-signed", "--tls-port", str(port), "--auth", "enforce",
                    "--auth-config", str(config), data_dir=str(tmp_path / "data"))
    try:
        bundle = str(tmp_path / "data" / "tls" / "okura-cert.pem")
        assert _client(f"https://127.0.0.1:{port}", bundle, "AKIASAM",
                       "sam-secret").list_tables()["TableNames"] == []
        with pytest.raises(ClientError) as caught:
            _client(server.url, None, "AKIASAM", "sam-secret").list_tables()
        assert caught.value.response["Error"]["Message"] == (
            "User: arn:aws:iam::000000000000:user/sam is not authorized to perform: "
            "dynamodb:ListTables on resource: * with an explicit deny in an identity-based policy")
    finally:
        server.stop()
