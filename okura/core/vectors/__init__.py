"""Vector indexes (docs/vectors.md): their definitions in a table's catalog document
(definitions.py), the vectors of each in memory (matrix.py), the write hook and the
per-database state that keep them (maintenance.py), and the backfill of an index added
to a populated table (backfill.py)."""
