"""Signature Version 4, verified as AWS's services verify it (the SigV4 specification in
the IAM user guide, "Create a signed AWS API request"): the request's canonical form,
the string to sign and the signing key derived from the caller's secret, from the
Authorization header or from a presigned query string (X-Amz-Algorithm, ...).

A request is signed within DynamoDB's window: its timestamp at most 15 minutes from the
server's clock either way (okura's movable clock: a test advances it to expire a
signature); a presigned one until X-Amz-Expires seconds after it.
The errors are DynamoDB's (Coral's) types and texts."""
from __future__ import annotations

import calendar
import hashlib
import hmac
import re
import time
from operator import itemgetter
from email.utils import parsedate_tz
from typing import Any, Callable, NamedTuple
from urllib.parse import quote, unquote_to_bytes

from okura import errors

ALGORITHM = "AWS4-HMAC-SHA256"
SERVICE = "dynamodb"  # the signing name of DynamoDB and of DynamoDB Streams alike
WINDOW = 15 * 60  # seconds a signature is good before and after its timestamp
MAX_EXPIRES = 7 * 24 * 3600  # a presigned request's longest X-Amz-Expires
_SEPARATORS = re.compile(r"[,\s]+")
_REQUIRED = ("Credential", "Signature", "SignedHeaders")
_EMPTY_QUERY = b""
_SECURITY_TOKEN = b"x-amz-security-token"


class Signed(NamedTuple):
    """What a verified signature says of its request."""
    access_key: str
    region: str
    token: str | None  # X-Amz-Security-Token: temporary credentials' session token


class Authorization(NamedTuple):
    """An AWS4-HMAC-SHA256 Authorization header, parsed: all but its signature, which is
    what every request signed with one key, day, region and list of headers shares."""
    access_key: str
    date: str  # the credential scope's YYYYMMDD
    region: str
    scope: str  # date/region/service/aws4_request
    signed_headers: str  # "host;x-amz-date;..."
    # The header up to ", Signature=" when it is in the form every SDK sends (else ""):
    # what a later header with the same head is known by, without a parse.
    head: str


# A request's Authorization, parsed: its parts and its signature.
Parsed = tuple[Authorization, str]
_SIGNATURE = ", Signature="
# Heads of the SDKs' form, parsed (bounded)
_HEADS: dict[str, Authorization] = {}
_MAX_HEADS = 1024


def parse(header: str | None, has_date: bool, algorithm_checked: bool = False) -> Parsed:
    """A request's Authorization header (`has_date`: the request has an X-Amz-Date or Date
    header), parsed once: the one reading of it, auth on or off. Raises DynamoDB's
    errors for a missing or malformed header in DynamoDB's order (`algorithm_checked`:
    with auth on, the algorithm is checked after the members and before the scope, and
    the scope's service and region are judged after the request's time: `in_scope`)."""
    if not header:
        raise errors.missing_authentication_token()
    if has_date:
        # The form every SDK sends, with a head seen before: a dict lookup. (A signature
        # of other characters than hex digits takes the parse below, which refuses some.)
        head, _, signature = header.rpartition(_SIGNATURE)
        known = _HEADS.get(head)
        if known is not None and _plain(signature):
            return known, signature
    params = _params(header, has_date)
    algorithm = header.partition(" ")[0]
    if algorithm_checked and algorithm != ALGORITHM:
        raise errors.incomplete_signature(  # unverified
            f"Unsupported AWS 'algorithm': '{algorithm}'")
    credential, signed, signature = params["Credential"], params["SignedHeaders"], params["Signature"]
    scope = _scope(credential)
    head = f"{ALGORITHM} Credential={credential}, SignedHeaders={signed}"
    sdk_form = header == head + _SIGNATURE + signature and _plain(signature)
    parsed = Authorization(scope[0], scope[1], scope[2], "/".join(scope[1:]), signed,
                           head if sdk_form else "")
    if not algorithm_checked:
        in_scope(parsed, header)
    if sdk_form and has_date and scope[3] == SERVICE and scope[2]:  # (a head kept is in scope)
        if len(_HEADS) >= _MAX_HEADS:
            _HEADS.clear()
        _HEADS[head] = parsed
    return parsed, signature


def _plain(signature: str) -> bool:
    """Whether a signature is ASCII letters and digits only: tested as bytes (str.isalnum
    consults Unicode's tables, ~55 instructions a character; bytes', ~5)."""
    return signature.isascii() and signature.encode().isalnum()


def _params(authorization: str, has_date: bool) -> dict[str, str]:
    """The key=value members of an AWS4-HMAC-SHA256 Authorization header; raises
    IncompleteSignature as DynamoDB words it."""
    _algorithm, _, rest = authorization.partition(" ")
    params = {}
    for part in _SEPARATORS.split(rest):
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep:
            raise errors.incomplete_signature(
                f"'{part}' not a valid key=value pair (missing equal-sign) in Authorization"
                f" header: '{authorization}'.")
        params[name] = value
    problems = [f"Authorization header requires '{name}' parameter."
                for name in _REQUIRED if name not in params]
    if not has_date:
        problems.append(
            "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
    if problems:
        raise errors.incomplete_signature(" ".join(problems) + f" Authorization={authorization}")
    return params


def _scope(credential: str) -> list[str]:
    """keyid/date/region/service/aws4_request, split; Coral's text, as users quote it
    (from other services behind it)."""
    scope = credential.split("/")
    if len(scope) != 5:
        raise errors.incomplete_signature(
            "Credential must have exactly 5 slash-delimited elements, e.g. "
            f"keyid/date/region/service/term, got '{credential}'")
    return scope


def in_scope(parts: Authorization, authorization: str) -> None:
    """The credential scope names DynamoDB and a region, or raise (Coral's text, as users
    quote it). With auth on it is judged after the request's time (DynamoDB's order)."""
    if parts.scope.split("/")[2] != SERVICE:
        raise errors.invalid_signature(f"Credential should be scoped to correct service: '{SERVICE}'. ")
    if not parts.region:
        raise errors.incomplete_signature(
            f"Credential should be scoped to a valid region. Authorization={authorization}")  # unverified


def _timestamp(text: str) -> float | None:
    """Epoch seconds of an ISO 8601 basic timestamp (20240101T000000Z)."""
    try:
        return calendar.timegm(time.strptime(text, "%Y%m%dT%H%M%SZ"))
    except ValueError:
        return None


def _basic(epoch: float) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(epoch))


_SHA256 = hashlib.sha256()


class _Plan(NamedTuple):
    """What every request signed with one Authorization head (all but the signature:
    the key, the day, the region, the signed headers) shares, worked out once."""
    signed: Signed  # what a good signature says (its token read per request)
    date: bytes  # the credential scope's YYYYMMDD
    values: Callable[[dict], tuple]  # the signed headers' values
    canonical: bytes  # the canonical request, %s for each value and the payload's hash
    string_to_sign: bytes  # the string to sign, %s for the timestamp and the request's hash
    inner: Any  # SHA-256 states after HMAC's inner and outer key blocks (hashlib objects)
    outer: Any


class Verifier:
    """Checks signatures; `secret_of(access key id)` gives a key's secret (None: unknown).

    A request's Authorization header comes parsed (`parse`). The form every SDK sends
    (POST /, Authorization and X-Amz-Date headers) takes a short way: the part of the
    Authorization header before the signature names a plan (_Plan) and the request costs a dict of its headers, four SHA-256 digests (body,
    canonical request, HMAC from the plan's key states) and a few joins, nearly all in C.
    Everything else, and every failure, takes the general way, which gives the errors."""

    def __init__(self, secret_of: Callable[[str], str | None]) -> None:
        self.secret_of = secret_of
        self._plans: dict[str, _Plan] = {}  # by Authorization head (bounded)
        self._times: dict[str, float | None] = {}  # parsed timestamps (bounded)
        self._stamps: dict[bytes, float] = {}  # parsed X-Amz-Date values (bounded)

    def verify(self, method: bytes, url: bytes, headers: dict[bytes, bytes], body: bytes,
               now: float, authorization: Parsed | None) -> Signed:
        """The signature's access key, region and session token, once it is found good;
        raises DynamoDB's authentication errors. `headers`: every request header, by
        lower-case name, a repeated one's values joined by commas; `authorization`: the
        Authorization header, parsed (None: the request has none)."""
        stamp = headers.get(b"x-amz-date")
        if authorization is not None and stamp and url == b"/":
            parts, signature = authorization
            plan = self._plans.get(parts.head) if parts.head else None
            signed_at = self._stamps.get(stamp) or self._stamp(stamp)
            if plan is not None and signed_at is not None and method == b"POST" and \
                    now - WINDOW <= signed_at <= now + WINDOW and stamp[:8] == plan.date:
                # (a value to trim makes a mismatch here, and the general way trims it)
                try:
                    values = plan.values(headers)
                except KeyError:
                    values = None
                if values is not None:
                    # (copies of an empty SHA-256: hashlib.sha256() looks its algorithm up
                    # in OpenSSL every time, dearer than the digest of a short body)
                    digest = _SHA256.copy()
                    digest.update(body)
                    digest_text = digest.hexdigest().encode()
                    digest = _SHA256.copy()
                    digest.update(plan.canonical % (*values, digest_text))
                    inner = plan.inner.copy()
                    inner.update(plan.string_to_sign % (stamp, digest.hexdigest().encode()))
                    outer = plan.outer.copy()
                    outer.update(inner.digest())
                    if hmac.compare_digest(outer.hexdigest(), signature):  # (ASCII: parse)
                        token = headers.get(_SECURITY_TOKEN)
                        return plan.signed if token is None else \
                            plan.signed._replace(token=token.decode("latin-1"))
        return self._general(method, url, headers, body, now, authorization)

    def _general(self, method: bytes, url: bytes, headers: dict[bytes, bytes], body: bytes,
                 now: float, authorization: Parsed | None) -> Signed:
        """`verify` the long way: every form, every error."""
        path, _, query = url.partition(b"?")
        if authorization is None:
            if b"X-Amz-" in query:
                return self._presigned(method, path, query, headers, body, now)
            raise errors.missing_authentication_token()
        parts, signature = authorization
        stamp = headers.get(b"x-amz-date")
        date_header = headers.get(b"date")
        if stamp is not None:
            amz_date = stamp.decode("latin-1")
            signed_at = self._parsed(amz_date)
        else:
            assert date_header is not None  # authorization_params requires one of them
            parsed = parsedate_tz(date_header.decode("latin-1"))
            signed_at = None if parsed is None else float(calendar.timegm(parsed[:9]) - (parsed[9] or 0))
            amz_date = "" if signed_at is None else _basic(signed_at)
        if signed_at is None:
            raise errors.incomplete_signature(  # unverified
                f"Date must be in ISO-8601 'basic format'. Got '{amz_date}'. See "
                "http://en.wikipedia.org/wiki/ISO_8601")
        _check_window(signed_at, amz_date, now)
        in_scope(parts, headers[b"authorization"].decode("latin-1"))
        if parts.date != amz_date[:8]:
            raise errors.invalid_signature(  # Coral's text as users quote it
                "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date "
                f"from HTTP: '{parts.date}' != '{amz_date[:8]}', from '{amz_date}'.")
        self._check(method, path, _canonical_query(query) if query else _EMPTY_QUERY, headers,
                    hashlib.sha256(body).hexdigest(), parts, amz_date, signature)
        if stamp is not None and path == b"/" and not query and method == b"POST" and parts.head:
            self._remember(parts)
        token = headers.get(_SECURITY_TOKEN)
        return Signed(parts.access_key, parts.region,
                      None if token is None else token.decode("latin-1"))

    def _stamp(self, stamp: bytes) -> float | None:
        """An X-Amz-Date's epoch seconds (None: malformed), kept for the next requests."""
        stamps = self._stamps
        if len(stamps) > 1024:
            stamps.clear()
        parsed = _timestamp(stamp.decode("latin-1"))
        if parsed is not None:
            stamps[stamp] = parsed
        return parsed

    def _remember(self, parts: Authorization) -> None:
        """Keep the plan of a good signature in the SDKs' form, for its next requests."""
        if parts.head in self._plans:
            return
        if len(self._plans) > 1024:
            self._plans.clear()
        secret = self.secret_of(parts.access_key)
        assert secret is not None  # the signature was just found good
        key = _signing_key(secret, parts.date, parts.region).ljust(64, b"\0")
        signed = parts.signed_headers
        names = [name.encode("latin-1") for name in signed.split(";")]
        values = itemgetter(*names) if len(names) > 1 else (lambda raw: (raw[names[0]],))
        canonical = b"POST\n/\n\n%s\n\n%s\n%%s" % (
            b"\n".join(name.replace(b"%", b"%%") + b":%s" for name in names),
            signed.encode("latin-1").replace(b"%", b"%%"))
        string_to_sign = b"AWS4-HMAC-SHA256\n%%s\n%s\n%%s" % parts.scope.encode()
        self._plans[parts.head] = _Plan(
            Signed(parts.access_key, parts.region, None), parts.date.encode(), values, canonical,
            string_to_sign,
            hashlib.sha256(bytes(b ^ 0x36 for b in key)), hashlib.sha256(bytes(b ^ 0x5C for b in key)))

    def _presigned(self, method: bytes, path: bytes, query: bytes, headers: dict[bytes, bytes],
                   body: bytes, now: float) -> Signed:
        params: dict[str, str] = {}
        for pair in query.split(b"&"):
            name, _, value = pair.partition(b"=")
            params[unquote_to_bytes(name).decode("utf-8", "replace")] = \
                unquote_to_bytes(value.replace(b"+", b" ")).decode("utf-8", "replace")
        missing = [name for name in ("X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature",
                                     "X-Amz-SignedHeaders", "X-Amz-Date") if name not in params]
        if missing:
            raise errors.incomplete_signature(  # unverified
                " ".join(f"AWS query-string parameters must include '{name}'." for name in missing)
                + " Re-examine the query-string parameters.")
        if params["X-Amz-Algorithm"] != ALGORITHM:
            raise errors.incomplete_signature(  # unverified
                f"Unsupported AWS 'algorithm': '{params['X-Amz-Algorithm']}'")
        credential = params["X-Amz-Credential"]
        scope = _scope(credential)
        parts = Authorization(scope[0], scope[1], scope[2], "/".join(scope[1:]),
                              params["X-Amz-SignedHeaders"], "")
        amz_date = params["X-Amz-Date"]
        signed_at = self._parsed(amz_date)
        if signed_at is None:
            raise errors.incomplete_signature(  # unverified
                f"Date must be in ISO-8601 'basic format'. Got '{amz_date}'. See "
                "http://en.wikipedia.org/wiki/ISO_8601")
        expires = params.get("X-Amz-Expires", str(WINDOW))
        if not expires.isdigit() or not 0 < int(expires) <= MAX_EXPIRES:
            raise errors.incomplete_signature(  # unverified
                f"X-Amz-Expires must be a number of seconds from 1 to {MAX_EXPIRES}")
        if now > signed_at + int(expires):
            raise errors.invalid_signature(  # unverified for presigned requests
                f"Signature expired: {amz_date} is now earlier than {_basic(now - int(expires))} "
                f"({_basic(now)} - {int(expires)} sec.)")
        _check_window(signed_at, amz_date, now, past=False)
        in_scope(parts, credential)
        pairs = sorted((quote(name, safe="-_.~"), quote(value, safe="-_.~"))
                       for name, value in params.items() if name != "X-Amz-Signature")
        canonical_query = "&".join(f"{name}={value}" for name, value in pairs).encode()
        self._check(method, path, canonical_query, headers, hashlib.sha256(body).hexdigest(),
                    parts, amz_date, params["X-Amz-Signature"])
        token = params.get("X-Amz-Security-Token")
        return Signed(parts.access_key, parts.region, token)

    def _check(self, method: bytes, path: bytes, query: bytes, headers: dict[bytes, bytes],
               payload: str, parts: Authorization, amz_date: str, signature: str) -> None:
        """The signature is the one the caller's secret gives, or raise."""
        secret = self.secret_of(parts.access_key)
        signed_text = parts.signed_headers
        if secret is None:
            raise errors.unrecognized_client()
        canonical_headers = []
        signed = [name.encode("latin-1") for name in signed_text.split(";")]
        for name in signed:
            value = headers.get(name)
            if value is None:
                raise errors.invalid_signature(  # unverified
                    f"'{name.decode('latin-1')}' is named in SignedHeaders but missing.")
            if b"  " in value or b"\t" in value:
                value = b" ".join(value.split())
            canonical_headers.append(b"%s:%s\n" % (name, value))
        if b"host" not in signed:
            raise errors.invalid_signature(  # unverified
                "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
        canonical = b"%s\n%s\n%s\n%s\n%s\n%s" % (
            method, _canonical_path(path), query, b"".join(canonical_headers),
            signed_text.encode("latin-1"), payload.encode())
        string_to_sign = "%s\n%s\n%s\n%s" % (ALGORITHM, amz_date, parts.scope,
                                             hashlib.sha256(canonical).hexdigest())
        expected = hmac.digest(_signing_key(secret, parts.date, parts.region),
                               string_to_sign.encode(), "sha256").hex()
        # (as bytes: a signature of other than ASCII characters is a mismatch, not an error)
        if not hmac.compare_digest(expected.encode(), signature.encode()):
            # DynamoDB's text as a user's report records it, with the canonical forms
            raise errors.invalid_signature(
                "The request signature we calculated does not match the signature you provided. "
                "Check your AWS Secret Access Key and signing method. Consult the service "
                "documentation for details.\n\nThe Canonical String for this request should have "
                f"been\n'{canonical.decode('utf-8', 'replace')}'\n\nThe String-to-Sign should "
                f"have been\n'{string_to_sign}'\n")

    def _parsed(self, amz_date: str) -> float | None:
        times = self._times
        if amz_date in times:
            return times[amz_date]
        if len(times) > 4096:
            times.clear()
        parsed = times[amz_date] = _timestamp(amz_date)
        return parsed


def _signing_key(secret: str, date: str, region: str) -> bytes:
    key = ("AWS4" + secret).encode()
    for part in (date, region, SERVICE, "aws4_request"):
        key = hmac.digest(key, part.encode(), "sha256")
    return key


def _check_window(signed_at: float, amz_date: str, now: float, past: bool = True) -> None:
    """Coral's texts for a timestamp outside the window (users' reports quote them)."""
    if past and signed_at < now - WINDOW:
        raise errors.invalid_signature(
            f"Signature expired: {amz_date} is now earlier than {_basic(now - WINDOW)} "
            f"({_basic(now)} - 15 min.)")
    if signed_at > now + WINDOW:
        raise errors.invalid_signature(
            f"Signature not yet current: {amz_date} is still later than {_basic(now + WINDOW)} "
            f"({_basic(now)} + 15 min.)")


def _canonical_path(path: bytes) -> bytes:
    """The URI as SigV4 canonicalises it for services other than S3: dot segments and
    empty segments removed, then each byte percent-encoded (an encoded path is encoded
    a second time, as the SDKs sign it)."""
    if path == b"/":
        return path
    text = path.decode("latin-1")
    parts: list[str] = []
    for segment in text.split("/"):
        if segment == "..":
            if parts:
                parts.pop()
        elif segment and segment != ".":
            parts.append(segment)
    normal = "/" + "/".join(parts)
    if text.endswith("/") and normal != "/":
        normal += "/"
    return quote(normal, safe="/~").encode()


def _canonical_query(query: bytes) -> bytes:
    """Name=value pairs sorted, each side in SigV4's percent-encoding."""
    pairs = []
    for pair in query.split(b"&"):
        if not pair:
            continue
        name, _, value = pair.partition(b"=")
        pairs.append((quote(unquote_to_bytes(name), safe="-_.~"),
                      quote(unquote_to_bytes(value), safe="-_.~")))
    return "&".join(f"{name}={value}" for name, value in sorted(pairs)).encode()
