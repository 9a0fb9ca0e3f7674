"""The console (docs/console.md): the static pages of okura/console/static, served under
/console/ (GET and HEAD; not with --no-console), read once, at the first request. The
pages call the DynamoDB API and the admin endpoints like any client; nothing here knows
of them."""
from __future__ import annotations

from functools import cache
from pathlib import Path

PREFIX = b"/console"
STATIC = Path(__file__).parent.parent / "console" / "static"
_TYPES = {".html": b"text/html; charset=utf-8", ".js": b"text/javascript; charset=utf-8",
          ".css": b"text/css; charset=utf-8", ".svg": b"image/svg+xml"}
# Revalidated on every load (an upgraded okura serves new pages), never sniffed, never
# framed, and the pages load nothing from elsewhere.
HEADERS = (b"\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff"
           b"\r\nX-Frame-Options: DENY\r\nContent-Security-Policy: default-src 'self'; "
           b"img-src 'self' data:; frame-ancestors 'none'")
NOT_FOUND = (404, b"no such console page", b"text/plain; charset=utf-8")


class Pages:
    """path -> (status, body, content type) of every file shipped; / is index.html."""

    def __init__(self, directory: Path = STATIC):
        self.files: dict[bytes, tuple[int, bytes, bytes]] = {}
        for file in sorted(directory.rglob("*")):
            content_type = _TYPES.get(file.suffix)
            if content_type is not None:
                path = PREFIX + b"/" + file.relative_to(directory).as_posix().encode()
                self.files[path] = (200, file.read_bytes(), content_type)
        index = self.files[PREFIX + b"/index.html"]
        self.files[PREFIX] = self.files[PREFIX + b"/"] = index

    def get(self, path: bytes) -> tuple[int, bytes, bytes]:
        return self.files.get(path, NOT_FOUND)


@cache
def _shipped() -> Pages:
    return Pages()


def page(path: bytes) -> tuple[int, bytes, bytes]:
    """(status, body, content type) of a GET of `path` (under PREFIX)."""
    return _shipped().get(path)
