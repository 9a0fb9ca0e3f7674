"""Leases: which node runs a background duty (the TTL sweeper; later triggers)
when several okura nodes share one database.

A lease is one row in the LEASES row space: its holder and the time it runs out.
A node takes it when it is free, expired, or already its own, and renews it well
before it runs out; a node that dies simply stops renewing, and another takes
over once the lease has expired. The check-and-take is one storage transaction
that locks the row. Two nodes racing for a lease nobody ever held may both win
that first round; the duties guarded by leases tolerate that (the sweeper's
deletes are conditional on the item still being expired).
"""
from __future__ import annotations

import orjson

LEASES = -3  # row space of leases (table ids are positive)


async def acquire(db, name: str, holder: str, now: float, until: float) -> bool:
    """Take or renew the lease `name` for `holder` until `until`; False if another
    holder's lease is still running."""
    key = name.encode()
    async with db.engine.transaction() as unit:
        raw = await unit.get(LEASES, key, b"", lock=True)
        if raw is not None:
            lease = orjson.loads(raw)
            if lease["Holder"] != holder and lease["Until"] > now:
                return False
        await unit.put(LEASES, key, b"", 0, orjson.dumps({"Holder": holder, "Until": until}))
    return True


async def holder(db, name: str) -> dict | None:
    """The lease row ({"Holder", "Until"}) or None."""
    async with db.engine.reader() as unit:
        raw = await unit.get(LEASES, name.encode(), b"")
    return None if raw is None else orjson.loads(raw)
