"""How long a write stays out of sight: a seeded draw from one documented distribution.

DynamoDB says a write "usually" reaches its global secondary indexes and replicas
"within a second". okura draws each delay from an exponential distribution whose mean
is an eighth of the maximum, cut at the maximum: with the default maximum of 2 s the mean
is 0.25 s, the median 0.17 s, about 1.8 % of writes take longer than a second and none
longer than 2 s (docs/decisions.md). Draws come from one random.Random seeded with
--consistency-seed, in the order writes commit, so the same requests in the same order
get the same delays.
"""
from __future__ import annotations

import random

MEAN_SHARE = 8  # the mean delay is the maximum over this


class Delays:
    __slots__ = ("seed", "maximum", "_random")

    def __init__(self, seed: int, maximum: float) -> None:
        self.seed = seed
        self.maximum = maximum
        self._random = random.Random(seed)

    def draw(self) -> float:
        """Seconds the next write stays out of sight."""
        if self.maximum <= 0:
            return 0.0
        return min(self.maximum, self._random.expovariate(MEAN_SHARE / self.maximum))
