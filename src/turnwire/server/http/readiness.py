"""``GET /health/ready``: whether this process can serve turns now (``GET /health`` stays
liveness: the process answers HTTP). Ready when the store answers a query and, when configured,
Redis answers ``PING``, each within ``PROBE_SECONDS``; else ``503`` with ``Retry-After``, naming
the service that is unreachable. Like ``/health`` it needs no API key and says nothing more."""

from __future__ import annotations

import asyncio
from typing import Any, Final

import sqlalchemy as sa
from starlette.responses import Response

from turnwire.server.http.errors import json_response
from turnwire.server.http.unavailable import RETRY_AFTER

PROBE_SECONDS: Final = 2.0


async def _probe(check: Any) -> str:
    # Waited for, not cancelled and awaited: a connection attempt to a server that is starting up
    # may take long to notice a cancellation, and readiness must answer within its bound.
    task = asyncio.ensure_future(check())
    done, _ = await asyncio.wait({task}, timeout=PROBE_SECONDS)
    if not done:
        task.cancel()
        _abandoned.add(task)
        task.add_done_callback(_forget)
        return "unreachable"
    return "ok" if task.exception() is None else "unreachable"


_abandoned: set[asyncio.Future[Any]] = set()


def _forget(task: asyncio.Future[Any]) -> None:
    _abandoned.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved: no "never retrieved" warning


async def _store_answers(store: Any) -> None:
    while not hasattr(store, "db"):  # a tenant's view: the store under it
        store = store.inner
    async with store.db.read() as conn:
        await conn.execute(sa.text("SELECT 1"))


def readiness(ctx: Any) -> Any:
    """The route handler for ``ctx`` (an ``AppContext``)."""

    async def ready() -> Response:
        report: dict[str, str] = {}
        store = ctx.store
        report["store"] = "none" if store is None else await _probe(lambda: _store_answers(store))
        client = getattr(ctx.pubsub, "client", None)
        if client is not None:
            report["redis"] = await _probe(client.ping)
        ok = all(v in ("ok", "none") for v in report.values())
        body = {"status": "ready" if ok else "unavailable", **report}
        return json_response(body, 200 if ok else 503, None if ok else {"retry-after": RETRY_AFTER})

    return ready
