"""okura: a DynamoDB-compatible server. `okura.Server` and `okura.running` run one inside
this process (okura/embedded.py), imported on first use so that `import okura` stays cheap."""
from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from okura.embedded import Server, running


def __getattr__(name: str):
    if name in ("Server", "running"):
        from okura import embedded

        return getattr(embedded, name)
    raise AttributeError(f"module 'okura' has no attribute {name!r}")


__all__ = ["Server", "running", "__version__"]
