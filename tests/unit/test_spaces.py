"""Reserved row spaces never meet a table's own spaces."""
from okura.core import spaces


def test_reserved_spaces_are_distinct_and_below_every_table_space():
    reserved = [spaces.CLOCK, spaces.LEASES, spaces.STREAMS, spaces.TTL_TABLES,
                spaces.HISTORIES, spaces.BACKUPS, spaces.JOBS,
                spaces.EVENT_SOURCE_MAPPINGS, spaces.TRIGGER_CHECKPOINTS]
    assert len(set(reserved)) == len(reserved)
    # Ids come from a 64-bit sequence; a table's collection space is its negated id.
    lowest_table_space = spaces.collections_of((1 << 62) - 1)
    assert all(space < lowest_table_space for space in reserved)
    assert spaces.collections_of(1) == -1 and spaces.collections_of(2) == -2


def test_expiry_indexes_are_below_every_other_space():
    highest_expiry = spaces.expiry_of(1)
    assert highest_expiry < min(spaces.SECRETS, spaces.collections_of((1 << 62) - 1))
    assert spaces.expiry_of((1 << 62) - (1 << 32) - 1) >= -(1 << 63)  # a 64-bit integer
