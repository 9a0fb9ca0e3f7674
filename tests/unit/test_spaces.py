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
