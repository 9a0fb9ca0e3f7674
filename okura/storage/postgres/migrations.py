"""The PostgreSQL schema as numbered migrations, applied on start.

The schema version lives in okura_meta (as in the SQLite file). Migrating runs in
one transaction that holds that row's lock, so several okura nodes starting at once
over one database apply each migration exactly once; the others wait, then find
the work done. Migrations are append-only: a released one never changes.
"""
from __future__ import annotations

import asyncpg

_META = (
    "CREATE TABLE IF NOT EXISTS okura_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO okura_meta(key, value) VALUES('schema_version', '0') ON CONFLICT DO NOTHING",
)

# MIGRATIONS[n - 1] takes the schema from version n - 1 to version n.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        # One sequence numbers tables and indexes alike, so their row spaces never
        # collide; a sequence never hands a value out twice, even across rollbacks.
        "CREATE SEQUENCE ids",
        "CREATE TABLE catalog("
        " id BIGINT PRIMARY KEY, region TEXT NOT NULL, name TEXT NOT NULL,"
        " doc BYTEA NOT NULL, UNIQUE(region, name))",
        # bytea compares as memcmp, the order storage/keys.py encodes. doc is NULL
        # only in a row a write transaction claimed for an absent key (see
        # postgres/engine.py); such a row is never committed.
        "CREATE TABLE items("
        " tid BIGINT NOT NULL, hk BYTEA NOT NULL, rk BYTEA NOT NULL,"
        " size INTEGER NOT NULL, doc BYTEA,"
        " PRIMARY KEY(tid, hk, rk))",
        # Idempotency tokens of transactions; outcome is NULL while one runs.
        "CREATE TABLE tokens("
        " key TEXT PRIMARY KEY, digest BYTEA NOT NULL, outcome BYTEA,"
        " expires DOUBLE PRECISION NOT NULL)",
        "CREATE INDEX tokens_expiry ON tokens(expires)",
    ),
    (
        # Catalog documents get versions: saves compare-and-swap on them, and writes
        # check theirs (in their transaction) against the document they planned with.
        "ALTER TABLE catalog ADD COLUMN version BIGINT NOT NULL DEFAULT 1",
    ),
    (
        # A single-item write's locked read in one round trip (engine.py: _LOCK): the
        # probe that fails against a transaction's FOR UPDATE (55P03), the read that
        # queues behind other single-item writes, and the claim of an absent key, run
        # again if another writer committed the row between read and claim.
        "CREATE OR REPLACE FUNCTION okura_lock(p_tid BIGINT, p_hk BYTEA, p_rk BYTEA,"
        " OUT old_size INTEGER, OUT old_doc BYTEA, OUT claimed BOOLEAN)"
        " LANGUAGE plpgsql AS $$"
        " BEGIN"
        "  PERFORM 1 FROM items i WHERE i.tid=p_tid AND i.hk=p_hk AND i.rk=p_rk"
        "   FOR KEY SHARE NOWAIT;"
        "  LOOP"
        "   SELECT i.size, i.doc INTO old_size, old_doc FROM items i"
        "    WHERE i.tid=p_tid AND i.hk=p_hk AND i.rk=p_rk FOR NO KEY UPDATE;"
        "   IF FOUND THEN claimed := false; RETURN; END IF;"
        "   INSERT INTO items(tid, hk, rk, size, doc) VALUES(p_tid, p_hk, p_rk, 0, NULL)"
        "    ON CONFLICT DO NOTHING;"
        "   IF FOUND THEN claimed := true; RETURN; END IF;"
        "  END LOOP;"
        " END $$",
        # One row's put (doc not NULL) or delete (doc NULL): a transaction's writes go
        # out in order with its COMMIT as one script of these calls (engine.py: _script).
        "CREATE OR REPLACE FUNCTION okura_write(p_tid BIGINT, p_hk BYTEA, p_rk BYTEA,"
        " p_size INTEGER, p_doc BYTEA) RETURNS void LANGUAGE plpgsql AS $$"
        " BEGIN"
        "  IF p_doc IS NULL THEN"
        "   DELETE FROM items WHERE tid=p_tid AND hk=p_hk AND rk=p_rk;"
        "  ELSE"
        "   INSERT INTO items(tid, hk, rk, size, doc) VALUES(p_tid, p_hk, p_rk, p_size, p_doc)"
        "    ON CONFLICT (tid, hk, rk) DO UPDATE SET size=excluded.size, doc=excluded.doc;"
        "  END IF;"
        " END $$",
    ),
)


async def migrate(connection: asyncpg.Connection) -> None:
    """Bring the schema to the newest version; refuse a database from a newer okura."""
    try:
        await connection.execute(_META[0])
    except (asyncpg.UniqueViolationError, asyncpg.DuplicateObjectError,
            asyncpg.DuplicateTableError):
        # Two nodes created okura_meta at once: PostgreSQL reports the loser's clash in
        # its system catalog (a unique violation, or a duplicate table or row type)
        # instead of honouring IF NOT EXISTS. The table exists now.
        await connection.execute(_META[0])
    await connection.execute(_META[1])
    async with connection.transaction():
        found = int(await connection.fetchval(
            "SELECT value FROM okura_meta WHERE key='schema_version' FOR UPDATE"))
        if found > len(MIGRATIONS):
            raise RuntimeError(f"database holds schema version {found}, "
                               f"this okura knows {len(MIGRATIONS)}")
        for statements in MIGRATIONS[found:]:
            for statement in statements:
                await connection.execute(statement)
        if found < len(MIGRATIONS):
            await connection.execute(
                "UPDATE okura_meta SET value=$1 WHERE key='schema_version'", str(len(MIGRATIONS)))
