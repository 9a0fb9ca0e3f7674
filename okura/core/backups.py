"""On-demand and system backups: their records, and the job that takes them.

A backup is one row in the BACKUPS row space (hk: the region, terminated; rk: the
backup id, which sorts by creation) holding its details (`Backup`) and the table's
catalog document as it was. Its items are a copy-on-write snapshot (core.snapshots)
in a row space of its own, exact as of the CreateBackup call and taken in the
background by the "backup" job while the table keeps serving; the backup is then
AVAILABLE, with its item count and size measured from the copy. It outlives its
table. A system backup (of a table deleted with point-in-time recovery on) holds no
copy: it reads the table's history as of the deletion (`Backup.source`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from okura import arns
from okura.core import history, jobs, snapshots
from okura.core.catalog import Table
from okura.core.spaces import BACKUPS
from okura.storage import keys
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database

CREATING, AVAILABLE, DELETED = "CREATING", "AVAILABLE", "DELETED"
USER, SYSTEM = "USER", "SYSTEM"
SYSTEM_RETENTION = history.DELETED_RETENTION  # a system backup is kept 35 days (developer guide)


class Backup:
    """A backup's row, decoded: "Id", "Arn", "Name", "Type", "Status", "Created",
    "Expiry" (system backups), "Space" (its copy; None for a system backup, which reads
    "History" as of "At"),
    "Table" (the table's catalog document), "TableArn", "ItemCount", "SizeBytes",
    "Restoring" (ids of restore jobs reading it)."""

    __slots__ = ("region", "doc")

    def __init__(self, region: str, doc: dict) -> None:
        self.region = region
        self.doc = doc

    @property
    def arn(self) -> str:
        return self.doc["Arn"]

    async def update(self, db: Database, **members: object) -> bool:
        """Set members of the row (read again, locked); False if it is gone."""
        hk, rk = _hk(self.region), self.doc["Id"].encode()
        async with db.engine.transaction() as unit:
            raw = doc_of(await unit.get(BACKUPS, hk, rk, lock=True))
            if raw is None:
                return False
            self.doc = dict(orjson.loads(raw), **members)
            await unit.put(BACKUPS, hk, rk, 0, orjson.dumps(self.doc))
        return True

    def expired(self, now: float) -> bool:
        expiry = self.doc.get("Expiry")
        return expiry is not None and expiry <= now

    async def history(self, db: Database) -> history.History | None:
        """The history a system backup reads (None: an on-demand backup)."""
        if "History" not in self.doc:
            return None
        return await history.load(db, *self.doc["History"])


def _hk(region: str) -> bytes:
    return keys.terminated(region.encode())


async def find(db: Database, region: str, arn: str) -> Backup | None:
    """The backup of that ARN in the region (None: none, or a system backup expired)."""
    backup_id = arns.backup_id(arn)
    if backup_id is None:
        return None
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(BACKUPS, _hk(region), backup_id.encode()))
    if raw is None:
        return None
    backup = Backup(region, orjson.loads(raw))
    if backup.arn != arn:
        return None
    if backup.expired(db.clock.now()):
        await delete(db, backup)
        return None
    return backup


async def every(db: Database, region: str) -> list[Backup]:
    """Every backup of a region, oldest first (system backups past their expiry go)."""
    async with db.engine.reader() as unit:
        rows = await unit.query(BACKUPS, _hk(region), None, None, True, 1 << 30)
    found = [Backup(region, orjson.loads(doc)) for _, _, doc in rows]
    now = db.clock.now()
    for backup in found:
        if backup.expired(now):
            await delete(db, backup)
    return [backup for backup in found if not backup.expired(now)]


async def _insert(db: Database, backup: Backup) -> None:
    async with db.engine.transaction() as unit:
        await unit.put(BACKUPS, _hk(backup.region), backup.doc["Id"].encode(), 0,
                       orjson.dumps(backup.doc))


def _new(table: Table, name: str, kind: str, created: float, space: int | None) -> Backup:
    backup_id = jobs.fresh_id(created)
    return Backup(table.region, {
        "Id": backup_id, "Arn": arns.backup(table.arn, backup_id), "Name": name,
        "Type": kind, "Status": CREATING if space is not None else AVAILABLE,
        # as replies show it, so time filters agree with them
        "Created": round(created, 3), "Space": space, "Table": table.doc, "TableArn": table.arn,
        "ItemCount": 0, "SizeBytes": 0, "Restoring": []})


async def create(db: Database, table: Table, name: str) -> Backup:
    """Start an on-demand backup of the table as of now (CREATING until the job ends)."""
    space, created, table = await snapshots.start(db, table)
    backup = _new(table, name, USER, created, space)
    backup.doc["Table"] = {key: value for key, value in table.doc.items()
                           if key != snapshots.SNAPSHOTS}
    await _insert(db, backup)
    total = (await db.catalog.stats((table.id,)))[table.id][0]
    await jobs.submit(db, "backup", {"Region": table.region, "Id": backup.doc["Id"],
                                     "TableName": table.name, "TableId": table.id,
                                     "After": None, "Done": 0, "Total": total})
    return backup


async def create_system(db: Database, table: Table, deleted: float) -> None:
    """The system backup of a table deleted with point-in-time recovery on: it reads
    the table's history as of its deletion (kept as long as the backup)."""
    backup = _new(table, f"{table.name}$DeletedTableBackup", SYSTEM, deleted, None)
    found = await history.of_table(db, table)
    assert found is not None  # called for tables with point-in-time recovery only
    async with db.engine.reader() as unit:
        base_count, base_size = await unit.table_stats(table.id)
    backup.doc.update(Expiry=deleted + SYSTEM_RETENTION, ItemCount=base_count,
                      SizeBytes=base_size, History=[table.region, table.name, table.id],
                      At=deleted)
    await _insert(db, backup)


async def delete(db: Database, backup: Backup) -> None:
    async with db.engine.transaction() as unit:
        if backup.doc["Space"] is not None:
            await unit.drop_rows(backup.doc["Space"])
        await unit.delete(BACKUPS, _hk(backup.region), backup.doc["Id"].encode())


@jobs.kind("backup")
async def _step(db: Database, state: dict) -> dict | None:
    """Copy a chunk of the table into the backup; at the end, take the snapshot off the
    table and measure it."""
    region = state["Region"]
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(BACKUPS, _hk(region), state["Id"].encode()))
    if raw is None:
        return None
    backup = Backup(region, orjson.loads(raw))
    space = backup.doc["Space"]
    after = state["After"]
    position, count = await snapshots.copy(db, state["TableId"], space, None if after is None
                                           else (bytes.fromhex(after[0]),
                                                 bytes.fromhex(after[1])))
    if position is not None:
        return dict(state, After=[position[0].hex(), position[1].hex()],
                    Done=state["Done"] + count)
    await snapshots.release(db, region, state["TableName"], state["TableId"], space)
    count, size = await snapshots.drop_tombstones(db, space)
    await backup.update(db, Status=AVAILABLE, ItemCount=count, SizeBytes=size)
    return None
