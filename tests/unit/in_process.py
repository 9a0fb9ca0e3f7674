"""An okura App in this process, over an in-memory database (or other settings):
dispatch without HTTP."""
from __future__ import annotations

import contextlib

from okura.config import Settings
from okura.core.database import Database
from okura.server.app import App, make_engine


@contextlib.asynccontextmanager
async def app_on(settings: Settings):
    db = Database(make_engine(settings), settings.account_id)
    await db.open()
    try:
        yield App(db, settings)
    finally:
        await db.close()


def memory_app():
    return app_on(Settings(memory=True))
