"""Global tables, version 2019.11.21 (docs/global-tables.md): replicas of one table in
other regions of the same okura, kept in step by multi-region eventual consistency.

- group.py: which regions a table's replicas are in, in its catalog document;
- log.py: the write hook that stamps every write to a replica and logs it for the
  others, in the write's own transaction;
- applier.py: the background duty that applies the logged writes to the other
  replicas, last writer wins;
- copy.py: the job that fills a new replica with the items already there.
"""
