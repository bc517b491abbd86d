"""The app's store over its lifetime: opened (and repaired) at startup, closed at shutdown."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI

from turnwire.store import SqlStore
from turnwire.store.recovery import recover_interrupted

log = logging.getLogger("turnwire.server")


def default_db_url() -> str:
    """``sqlite:///$XDG_DATA_HOME/turnwire/turnwire.db`` (``~/.local/share/turnwire/turnwire.db``);
    the folder is created if needed."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    folder = Path(base) / "turnwire"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'turnwire.db'}"


@contextlib.asynccontextmanager
async def store_lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open ``settings.db_url`` (else ``default_db_url()``) as ``app.state.store``, close messages a
    killed process left streaming, and close the store on shutdown. A store the app was given
    (``app.state.store`` already set) is used as it is and left open."""
    if getattr(app.state, "store", None) is not None:
        yield
        return
    settings = getattr(app.state, "settings", None)
    url = getattr(settings, "db_url", None) or default_db_url()
    store = SqlStore(url)
    await store.open()
    recovered = await recover_interrupted(store)
    if recovered:
        count = sum(len(ids) for ids in recovered.values())
        log.warning("marked %d message(s) left streaming by a stopped server as interrupted", count)
    app.state.store = store
    try:
        yield
    finally:
        app.state.store = None
        await store.close()
