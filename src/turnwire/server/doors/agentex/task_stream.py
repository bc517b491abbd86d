"""``GET /tasks/{id}/stream`` and ``/tasks/name/{name}/stream``: live TaskMessageUpdates over SSE.

Every turn running on the task publishes its ``start``/``delta``/``full``/``done`` frames, whichever
front door started it (``/invoke``, ``/chat``, ``message/send``). The stream opens with
``{"type": "connected", "taskId"}`` (subscribed before it is sent, so nothing after it is missed),
then one ``data:`` event per frame as it is published — no per-event sleep — and ``:ping`` after
every 15 s of silence. A reader that falls too far behind gets an ``error`` event and the stream ends;
so does every reader when the server shuts down.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any, Final

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from turnwire.conversations.pubsub import PubSub, SubscriberOverflow
from turnwire.conversations.stored import find_task
from turnwire.framing import SSE_MEDIA_TYPE, sse_frame
from turnwire.runtime.keepalive import with_keepalive
from turnwire.server.context import current
from turnwire.server.doors.agentex.body import Id
from turnwire.server.doors.agentex.deps import StoreDep
from turnwire.server.doors.agentex.errors import AgentexRoute
from turnwire.server.turns.shutdown import SHUTDOWN
from turnwire.store.base import Store

PING: Final = b":ping\n\n"
PING_SECONDS: Final = 15.0
SHUTDOWN_FRAME: Final = {
    "type": "error",
    "message": "the server is shutting down; reconnect to follow the task",
}
_STOP: Final[dict[str, Any]] = {"type": "stop"}
"""Put in the subscription by a shutdown: compared by identity, never sent."""
_HEADERS: Final = {"cache-control": "no-cache", "x-accel-buffering": "no"}

router = APIRouter(prefix="/tasks", tags=["conversations"], route_class=AgentexRoute)


async def task_events(
    pubsub: PubSub, task_id: str, ping: float | None = PING_SECONDS
) -> AsyncIterator[bytes]:
    """The SSE body for ``task_id``; subscribed when this returns, not when first iterated."""
    sub: Any = pubsub.subscribe(task_id)
    ready = getattr(sub, "ready", None)
    if ready is not None:  # a remote broker confirms the subscription asynchronously
        try:
            await ready()
        except BaseException:
            await sub.aclose()
            raise

    async def body() -> AsyncIterator[bytes]:
        items = with_keepalive(sub, ping)
        offer = getattr(sub, "offer", None)
        stopping = SHUTDOWN.watch(lambda: offer(_STOP)) if offer is not None else contextlib.nullcontext()
        try:
            yield sse_frame({"type": "connected", "taskId": task_id})
            with stopping:  # a server shutdown ends the stream now, not when the reader leaves
                async for frame in items:
                    if frame is _STOP:
                        yield sse_frame(SHUTDOWN_FRAME)
                        break
                    yield PING if frame is None else sse_frame(frame)
        except SubscriberOverflow as exc:
            yield sse_frame({"type": "error", "message": str(exc)})
        finally:
            await items.aclose()
            await sub.aclose()

    return body()


async def _stream(request: Request, store: Store, key: str) -> Response:
    task = await find_task(store, key)
    response = StreamingResponse(await task_events(current(request).pubsub, task["id"]), headers=_HEADERS)
    response.headers["content-type"] = f"{SSE_MEDIA_TYPE}; charset=utf-8"
    return response


@router.get("/name/{task_name}/stream", summary="Live updates of a task by name (SSE)")
async def stream_by_name(task_name: Id, request: Request, store: StoreDep) -> Response:
    return await _stream(request, store, task_name)


@router.get("/{task_id}/stream", summary="Live updates of a task (SSE)")
async def stream(task_id: Id, request: Request, store: StoreDep) -> Response:
    """TaskMessageUpdate events of every turn running on the task; ``task_id`` may be a session id."""
    return await _stream(request, store, task_id)
