"""A replica's place in its global table, as its catalog document holds it.

Every replica is an ordinary table of its region; its document names the regions of
the others (MEMBERS, in the order they joined), those being deleted (LEAVING: region
-> when its deletion ends) and the settings other regions describe it with
(OVERRIDES). A table whose document names no other region is not global, and nothing
of this package runs for it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from okura.core.catalog import Table

VERSION = "2019.11.21"
MEMBERS = "ReplicaGroup"
LEAVING = "ReplicasLeaving"
OVERRIDES = "ReplicaOverrides"
PRIVATE = (MEMBERS, LEAVING, OVERRIDES)


def others(table: Table) -> tuple[str, ...]:
    """The regions of the table's other replicas (empty: not a global table)."""
    return tuple(table.doc.get(MEMBERS, ()))


def joined(doc: dict, region: str) -> dict:
    """`doc` with `region` a member of its group (a copy)."""
    doc = dict(doc, GlobalTableVersion=VERSION)
    doc[MEMBERS] = [*doc.get(MEMBERS, ()), region]
    leaving = {name: until for name, until in doc.get(LEAVING, {}).items() if name != region}
    doc[LEAVING] = leaving
    return doc


def left(doc: dict, region: str, until: float) -> dict:
    """`doc` without `region` in its group, which is described DELETING until `until`."""
    doc = dict(doc)
    doc[MEMBERS] = [name for name in doc.get(MEMBERS, ()) if name != region]
    doc[LEAVING] = dict(doc.get(LEAVING, {}), **{region: until})
    if not doc[MEMBERS]:
        doc.pop("GlobalTableVersion", None)
    return doc
