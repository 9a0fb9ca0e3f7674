"""Eventual consistency (docs/consistency.md): when a write becomes visible to those who
do not ask for the latest.

Storage always holds the latest (so consistent reads, transactions and conditions see
it, and kill -9 loses nothing: a restart simply finds everything visible). What lags is
a view in this node's memory, with a two-sentence interface:
- `Lag.note(table, hk, rk, prior, now)`: this item's latest write becomes visible at
  clock time `now + delay` (`delays.Delays.draw`, seeded, never past the maximum);
  until then eventually consistent readers see `prior`.
- `Lag.seen(tid, hk, rk, now)`: what such a reader sees of the item now (LATEST: what
  storage holds); `views.page` applies it to a Query or Scan page, GSIs included.
`Lag.settle()` makes everything visible at once (POST /okura/settle).
"""
