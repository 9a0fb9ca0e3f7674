"""Dispatch turns every unexpected exception into DynamoDB's InternalServerError,
logged with its traceback and never shown to the client."""
from __future__ import annotations

import asyncio
import logging

import orjson
import pytest

from in_process import app_on, memory_app
from okura.access import sigv4
from okura.access.guard import RAW
from okura.access.sigv4 import parse
from okura.config import Settings
from okura.core.catalog import CatalogChanged
from okura.server import app as app_module
from okura.server.guarded import guard_app
from okura.server.http import Request

HEADERS = {"x-amz-target": "DynamoDB_20120810.ListTables", "x-amz-date": "20260101T000000Z",
           "authorization": "AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/"
                            "aws4_request, SignedHeaders=host, Signature=x"}


def _route(monkeypatch, handler):
    """ListTables served by `handler`."""
    target = HEADERS["x-amz-target"]
    monkeypatch.setitem(app_module.ROUTES, target,
                        app_module.ROUTES[target]._replace(handler=handler))


def test_unexpected_exception_is_internal_server_error(monkeypatch, caplog):
    async def broken(request, body):
        raise KeyError("secret detail")

    _route(monkeypatch, broken)

    async def scenario():
        async with memory_app() as app:
            return await app.dispatch(Request(app.db, dict(HEADERS), b"RID", None), b"{}")

    with caplog.at_level(logging.ERROR, logger="okura"):
        status, body = asyncio.run(scenario())
    assert status == 500
    assert orjson.loads(body) == {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                                  "message": "Internal server error"}
    assert b"secret" not in body
    assert "RID" in caplog.text and "Traceback" in caplog.text and "secret detail" in caplog.text


def test_a_request_planned_on_a_stale_table_runs_again_on_a_fresh_one(monkeypatch):
    """Another node changed the table (CatalogChanged): the rerun must not plan with the
    same cached document, which this node may not yet know to be stale."""
    doc = {"TableName": "t", "TableStatus": "ACTIVE",
           "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
           "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
    runs = []

    async def planned_on_the_cache(request, body):
        table = request.db.catalog.cached("us-east-1", "t")
        runs.append(table)
        if table is stale:
            raise CatalogChanged(table)
        return {}

    _route(monkeypatch, planned_on_the_cache)

    async def scenario():
        nonlocal stale
        async with memory_app() as app:
            stale = await app.db.catalog.create("us-east-1", doc)
            return await app.dispatch(Request(app.db, dict(HEADERS), b"RID", None), b"{}")

    stale = None
    status, body = asyncio.run(scenario())
    assert (status, body) == (200, b"{}")
    assert runs[0] is stale and runs[1] is not stale


@pytest.mark.parametrize("auth", ["off", "warn"])
def test_the_authorization_header_is_parsed_once(monkeypatch, auth):
    """Its one parse settles the request's authorization, region and access key, which
    every later step reads from the context (warn: an unknown key's signature fails, and
    the request goes on with what the header claims)."""
    parses = []

    def counted(*args, **kwargs):
        parses.append(args[0])
        return parse(*args, **kwargs)

    monkeypatch.setattr(sigv4, "parse", counted)
    seen = []

    async def handler(request, body):
        seen.append((request.authorization.access_key, request.region, request.access_key))
        return {}

    _route(monkeypatch, handler)
    header = HEADERS["authorization"].replace("us-east-1", "eu-west-2")

    async def scenario():
        async with app_on(Settings(memory=True, auth=auth, audit_log="")) as app:
            if auth != "off":
                guard_app(app, app.settings, {})
            request = Request(app.db, dict(HEADERS, authorization=header), b"RID", None)
            request.headers[RAW] = (b"POST", b"/", {b"authorization": header.encode(),
                                                    b"x-amz-date": b"20260101T000000Z"},
                                    "127.0.0.1", False)
            return await app.dispatch(request, b"{}")

    assert asyncio.run(scenario()) == (200, b"{}")
    assert parses == [header]
    assert seen == [("A", "eu-west-2", "A")]
