"""The browser threat: a web page the developer has open must not drive their okura.

- Host: okura answers only requests whose Host header names it: localhost names, IP
  addresses, the address it listens on, and the names of --allowed-hosts (`*`: any). A
  page on a name its author controls, re-pointed at 127.0.0.1 (DNS rebinding), sends its
  own name and is refused.
- CORS: a page may read the replies of the DynamoDB API (and the metrics and Lambda
  APIs) from a localhost origin, from this server's own (the console) or from one of
  --cors-origins (`*`: any); the origin is echoed, never `*`.
- Admin endpoints (/okura/): a request from any other origin is refused, and so is a
  body other than application/json (which a page may send cross-site without asking).

SDKs, the AWS CLI and server-side tools send no Origin and name localhost or an address:
nothing changes for them. Documented in docs/admin.md (Browsers)."""
from __future__ import annotations

import ipaddress

from okura.config import Settings

_LOCAL = {"localhost", "127.0.0.1", "[::1]", "::1"}
_WILDCARDS = {"0.0.0.0", "::", ""}
_KEPT = 1024  # Host values remembered as allowed (the hot path's one set lookup)
_EXPOSED = (b"\r\nVary: Origin\r\nAccess-Control-Expose-Headers: "
            b"x-amzn-RequestId, x-amzn-ErrorType, x-amz-crc32, Date")


def _name(authority: str) -> str:
    """The host name of a Host value or an origin's authority: lower-case, no port."""
    authority = authority.strip().lower()
    if authority.startswith("["):  # an IPv6 address, then perhaps a port
        return authority[:authority.find("]") + 1]
    return authority.partition(":")[0]


def _local(name: str) -> bool:
    return name in _LOCAL or name.endswith(".localhost")


def _address(name: str) -> bool:
    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") else name)
    except ValueError:
        return False
    return True


def _listed(setting: str) -> set[str]:
    return {entry.strip().lower().rstrip("/") for entry in setting.split(",") if entry.strip()}


class Browsers:
    def __init__(self, settings: Settings):
        allowed = _listed(settings.allowed_hosts)
        self.any_host = "*" in allowed
        self.names = {_name(host) for host in allowed} | _LOCAL
        if settings.host not in _WILDCARDS:
            self.names.add(_name(settings.host))
        # Host header values found allowed (None: no Host, an HTTP/1.0 client)
        self.hosts: set[str | None] = {None}
        self.origins = _listed(settings.cors_origins)
        self.any_origin = "*" in self.origins

    def host_allowed(self, host: str | None) -> bool:
        """Whether okura answers a request with this Host header (the hot path first looks
        the value up in `hosts`, where this remembers the values it allows)."""
        if host in self.hosts:
            return True
        name = _name(host or "")
        if not (self.any_host or name in self.names or _local(name) or _address(name)):
            return False
        if len(self.hosts) < _KEPT:
            self.hosts.add(host)
        return True

    @staticmethod
    def host_refusal(host: str) -> tuple[int, str]:
        return 403, (f"okura does not answer for the host {host!r}: give it with "
                     "--allowed-hosts (docs/admin.md, Browsers)")

    @staticmethod
    def own_origin(headers: dict) -> bool:
        """Whether the request's Origin is localhost's or this server's own (the Host it
        was sent to)."""
        scheme, _, authority = headers["origin"].partition("://")
        if scheme not in ("http", "https"):
            return False
        return _local(_name(authority)) or authority.lower() == headers.get("host", "").lower()

    def cors(self, headers: dict, admin: bool = False) -> bytes:
        """The CORS header lines of a reply to a browser's request (it names its origin):
        none for an origin that may not read it (of an admin endpoint: all but
        localhost's and the server's own)."""
        origin = headers["origin"]
        if self.own_origin(headers) or not admin and (
                self.any_origin or origin.lower().rstrip("/") in self.origins):
            return b"\r\nAccess-Control-Allow-Origin: " + origin.encode("latin-1") + _EXPOSED
        return b""

    def admin_refusal(self, method: bytes, headers: dict, body: bytes) -> tuple[int, str] | None:
        """Why an admin request is refused (status, message), or None."""
        if "origin" in headers and not self.own_origin(headers):
            return 403, (f"okura's admin endpoints answer pages of localhost and of this "
                         f"server only, not of {headers['origin']}")
        if body and method not in (b"GET", b"HEAD") and not _json(headers.get("content-type")):
            return 415, "send the body as Content-Type: application/json"
        return None


def _json(content_type: str | None) -> bool:
    """Whether a body's type is JSON's (application/json, application/x-amz-json-1.0,
    application/...+json): none a page may send cross-site without asking first."""
    kind = (content_type or "").partition(";")[0].strip().lower()
    return kind == "application/json" or kind.startswith("application/x-amz-json-") or (
        kind.startswith("application/") and kind.endswith("+json"))
