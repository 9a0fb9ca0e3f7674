"""The List operations' one paging rule (okura/core/paging.py)."""
from __future__ import annotations

from okura.core import paging

ENTRIES = ["a", "c", "e", "g"]


def test_a_page_names_its_last_entry_only_when_more_follow():
    assert paging.page(ENTRIES, 2) == (["a", "c"], "c")
    assert paging.page(ENTRIES, 2, 2) == (["e", "g"], None)
    assert paging.page(ENTRIES, 5, 1) == (["c", "e", "g"], None)
    assert paging.page(ENTRIES, None, 1) == (["c", "e", "g"], None)  # no Limit: the rest
    assert paging.page(ENTRIES, 3, 4) == ([], None)


def test_a_page_starts_after_a_key_whether_or_not_it_is_listed():
    assert paging.after(ENTRIES, None) == 0
    assert paging.after(ENTRIES, "c") == 2
    assert paging.after(ENTRIES, "d") == 2  # a table deleted since the last page
    assert paging.after(ENTRIES, "z") == 4


def test_a_page_starts_after_exactly_a_listed_entry():
    assert paging.following(ENTRIES, None) == 0
    assert paging.following(ENTRIES, "e") == 3
    assert paging.following(ENTRIES, "d") is None
