"""The app's store over its lifetime: opened (and repaired) at startup, closed at shutdown."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI

from turnwire.store import SqlStore
from turnwire.store.writers import DEFAULT_LEASE_SECONDS, WriterLease

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
    """Open ``settings.db_url`` (else ``default_db_url()``) as ``app.state.store`` under a writer
    lease (``store.writers``): messages that dead server processes left streaming are closed, now
    and while the app runs, and this process's own live streams are safe from its peers. The store
    is closed on shutdown. A store the app was given (``app.state.store`` already set) is used as it
    is and left open. With ``settings.redis_url``, ``app.state.pubsub`` becomes a ``RedisPubSub``."""
    settings = getattr(app.state, "settings", None)
    async with contextlib.AsyncExitStack() as stack:
        redis_url = getattr(settings, "redis_url", None)
        if redis_url:
            from turnwire.pubsub_redis import RedisPubSub

            pubsub = RedisPubSub(redis_url)
            await pubsub.start()
            stack.push_async_callback(pubsub.close)
            app.state.pubsub = pubsub
        if getattr(app.state, "store", None) is not None:
            yield
            return
        url = getattr(settings, "db_url", None) or default_db_url()
        store = SqlStore(url)
        await store.open()
        stack.push_async_callback(store.close)
        lease_seconds = getattr(settings, "writer_lease_seconds", None) or DEFAULT_LEASE_SECONDS
        lease = WriterLease(store, lease_seconds=lease_seconds)
        recovered = await lease.start()
        stack.push_async_callback(lease.stop)
        if recovered:
            count = sum(len(ids) for ids in recovered.values())
            log.warning("marked %d message(s) left streaming by a stopped server as interrupted", count)
        app.state.store = store
        try:
            yield
        finally:
            app.state.store = None
