"""The one scheduler of background work (core/scheduler.py): a duty that fails is
logged and runs again, even when its exception cannot be formatted; a duty runs only
when its cheap test says there is work, and at once when an event it waits for is
signalled; a node alone on its storage takes no lease."""
from __future__ import annotations

import asyncio
import logging

from in_process import memory_app
from okura.core import leases
from okura.core.scheduler import Duty, report
from okura.core.spaces import LEASES


class Unprintable(Exception):
    """An exception whose every formatting fails."""

    def __str__(self) -> str:
        raise RuntimeError("no str")

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class BadHandler(logging.Handler):
    """A handler that fails however it is used (logging's own error path included)."""

    def emit(self, record: logging.LogRecord) -> None:
        raise TypeError("invalid exception object")

    def handleError(self, record: logging.LogRecord) -> None:
        raise TypeError("issubclass() arg 1 must be a class")


def test_report_never_raises(caplog):
    report("a duty", Unprintable())  # caplog's handler formats it: its str fails
    bad = BadHandler()
    logger = logging.getLogger("okura.background")
    logger.addHandler(bad)
    try:
        report("a duty", Unprintable())
        report("a duty", ValueError("plain"))
    finally:
        logger.removeHandler(bad)


def test_a_failing_duty_is_logged_and_runs_again(caplog):
    async def scenario():
        async with memory_app() as app:
            runs = []

            async def work() -> float:
                runs.append(1)
                if len(runs) < 3:
                    raise Unprintable()
                return 0.001

            app.db.background.add(Duty("failing", work, 0.001))
            for _ in range(200):
                if len(runs) >= 5:
                    break
                await asyncio.sleep(0.005)
            app.db.background.close()
            return len(runs)

    assert asyncio.run(scenario()) >= 5
    failures = [r for r in caplog.records if r.name == "okura.background"]
    assert len(failures) == 2
    assert failures[0].getMessage().startswith(
        "background duty failing failed; it runs again\nTraceback")


def test_a_duty_runs_only_with_work_and_wakes_on_its_event():
    async def scenario():
        async with memory_app() as app:
            background = app.db.background
            has_work = [False]
            runs = []

            async def work() -> None:
                runs.append(1)

            background.add(Duty("idle", work, None, lease="idle-lease",
                                pending=lambda: has_work[0], wakes_on=("poke",)))
            await asyncio.sleep(0.05)
            assert runs == []  # its first look: nothing to do; then nothing wakes it
            background.signal("elsewhere")
            await asyncio.sleep(0.01)
            assert runs == []
            has_work[0] = True
            await asyncio.sleep(0.05)
            assert runs == []  # it runs when woken, not on a timer
            background.signal("poke")
            await asyncio.sleep(0.01)
            assert runs == [1]
            background.close()
            async with app.db.engine.reader() as unit:  # alone on its storage: no lease row
                assert await unit.scan(LEASES, None, None, None, 10) == []
            assert await leases.holder(app.db, "idle-lease") is None

    asyncio.run(scenario())
