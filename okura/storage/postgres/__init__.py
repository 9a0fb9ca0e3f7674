"""PostgreSQL backend: the engine (engine.py) and its versioned schema (migrations.py)."""
from okura.storage.postgres.engine import PostgresEngine

__all__ = ["PostgresEngine"]
