"""An app context's resources over the app's lifetime: the store opened (and repaired) at
startup, Redis pub/sub when configured, both closed at shutdown."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from turnwire.server.context import AppContext
from turnwire.server.shutdown import begin_on_stop_signals
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
async def running(ctx: AppContext) -> AsyncIterator[None]:
    """Open ``ctx.settings.db_url`` (else ``default_db_url()``) as ``ctx.store`` under a writer
    lease (``store.writers``): messages that dead server processes left streaming are closed, now
    and while the app runs, and this process's own live streams are safe from its peers. With
    ``settings.redis_url``, ``ctx.pubsub`` becomes a ``RedisPubSub``. A store the context already
    has is used as it is and left open."""
    settings = ctx.settings
    async with contextlib.AsyncExitStack() as stack:
        if settings.redis_url:
            from turnwire.conversations.redis_pubsub import RedisPubSub

            pubsub = RedisPubSub(settings.redis_url)
            await pubsub.start()
            stack.push_async_callback(pubsub.close)
            ctx.pubsub = pubsub
        if ctx.store is not None:
            stack.push_async_callback(ctx.stop_turns)
            yield
            return
        store = SqlStore(settings.db_url or default_db_url())
        await store.open()
        stack.push_async_callback(store.close)
        lease = WriterLease(store, lease_seconds=settings.writer_lease_seconds or DEFAULT_LEASE_SECONDS)
        recovered = await lease.start()
        stack.push_async_callback(lease.stop)
        if recovered:
            count = sum(len(ids) for ids in recovered.values())
            log.warning("marked %d message(s) left streaming by a stopped server as interrupted", count)
        ctx.store = store
        # Closed first (last in): running turns end and store their replies while the store is open.
        stack.push_async_callback(ctx.stop_turns)
        try:
            yield
        finally:
            ctx.store = None


def app_lifespan(ctx: AppContext) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A FastAPI ``lifespan`` running ``ctx`` for the app's lifetime."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        # A stop signal ends open streams at once (server.shutdown), not when their readers leave.
        with begin_on_stop_signals():
            async with running(ctx):
                yield

    return lifespan
