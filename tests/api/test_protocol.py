"""The wire protocol: framing, headers, checksums, compression and protocol-level errors."""
from __future__ import annotations

import gzip
import http.client
import json
import zlib

import pytest


def test_reply_carries_request_id_and_crc32(server):
    reply = server.post("ListTables", {})
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/x-amz-json-1.0"
    assert len(reply.headers["x-amzn-requestid"]) == 52
    assert reply.headers["x-amzn-requestid"].isalnum()
    assert int(reply.headers["x-amz-crc32"]) == zlib.crc32(reply.raw)


def test_request_ids_differ(server):
    ids = {server.post("ListTables", {}).headers["x-amzn-requestid"] for _ in range(5)}
    assert len(ids) == 5


def test_error_reply_carries_crc32(server):
    reply = server.post("DescribeTable", {"TableName": "no-such-table"})
    assert reply.status == 400
    assert int(reply.headers["x-amz-crc32"]) == zlib.crc32(reply.raw)


@pytest.mark.parametrize("host", ["dynamodb.localhost:8000", "localhost", "127.0.0.1:8000",
                                  "[::1]:8000", "[::1]", "Dynamodb.LOCALHOST:08000"])
def test_get_root_answers_healthy(server, host):
    """`healthy: `, the endpoint as the client named it (its Host header exactly as sent,
    port included), and a space, as DynamoDB's endpoint answers."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("GET", "/", headers={"Host": host})
    response = connection.getresponse()
    assert response.status == 200
    assert response.read() == f"healthy: {host} ".encode()


def test_gzip_request_body_is_accepted(server):
    body = gzip.compress(json.dumps({"Limit": 5}).encode())
    reply = server.post("ListTables", body, headers={"Content-Encoding": "gzip"})
    assert reply.status == 200
    assert "TableNames" in reply.json


def test_keep_alive_serves_many_requests_on_one_connection(server):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    headers = {"X-Amz-Target": "DynamoDB_20120810.ListTables",
               "Content-Type": "application/x-amz-json-1.0", "X-Amz-Date": "20260101T000000Z",
               "Authorization": "AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/"
                                "aws4_request, SignedHeaders=host, Signature=x"}
    for _ in range(3):
        connection.request("POST", "/", b"{}", headers)
        response = connection.getresponse()
        assert response.status == 200
        response.read()
    connection.close()


def test_pipelined_requests_are_answered_in_order(server):
    import socket

    request = (b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.%s\r\n"
               b"X-Amz-Date: 20260101T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 "
               b"Credential=A/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, "
               b"Signature=x\r\nContent-Length: 2\r\n\r\n{}")
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(request % b"ListTables" + request % b"Nope")
        data = b""
        while data.count(b"HTTP/1.1") < 2 or not data.endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    first, second = data.split(b"HTTP/1.1 ")[1:]
    assert first.startswith(b"200") and b"TableNames" in first
    assert second.startswith(b"400") and b"UnknownOperationException" in second


def test_unknown_operation(server):
    reply = server.post("DynamoDB_20120810.Frobnicate", {})
    assert reply.status == 400
    assert reply.json == {"__type": "com.amazon.coral.service#UnknownOperationException"}


def test_missing_target_is_unknown_operation(server):
    reply = server.post(None, {})
    assert reply.status == 400
    assert reply.json["__type"] == "com.amazon.coral.service#UnknownOperationException"


@pytest.mark.parametrize("spell", [str.lower, str.upper, str.title])
def test_header_names_are_read_in_any_case(server, spell):
    reply = server.post(None, {}, headers={
        spell("X-Amz-Target"): "DynamoDB_20120810.ListTables",
        "Authorization": None, "X-Amz-Date": None,
        spell("Authorization"): "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/"
                                "dynamodb/aws4_request, SignedHeaders=host, Signature=abc",
        spell("X-Amz-Date"): "20260101T000000Z"})
    assert reply.status == 200 and "TableNames" in reply.json


def test_missing_authorization(server):
    reply = server.post("ListTables", {}, headers={"Authorization": None})
    assert reply.status == 400
    assert reply.json == {"__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
                          "message": "Request is missing Authentication Token"}


def test_authorization_without_parameters(server):
    reply = server.post("ListTables", {}, headers={"Authorization": "AWS4-HMAC-SHA256 "})
    assert reply.status == 400
    assert reply.json == {
        "__type": "com.amazon.coral.service#IncompleteSignatureException",
        "message": "Authorization header requires 'Credential' parameter. Authorization header "
                   "requires 'Signature' parameter. Authorization header requires 'SignedHeaders'"
                   " parameter. Authorization=AWS4-HMAC-SHA256 "}


def test_authorization_without_date(server):
    auth = ("AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/aws4_request, "
            "SignedHeaders=host, Signature=x")
    reply = server.post("ListTables", {}, headers={"X-Amz-Date": None, "Authorization": auth})
    assert reply.json == {
        "__type": "com.amazon.coral.service#IncompleteSignatureException",
        "message": "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date'"
                   f" header. Authorization={auth}"}


def test_authorization_part_without_equals(server):
    auth = "AWS4-HMAC-SHA256 Credential=A /20260101/us-east-1/dynamodb/aws4_request, Signature=x"
    reply = server.post("ListTables", {}, headers={"Authorization": auth})
    assert reply.json["__type"] == "com.amazon.coral.service#IncompleteSignatureException"
    assert reply.json["message"] == (
        "'/20260101/us-east-1/dynamodb/aws4_request' not a valid key=value pair (missing "
        f"equal-sign) in Authorization header: '{auth}'.")


@pytest.mark.parametrize("body, message", [
    (b"{not json", None), (b"", None),  # DynamoDB says no more of what it cannot parse
    (b"[1, 2]", "Start of list found where not expected"),
    (b"\"text\"", "Unexpected field type")])
def test_malformed_json_is_a_serialization_error(server, body, message):
    reply = server.post("ListTables", body)
    assert reply.status == 400
    assert reply.json["__type"] == "com.amazon.coral.service#SerializationException"
    assert reply.json.get("message") == message


def test_credential_scope_names_dynamodb(server):
    """Coral's messages, as users quote them: a credential of other than five parts, a
    scope for another service (DynamoDB Streams signs as dynamodb too)."""
    def sent(credential):
        return server.post("ListTables", {}, headers={
            "Authorization": f"AWS4-HMAC-SHA256 Credential={credential}, SignedHeaders=host, "
                             "Signature=x"}).json
    assert sent("A/20260101/us-east-1") == {
        "__type": "com.amazon.coral.service#IncompleteSignatureException",
        "message": "Credential must have exactly 5 slash-delimited elements, e.g. "
                   "keyid/date/region/service/term, got 'A/20260101/us-east-1'"}
    for service in ("s3", "dynamodb_streams"):
        assert sent(f"A/20260101/us-east-1/{service}/aws4_request") == {
            "__type": "com.amazon.coral.service#InvalidSignatureException",
            "message": "Credential should be scoped to correct service: 'dynamodb'. "}
    assert "TableNames" in sent("B/20260101/eu-west-1/dynamodb/aws4_request")


def raw_exchange(server, data: bytes, until: bytes, wait_first: bytes | None = None,
                 rest: bytes = b"") -> bytes:
    """Send `data` on a fresh connection (then `rest` once `wait_first` arrived); read until
    `until` has arrived."""
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(data)
        received = b""
        if wait_first is not None:
            while wait_first not in received:
                received += sock.recv(65536)
            sock.sendall(rest)
        while until not in received:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
        return received


SIGNED = (b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nX-Amz-Date: 20260101T000000Z\r\n"
          b"Authorization: AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/"
          b"aws4_request, SignedHeaders=host, Signature=x\r\n")


def test_expect_100_continue_is_answered_before_the_body(server):
    head = (b"POST / HTTP/1.1\r\nHost: localhost\r\n" + SIGNED +
            b"Expect: 100-continue\r\nContent-Length: 2\r\n\r\n")
    received = raw_exchange(server, head, b"TableNames", wait_first=b"100 Continue", rest=b"{}")
    assert received.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK")


def test_head_reply_has_no_body(server):
    """A reply to HEAD says its length but leaves the body out: the next reply on the
    connection starts clean (the admin endpoints' too)."""
    received = raw_exchange(server, b"HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                    b"HEAD /okura/clock HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                    b"GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", b"healthy: [::1]:80 ")
    first, admin, last = received.split(b"HTTP/1.1 ")[1:]
    assert first.endswith(b"\r\n\r\n") and b"Content-Length: 19\r\n" in first
    assert admin.endswith(b"\r\n\r\n")
    assert last.endswith(b"\r\n\r\nhealthy: [::1]:80 ")
    # no Host header (HTTP/1.0): the address the client reached
    expected = b"\r\n\r\nhealthy: 127.0.0.1:%d " % server.port
    assert raw_exchange(server, b"GET / HTTP/1.0\r\n\r\n", expected).endswith(expected)


def test_pages_on_localhost_may_call_the_api(server):
    """The JavaScript SDK in a page served from localhost calls DynamoDB directly: the
    preflight is answered, and replies let the page read the headers SDKs check (its
    origin echoed, never `*`). Other origins: tests/api/test_browsers.py."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("OPTIONS", "/", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization,content-type,x-amz-date,x-amz-target"})
    response = connection.getresponse()
    assert response.status == 200 and response.read() == b""
    assert response.getheader("Access-Control-Allow-Origin") == "http://localhost:3000"
    assert response.getheader("Access-Control-Allow-Headers") == (
        "authorization,content-type,x-amz-date,x-amz-target")
    assert "POST" in response.getheader("Access-Control-Allow-Methods")
    reply = server.post("ListTables", {}, headers={"Origin": "http://localhost:3000"})
    assert reply.status == 200
    assert reply.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "x-amz-crc32" in reply.headers["access-control-expose-headers"]
    assert "access-control-allow-origin" not in server.post("ListTables", {}).headers


def test_gzip_body_inflates_no_further_than_the_largest_request(server):
    bomb = zlib.compressobj(wbits=31)
    body = bomb.compress(b"{" + b" " * (40 * 1024 * 1024)) + bomb.flush()
    reply = server.post("ListTables", body, headers={"Content-Encoding": "gzip"})
    assert reply.status == 413
    assert reply.json["__type"] == "com.amazon.coral.service#RequestEntityTooLargeException"
    two_members = gzip.compress(b'{"Lim') + gzip.compress(b'it": 5}')  # gzip allows several
    assert server.post("ListTables", two_members, headers={"Content-Encoding": "gzip"}).status == 200


def test_tables_are_per_region(server):
    east = server.client(region="us-east-1")
    west = server.client(region="eu-west-1")
    name = "regional-table"
    east.create_table(TableName=name, KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                      AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                      BillingMode="PAY_PER_REQUEST")
    try:
        assert name in east.list_tables()["TableNames"]
        assert name not in west.list_tables()["TableNames"]
        with pytest.raises(west.exceptions.ResourceNotFoundException):
            west.describe_table(TableName=name)
        description = east.describe_table(TableName=name)["Table"]
        assert description["TableArn"] == f"arn:aws:dynamodb:us-east-1:000000000000:table/{name}"
    finally:
        east.delete_table(TableName=name)


def test_all_access_keys_share_one_account(server, table):
    other = server.client(key="SOMEOTHERKEY")
    other.put_item(TableName=table, Item={"pk": {"S": "shared"}})
    assert server.client().get_item(TableName=table, Key={"pk": {"S": "shared"}})["Item"] == {
        "pk": {"S": "shared"}}


INTERNAL_ERROR = {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                  "message": "Internal server error"}


def test_deflate_request_body_is_accepted(server):
    """Content-Encoding: deflate is zlib's format, accepted like gzip (recorded)."""
    body = zlib.compress(json.dumps({"Limit": 5}).encode())
    reply = server.post("ListTables", body, headers={"Content-Encoding": "deflate"})
    assert reply.status == 200 and "TableNames" in reply.json
    for spelled in ("GZIP", "Deflate"):
        body = (gzip.compress if spelled == "GZIP" else zlib.compress)(b'{"Limit": 5}')
        assert server.post("ListTables", body, headers={"Content-Encoding": spelled}).status == 200


def test_undecodable_body_is_an_internal_error_and_not_run(server, table):
    """An unknown Content-Encoding, or a body its encoding does not decode: HTTP 500 with
    DynamoDB's InternalServerError (recorded), and the request is not run."""
    item = json.dumps({"TableName": table, "Item": {"pk": {"S": "never"}}}).encode()
    sent = [(item, "br"), (item, "compress"), (item, "gzip"), (item, "deflate"),
            (gzip.compress(item) + b"garbage", "gzip"), (gzip.compress(item)[:-6], "gzip"),
            (zlib.compress(item)[:-3], "deflate"), (zlib.compress(item) + b"x", "deflate"),
            (gzip.compress(item), "deflate"), (zlib.compress(item), "gzip")]
    for body, encoding in sent:
        reply = server.post("PutItem", body, headers={"Content-Encoding": encoding})
        assert (reply.status, reply.json) == (500, INTERNAL_ERROR), (body, encoding)
        assert int(reply.headers["x-amz-crc32"]) == zlib.crc32(reply.raw)
    got = server.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "never"}}})
    assert got.status == 200 and got.json == {}


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_body_that_decodes_to_nothing(server, encoding):
    """No bytes at all are no gzip member nor zlib stream: undecodable, InternalServerError
    as a truncated body is; a stream that inflates to nothing is an empty body, which
    DynamoDB cannot parse (SerializationException, no message)."""
    reply = server.post("ListTables", b"", headers={"Content-Encoding": encoding})
    assert (reply.status, reply.json) == (500, INTERNAL_ERROR)
    nothing = (gzip.compress if encoding == "gzip" else zlib.compress)(b"")
    reply = server.post("ListTables", nothing, headers={"Content-Encoding": encoding})
    assert (reply.status, reply.json) == (400, {
        "__type": "com.amazon.coral.service#SerializationException"})
    assert (reply.status, reply.json) == (lambda r: (r.status, r.json))(
        server.post("ListTables", b""))


def test_every_reply_names_the_server(server):
    """DynamoDB's replies all carry `Server: Server` (recorded)."""
    received = raw_exchange(server, b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                    b"GET /nothing HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                    b"OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://a\r\n"
                                    b"Access-Control-Request-Method: POST\r\n\r\n"
                                    b"GET /okura/clock HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                    b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"
                                    b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
                                    + SIGNED + b"\r\n{}", b"TableNames")
    replies = received.split(b"HTTP/1.1 ")[1:]
    replies += raw_exchange(server, b"BAD\r\n\r\n", b"}").split(b"HTTP/1.1 ")[1:]
    assert len(replies) == 7
    for reply in replies:
        assert b"\r\nServer: Server\r\n" in reply.partition(b"\r\n\r\n")[0], reply[:300]
    assert server.post("ListTables", {}).headers["server"] == "Server"
    assert server.post("Nope", {}).headers["server"] == "Server"


UNKNOWN = b"<UnknownOperationException/>\n"


def _sent(server, method: str, path: str, body: bytes | None = None,
          headers: dict | None = None) -> tuple[int, dict, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        connection.request(method, path, body, headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_other_paths_and_methods_are_unknown(server):
    """Only `/` answers the health check (GET, HEAD) and the API (POST); any other path or
    method gets AWS's answer for a route it does not serve (recorded: 404, no Content-Type,
    these 29 bytes), POST included: a signed API call to another path is not run.
    /okura/... and /metrics are okura's own and still answer."""
    for method in ("GET", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"):
        for path in ("/", "/nothing", "/favicon.ico", "//", "/okura", "/metricsx"):
            if path == "/" and method in ("GET", "HEAD"):
                continue
            status, headers, body = _sent(server, method, path)
            assert (status, body) == (404, b"" if method == "HEAD" else UNKNOWN), (method, path)
            assert "Content-Type" not in headers and headers["Content-Length"] == "29"
            assert headers["Server"] == "Server" and headers["x-amz-crc32"] == "3552371480"
    table = {"TableName": "made-by-a-stray-post", "BillingMode": "PAY_PER_REQUEST",
             "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
             "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}]}
    signed = {"X-Amz-Target": "DynamoDB_20120810.CreateTable",
              "Content-Type": "application/x-amz-json-1.0", "X-Amz-Date": "20260101T000000Z",
              "Authorization": "AWS4-HMAC-SHA256 Credential=A/20260101/us-east-1/dynamodb/"
                               "aws4_request, SignedHeaders=host, Signature=x"}
    for path in ("/garbage", "/garbage?x=1", "//", "/metrics", "/console/"):
        assert _sent(server, "POST", path, json.dumps(table).encode(), signed)[::2] == (
            404, UNKNOWN), path
    assert "made-by-a-stray-post" not in server.client().list_tables()["TableNames"]
    # a query on `/` is still the API's (presigned requests carry theirs)
    listed = _sent(server, "POST", "/?x=1", b"{}", dict(signed, **{
        "X-Amz-Target": "DynamoDB_20120810.ListTables"}))
    assert listed[0] == 200 and "TableNames" in json.loads(listed[2])
    for path, status in (("/", 200), ("/metrics", 200), ("/okura/clock", 200)):
        assert _sent(server, "GET", path)[0] == status, path


def test_a_request_line_too_long_is_refused(server):
    """A request line past 4,096 bytes is refused as a head past 16 KB is (400, the
    connection closed); one within it is answered."""
    line = b"POST /%s HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n" + SIGNED + b"\r\n{}"
    fits = b"a" * (4096 - len(b"POST / HTTP/1.1"))
    assert raw_exchange(server, line % fits, UNKNOWN).startswith(b"HTTP/1.1 404 ")
    # read till the server closes the connection: the GET behind is never answered
    refused = raw_exchange(server, line % (fits + b"a") + b"GET / HTTP/1.1\r\n\r\n", b"\0")
    assert refused.startswith(b"HTTP/1.1 400 ") and b"Connection: close" in refused
    assert refused.count(b"HTTP/1.1 ") == 1 and refused.endswith(b"Malformed HTTP request\"}")


def _big_item(server, table) -> dict:
    item = {"pk": {"S": "big"}, "data": {"S": "okura " * 1000}}
    assert server.post("PutItem", {"TableName": table, "Item": item}).status == 200
    server.post("PutItem", {"TableName": table, "Item": {"pk": {"S": "small"}}})
    return {"Item": item}


@pytest.mark.parametrize("accepted, coding", [
    ("gzip", "gzip"), ("deflate", "deflate"), ("gzip, deflate", "gzip"),
    ("deflate, gzip", "deflate"), ("gzip;q=0.5, deflate", "deflate"),
    ("deflate;q=0.2, gzip;q=0.9", "gzip"), ("gzip;q=0, deflate", "deflate"),
    ("*", "gzip"), ("*;q=0.5, deflate", "deflate"), ("GZip", "gzip"),
    ("gzip;q=0", None), ("identity", None), ("br", None), ("", None),
    ("gzip;q=0, deflate;q=0.0", None), ("gzip ; q=1.0 ,deflate", "gzip"),
    ("gzip;q=0, *", None), ("*, gzip;q=0, deflate;q=0.1", "deflate")])
def test_large_replies_are_compressed_when_the_client_accepts(server, table, accepted, coding):
    """Replies over 4,096 bytes are compressed with the coding the client prefers
    (q-values honoured, the first listed wins a tie, `*` stands for gzip); smaller ones are
    not. x-amz-crc32 is of the bytes sent, compressed (as the AWS SDKs check it)."""
    expected = _big_item(server, table)
    key = {"TableName": table, "Key": {"pk": {"S": "big"}}}
    reply = server.post("GetItem", key, headers={"Accept-Encoding": accepted})
    assert reply.status == 200
    assert reply.headers.get("content-encoding") == coding
    assert int(reply.headers["x-amz-crc32"]) == zlib.crc32(reply.raw)
    assert int(reply.headers["content-length"]) == len(reply.raw)
    plain = {"gzip": gzip.decompress, "deflate": zlib.decompress, None: bytes}[coding](reply.raw)
    assert json.loads(plain) == expected
    if coding is not None:
        assert len(reply.raw) < 4096
    small = server.post("GetItem", {"TableName": table, "Key": {"pk": {"S": "small"}}},
                        headers={"Accept-Encoding": accepted})
    assert "content-encoding" not in small.headers and small.json == {"Item": {"pk": {"S": "small"}}}


@pytest.mark.parametrize("lines, coding", [
    (["identity;q=0.5", "gzip"], "gzip"), (["identity", "gzip"], None),
    (["gzip", "identity;q=0"], "gzip"), (["identity;q=0.9", "gzip;q=0.8"], None),
    (["gzip;q=0.5", "deflate"], "deflate"), (["deflate;q=0.1", "gzip;q=0.2, br"], "gzip"),
    (["gzip;q=0", "deflate;q=0"], None), (["br", "*"], "gzip")])
def test_accept_encoding_in_several_lines_is_one_list(server, table, lines, coding):
    """Accept-Encoding sent in several header lines is one list (RFC 9110, 5.3): the
    coding is chosen from all of them."""
    expected = _big_item(server, table)
    head = (b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\n"
            b"X-Amz-Date: 20260101T000000Z\r\nAuthorization: AWS4-HMAC-SHA256 "
            b"Credential=A/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, "
            b"Signature=x\r\n")
    body = json.dumps({"TableName": table, "Key": {"pk": {"S": "big"}}}).encode()
    accept = b"".join(b"Accept-Encoding: %s\r\n" % line.encode() for line in lines)
    received = raw_exchange(server, head + accept + b"Content-Length: %d\r\n\r\n" % len(body)
                            + body + b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
                            b"healthy: localhost ")
    reply = received.split(b"HTTP/1.1 ")[1]
    head_lines, _, raw = reply.partition(b"\r\n\r\n")
    headers = dict(line.split(b": ", 1) for line in head_lines.split(b"\r\n")[1:])
    assert headers.get(b"Content-Encoding") == (coding and coding.encode())
    raw = raw[:int(headers[b"Content-Length"])]
    plain = {"gzip": gzip.decompress, "deflate": zlib.decompress, None: bytes}[coding](raw)
    assert json.loads(plain) == expected


def test_preflight_echoes_the_requested_method_and_headers(server):
    """A preflight's Access-Control-Allow-Methods and -Headers repeat what the browser asked
    for (recorded); an ordinary reply carries none of the preflight's headers."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    connection.request("OPTIONS", "/", headers={
        "Origin": "http://localhost:3000", "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "x-custom, content-type"})
    response = connection.getresponse()
    assert response.status == 200 and response.read() == b""
    assert response.getheader("Access-Control-Allow-Methods") == "PUT"
    assert response.getheader("Access-Control-Allow-Headers") == "x-custom, content-type"
    assert response.getheader("Access-Control-Allow-Origin") == "http://localhost:3000"
    connection.close()
    reply = server.post("ListTables", {}, headers={"Origin": "http://localhost:3000",
                                                   "Access-Control-Request-Method": "PUT"})
    assert reply.headers["access-control-allow-origin"] == "http://localhost:3000"
    for preflight in ("access-control-allow-methods", "access-control-allow-headers",
                      "access-control-max-age"):
        assert preflight not in reply.headers
