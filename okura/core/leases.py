"""Leases: which node runs a background duty (the TTL sweeper, each job, history
upkeep, a trigger's delivery, a Kinesis feed) when several okura nodes share one
database; a node alone on its storage takes none (core/scheduler.holds).

A lease is one row in the LEASES row space: its holder and the time it runs out.
A node takes it when it is free, expired, or already its own, and renews it well
before it runs out; a node that dies simply stops renewing, and another takes
over once the lease has expired. The check-and-take is one storage transaction
that locks the row (an absent row is claimed, docs/postgres.md), so two nodes never
both win one round. Lease times are the shared clock's: moving the clock forward
ends leases early, and whoever asks next holds the lease from then on. The duties
guarded by leases tolerate a stale holder finishing its step (the sweeper's deletes
are conditional on the item still being expired; indexing a row is idempotent).
A duty takes its lease only when it has work, so an idle cluster writes no lease row.
"""
from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING

import orjson

from okura.core.spaces import LEASES
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database

# This process, as lease rows name their holder: which node holds what is readable
# in the database.
NODE = f"{socket.gethostname()}:{os.getpid()}"


async def acquire(db: Database, name: str, holder: str, now: float, until: float) -> bool:
    """Take or renew the lease `name` for `holder` until `until`; False if another
    holder's lease is still running."""
    key = name.encode()
    async with db.engine.transaction() as unit:
        raw = doc_of(await unit.get(LEASES, key, b"", lock=True))
        if raw is not None:
            lease = orjson.loads(raw)
            if lease["Holder"] != holder and lease["Until"] > now:
                return False
        await unit.put(LEASES, key, b"", 0, orjson.dumps({"Holder": holder, "Until": until}))
    return True


async def holder(db: Database, name: str) -> dict | None:
    """The lease row ({"Holder", "Until"}) or None."""
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(LEASES, name.encode(), b""))
    return None if raw is None else orjson.loads(raw)
