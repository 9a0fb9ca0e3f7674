"""For the type checker only (nothing imports this module): every backend implements
the Engine protocol of engine.py, and its units (transaction() and reader()) the
Transaction protocol. mypy compares them member by member, signatures and all, so a
backend that drifts from the protocol fails the test suite (tests/unit/test_types.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the backends import their drivers (asyncpg): never at run time
    from okura.storage.engine import Engine, Transaction
    from okura.storage.memory import MemoryEngine, _MemoryUnit
    from okura.storage.postgres.engine import (PostgresEngine, _PostgresReader,
                                               _PostgresTransaction)
    from okura.storage.sqlite import SqliteEngine, _SqliteReader, _SqliteTransaction

    def _engines(memory: MemoryEngine, sqlite: SqliteEngine,
                 postgres: PostgresEngine) -> list[Engine]:
        return [memory, sqlite, postgres]

    def _units(memory: _MemoryUnit, sqlite: _SqliteTransaction, sqlite_reader: _SqliteReader,
               postgres: _PostgresTransaction,
               postgres_reader: _PostgresReader) -> list[Transaction]:
        return [memory, sqlite, sqlite_reader, postgres, postgres_reader]
