"""Reserved row spaces: okura's own bookkeeping kept in ordinary rows.

Tables and indexes own the positive ids handed out by the storage id sequence.
A table with local secondary indexes keeps its item-collection sizes in the
space of its negated id; a table with TTL keeps its expiry index (core/ttl/expiry.py)
in a space below okura's own (`expiry_of`), a global table's replica its write stamps
(`stamps_of`). okura's shared state lives far below all of those, so
no table id can ever reach it.
"""
from __future__ import annotations

_BASE = -(1 << 62)
_EXPIRIES = _BASE - (1 << 32)  # and below: expiry indexes, by table id
_VECTOR_LOGS = _BASE - (2 << 32)  # and below: vector indexes' change logs, by index id
_STAMPS = _BASE - (3 << 32)  # and below: global tables' write stamps, by table id

CLOCK = _BASE                # the shared clock offset
LEASES = _BASE - 1           # leases (TTL sweeper, index jobs)
STREAMS = _BASE - 2          # the stream directory: one row per stream
TTL_TABLES = _BASE - 3       # the tables with TTL enabled
HISTORIES = _BASE - 4        # point-in-time recovery: one directory row per table's history
BACKUPS = _BASE - 5          # on-demand and system backups: one row per backup
JOBS = _BASE - 6             # background jobs (backups, restores, ...): one row per job
EVENT_SOURCE_MAPPINGS = _BASE - 7  # stream triggers: one row per event source mapping
TRIGGER_CHECKPOINTS = _BASE - 8    # and where each has got to in its stream
EXPORTS = _BASE - 9              # S3 exports: one row per export, its description and progress
IMPORTS = _BASE - 10             # S3 imports: likewise
THROUGHPUT = _BASE - 11          # throughput budgets: one row per node, what it spent
KINESIS_LOGS = _BASE - 12        # Kinesis streaming destinations: one change log per table
SECRETS = _BASE - 13             # the secret that seals tokens (core/sealed.py)
BULK_OPERATIONS = _BASE - 14     # bulk puts from S3: one row per operation, like IMPORTS
REPLICATION = _BASE - 15         # global tables: the writes still to reach each replica


def collections_of(table_id: int) -> int:
    """The row space of a table's item-collection sizes."""
    return -table_id


def expiry_of(table_id: int) -> int:
    """The row space of a TTL table's expiry index."""
    return _EXPIRIES - table_id


def vector_log_of(index_id: int) -> int:
    """The row space of a vector index's change log (core/vectors/changes.py)."""
    return _VECTOR_LOGS - index_id


def stamps_of(table_id: int) -> int:
    """The row space of a global table replica's write stamps (core/replication/)."""
    return _STAMPS - table_id
