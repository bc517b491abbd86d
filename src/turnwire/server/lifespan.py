"""The FastAPI lifespan of an app: stop signals watched, and the app's context running
(its store and Redis open) for the app's lifetime."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from turnwire.server.context import AppContext
from turnwire.server.turns.shutdown import begin_on_stop_signals


def app_lifespan(ctx: AppContext) -> Callable[[Any], contextlib.AbstractAsyncContextManager[None]]:
    """A FastAPI ``lifespan`` running ``ctx`` for the app's lifetime."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        # A stop signal ends open streams at once (server.shutdown), not when their readers leave.
        with begin_on_stop_signals():
            async with ctx.running():
                yield

    return lifespan
