"""The request context: what an operation and core know of one request besides its
body. The server builds one per request (server.http.Request extends it with the HTTP
side); operations and core take it and never reach into server objects. It is where
each cross-cutting concern finds the request: its identity, its clock, the capacity it
spends (`ledger`) and where its outcome is counted (`metrics`)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from okura.core.capacity import Ledger
from okura.core.metrics import Metrics

if TYPE_CHECKING:
    from okura.core.catalog import Table
    from okura.core.clock import Clock
    from okura.core.database import Database


class Context:
    # server.http.Request sets these fields itself (one call less per request): a field
    # added here is added there too.
    __slots__ = ("db", "region", "access_key", "operation", "ledger", "table", "returned",
                 "identity", "throttled", "now", "authorization", "exchange")

    def __init__(self, db: Database, operation: str = "", region: str = "",
                 access_key: str = "") -> None:
        self.db = db
        self.operation = operation  # "GetItem", ... (the X-Amz-Target's action)
        self.region = region  # these two: from its Authorization, or its verified identity
        self.access_key = access_key  # the caller's access key id, from its signature
        self.ledger = Ledger()
        # The table the request addresses, once resolved (the first, for requests
        # over several): what its metrics are counted against.
        self.table: Table | None = None
        self.returned = 0  # items a Query, Scan or PartiQL SELECT returned
        # The caller's verified identity (okura.access.Identity) with --auth warn or
        # enforce; None while auth is off.
        self.identity: Any = None
        # What throttled the request or would have (shadow mode), if anything: (table, index
        # or None, partition key bytes or None) — for Contributor Insights.
        self.throttled: tuple | None = None
        # okura's clock when the request arrived, where the server read it (else 0.0): the
        # time the throttling gate decides it at, without reading the clock again
        self.now = 0.0
        # Its Authorization header, parsed once where the server first reads the request
        # (okura.access.sigv4.Authorization; None for a request from inside okura)
        self.authorization: Any = None
        # With --auth warn or enforce, what its signature covers and policies read
        # (okura.access.guard.Exchange: method, URL, every header, peer, TLS)
        self.exchange: Any = None

    def restart(self) -> None:
        """Forget what a run of the request that is to be run again spent (it wrote
        nothing: see CatalogChanged)."""
        self.ledger = Ledger()
        self.table = None
        self.returned = 0
        self.throttled = None

    @property
    def account(self) -> str:
        return self.db.account

    @property
    def clock(self) -> Clock:
        return self.db.clock

    @property
    def metrics(self) -> Metrics:
        return self.db.features[Metrics]

    def address(self) -> str:
        """host:port the client reached okura at (DescribeEndpoints); only a request
        that came over HTTP knows it."""
        raise NotImplementedError
