"""Export, import and bulk put jobs: their records, run as core.jobs background jobs.

Each export, import or bulk put is one row in the EXPORTS, IMPORTS or BULK_OPERATIONS
row space, keyed by its ARN:
its Describe document ("Description", DynamoDB's ExportDescription /
ImportTableDescription / BulkOperationDescription with times as epoch seconds) and its
progress, saved after every step (a data file written, a chunk of lines imported); the row
stays when the job ends, for Describe and List. The work runs as a core.jobs job (kinds
"export", "import" and "bulk-put", state: the ARN), so it goes in bounded steps off the request path, under a lease, and
resumes from the last saved step after a restart or on another node.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable

import orjson

from okura.core import features, jobs as background, spaces
from okura.core.transfer.objects import LocalStore, ObjectStore
from okura.storage.engine import doc_of

if TYPE_CHECKING:
    from okura.core.database import Database

IN_PROGRESS, COMPLETED, FAILED, CANCELLED = "IN_PROGRESS", "COMPLETED", "FAILED", "CANCELLED"
_ARN = {spaces.EXPORTS: "ExportArn", spaces.IMPORTS: "ImportArn",
        spaces.BULK_OPERATIONS: "BulkOperationArn"}
_STATUS = {spaces.EXPORTS: "ExportStatus", spaces.IMPORTS: "ImportStatus",
           spaces.BULK_OPERATIONS: "BulkOperationStatus"}
_KIND = {spaces.EXPORTS: "export", spaces.IMPORTS: "import", spaces.BULK_OPERATIONS: "bulk-put"}

# A kind's step: one bounded piece of work on the record, which it saves; False once
# the job has ended.
Step = Callable[["Database", dict], Awaitable[bool]]


@features.register
class Transfers(features.Feature):
    """Where export and import objects are (`store`), where import errors are logged
    (both set by the server from its settings), and the decoded object each import or
    bulk put running here is reading (`sources`, by its ARN: kept between its steps;
    core/transfer/loading.py)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.store: ObjectStore = LocalStore("s3")
        self.error_logs = "import-errors"
        self.sources: dict[str, Any] = {}


async def start(db: Database, space: int, record: dict) -> None:
    """Record a new job and set it running."""
    arn = record["Description"][_ARN[space]]
    async with db.engine.transaction() as unit:
        await unit.put(space, arn.encode(), b"", 0, orjson.dumps(record))
    await background.submit(db, _KIND[space], {"Arn": arn})


async def load(db: Database, space: int, arn: str) -> dict | None:
    async with db.engine.reader() as unit:
        raw = doc_of(await unit.get(space, arn.encode(), b""))
    return None if raw is None else orjson.loads(raw)


async def save(db: Database, space: int, record: dict) -> None:
    arn = record["Description"][_ARN[space]]
    async with db.engine.transaction() as unit:
        await unit.put(space, arn.encode(), b"", 0, orjson.dumps(record))


async def every(db: Database, space: int) -> list[dict]:
    """Every record of the space, in ARN order."""
    found: list[dict] = []
    after = None
    async with db.engine.reader() as unit:
        while True:
            rows = await unit.scan(space, after, None, None, 500)
            found.extend(orjson.loads(doc) for _, _, _, doc in rows)
            if len(rows) < 500:
                return found
            after = (rows[-1][0], rows[-1][1])


def end(space: int, record: dict, outcome: str, now: float, code: str = "",
        message: str = "") -> None:
    """Mark a job ended (COMPLETED, FAILED with its code and message, CANCELLED)."""
    description = record["Description"]
    description[_STATUS[space]] = outcome
    description["EndTime"] = now
    if code:
        description["FailureCode"] = code
        description["FailureMessage"] = message


def runs(space: int, done: Callable[[dict], int]) -> Callable[[Step], Step]:
    """Register a step as the core.jobs kind of the space's jobs; `done(record)` is the
    progress the runner logs (of the record's "Total", where it has one)."""
    def register(step: Step) -> Step:
        async def run(db: Database, state: dict) -> dict | None:
            record = await load(db, space, state["Arn"])
            if record is None or record["Description"][_STATUS[space]] != IN_PROGRESS:
                return None
            if not await step(db, record):
                return None
            return dict(state, Done=done(record), Total=record.get("Total", "?"))
        background.kind(_KIND[space])(run)
        return step
    return register
