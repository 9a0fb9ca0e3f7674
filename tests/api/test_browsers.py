"""The browser threat (server/browsers.py): okura answers only for its own host names
(DNS rebinding), pages of other origins may not read its replies nor drive its admin
endpoints, and nothing changes for SDKs, the CLI and server-side tools (no Origin,
Host: localhost or an address)."""
from __future__ import annotations

import http.client
import json

import pytest

from conftest import Server

EVIL = "http://evil.example"


@pytest.fixture(scope="module")
def plain():
    server = Server()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def opened():
    server = Server("--allowed-hosts", "okura, Dynamo.Internal", "--cors-origins",
                    "https://app.example.com/")
    yield server
    server.stop()


def call(server, method: str, path: str, body: bytes | None = None, **headers: str):
    """(status, headers by lower-case name, body) of one request."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request(method, path, body, {k.replace("_", "-"): v for k, v in headers.items()})
        response = connection.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())
    finally:
        connection.close()


def clock(server) -> float:
    return json.loads(call(server, "GET", "/okura/clock")[2])["offset"]


SIGNED = {"X_Amz_Target": "DynamoDB_20120810.ListTables", "X_Amz_Date": "20260101T000000Z",
          "Authorization": "AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/"
                           "aws4_request, SignedHeaders=host, Signature=x",
          "Content_Type": "application/x-amz-json-1.0"}


def test_only_requests_naming_the_server_are_answered(plain, opened):
    """A Host that is not a localhost name, an IP address, the listening address or one of
    --allowed-hosts is refused (403): a page whose name was re-pointed at 127.0.0.1 sends
    its own name."""
    for path, method, body in (("/", "POST", b"{}"), ("/", "GET", None),
                               ("/okura/clock", "GET", None), ("/metrics", "GET", None),
                               ("/console/", "GET", None),
                               ("/2015-03-31/event-source-mappings", "GET", None)):
        status, _, reply = call(plain, method, path, body, Host=f"evil.example:{plain.port}",
                                **SIGNED)
        assert status == 403, path
        if path == "/":
            assert json.loads(reply)["message"].startswith(
                "okura does not answer for the host 'evil.example:")
    for host in (f"localhost:{plain.port}", f"127.0.0.1:{plain.port}", "[::1]", "LocalHost",
                 "10.1.2.3:8000", "[fe80::1]:8000", "app.localhost:3000"):
        status, _, reply = call(plain, "POST", "/", b"{}", Host=host, **SIGNED)
        assert (status, json.loads(reply)) == (200, {"TableNames": []}), host
    for host in ("okura:8000", "OKURA", "dynamo.internal"):
        assert call(opened, "POST", "/", b"{}", Host=host, **SIGNED)[0] == 200, host
    assert call(opened, "POST", "/", b"{}", Host="okura.evil.example", **SIGNED)[0] == 403
    anyone = Server("--allowed-hosts", "*")
    try:
        assert call(anyone, "POST", "/", b"{}", Host="anything.example", **SIGNED)[0] == 200
    finally:
        anyone.stop()


def test_pages_of_other_origins_cannot_read_api_replies(plain, opened):
    """The DynamoDB API's replies name an origin that may read them: localhost's, the
    server's own, or one of --cors-origins; never `*`, and none for another."""
    status, headers, _ = call(plain, "POST", "/", b"{}", Origin=EVIL, **SIGNED)
    assert status == 200 and "access-control-allow-origin" not in headers
    status, headers, _ = call(plain, "OPTIONS", "/", Origin=EVIL,
                              Access_Control_Request_Method="POST")
    assert status == 403 and "access-control-allow-origin" not in headers
    own = f"http://127.0.0.1:{plain.port}"
    for origin in ("http://localhost:8001", "https://127.0.0.1", own):
        headers = call(plain, "POST", "/", b"{}", Origin=origin, **SIGNED)[1]
        assert headers["access-control-allow-origin"] == origin
        assert headers["vary"] == "Origin"
    for origin, allowed in (("https://app.example.com", True), ("http://app.example.com", False),
                            (EVIL, False), ("http://localhost:8001", True)):
        headers = call(opened, "POST", "/", b"{}", Origin=origin, **SIGNED)[1]
        assert headers.get("access-control-allow-origin") == (origin if allowed else None)
        status, headers, _ = call(opened, "OPTIONS", "/", Origin=origin,
                                  Access_Control_Request_Method="POST")
        assert (status, headers.get("access-control-allow-origin")) == (
            (200, origin) if allowed else (403, None))


def test_admin_endpoints_refuse_cross_site_requests(plain, opened):
    """A page elsewhere could advance the clock 31 days (and expire every TTL'd item) with
    a "simple" POST: the admin endpoints take JSON bodies only, from no origin (tools),
    localhost's or their own, and never answer `Access-Control-Allow-Origin: *`."""
    before = clock(plain)
    advance = json.dumps({"advance": 2678400}).encode()
    for content_type in ("text/plain", "application/x-www-form-urlencoded",
                         "multipart/form-data; boundary=x"):
        status, headers, reply = call(plain, "POST", "/okura/clock", advance,
                                      Content_Type=content_type, Origin=f"{EVIL}:1")
        assert status in (403, 415) and "access-control-allow-origin" not in headers
        status, _, reply = call(plain, "POST", "/okura/clock", advance,
                                Content_Type=content_type)
        assert (status, json.loads(reply)) == (
            415, {"error": "send the body as Content-Type: application/json"})
    for origin in (EVIL, "null", "https://app.example.com"):
        status, headers, reply = call(opened, "POST", "/okura/clock", advance,
                                      Content_Type="application/json", Origin=origin)
        assert status == 403 and "access-control-allow-origin" not in headers, origin
        assert call(opened, "OPTIONS", "/okura/clock", Origin=origin,
                    Access_Control_Request_Method="POST")[0] == 403
        assert call(opened, "GET", "/okura/clock", Origin=origin)[0] == 403
    assert clock(plain) == before
    small = json.dumps({"advance": 1}).encode()
    assert call(plain, "POST", "/okura/clock", small, Content_Type="application/json")[0] == 200
    assert call(plain, "POST", "/okura/clock", small,
                Content_Type="Application/JSON; charset=utf-8")[0] == 200
    for origin in ("http://localhost:3000", f"http://127.0.0.1:{plain.port}"):
        status, headers, _ = call(plain, "POST", "/okura/clock", small,
                                  Content_Type="application/json", Origin=origin)
        assert (status, headers["access-control-allow-origin"]) == (200, origin)
        status, headers, _ = call(plain, "OPTIONS", "/okura/clock", Origin=origin,
                                  Access_Control_Request_Method="POST",
                                  Access_Control_Request_Headers="content-type")
        assert (status, headers["access-control-allow-origin"]) == (200, origin)
    assert clock(plain) == before + 4
    assert call(plain, "POST", "/okura/reset", Content_Length="0")[0] == 200  # no body: tools
