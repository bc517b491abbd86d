"""Streamed turn answers: a run's events → a format's frames → SSE or NDJSON bytes.

One loop serves every stream: the format's ``StreamEncoder`` turns events into frames, the
transport frames them as bytes, and keepalive comments fill silent gaps on SSE. Closing frames are
written on every path, so a failing run still ends its stream properly.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Final

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from turnwire.conversations.write_retry import TurnNotStored
from turnwire.formats import StreamEncoder
from turnwire.framing import (
    NDJSON_MEDIA_TYPE,
    SSE_KEEPALIVE,
    SSE_KEEPALIVE_LINE,
    SSE_MEDIA_TYPE,
    ndjson_frame,
    sse_frame,
    sse_numbered_frames,
)
from turnwire.model import Event
from turnwire.runtime.runner import EventRun
from turnwire.server.http.negotiation import Transport
from turnwire.server.http.request_id import internal_error_message, log_failure
from turnwire.server.turns.shutdown import SHUTDOWN

SSE_CONTENT_TYPE: Final = f"{SSE_MEDIA_TYPE}; charset=utf-8"
SSE_HEADERS: Final = {"cache-control": "no-cache", "x-accel-buffering": "no"}
"""Streams must reach the client chunk by chunk: no proxy buffering, no caching."""


def stream_body(
    run: EventRun,
    encoder: StreamEncoder,
    transport: Transport,
    *,
    keepalive: float | None = None,
    trailer: bytes = b"",
    event_ids: str | None = None,
    framer: Callable[[Any], bytes] | None = None,
    closing: Callable[[bool], Awaitable[None]] | None = None,
) -> StreamBody:
    """The response body for ``run``: encoded, framed, with keepalives (SSE only) and a trailer.
    With ``event_ids`` (SSE only), every event carries the id ``<event_ids>:<n>``, n counting from 1,
    and keepalives are ``SSE_KEEPALIVE_LINE``; ``framer`` frames each frame instead of the
    transport's own framing (an SSE event named by the frame's type, for one).

    ``closing(True)`` is awaited after the encoder's closing frames, before the trailer: a door's
    work that must be done before its client reads the end (and may send its next request), such
    as keeping the response it will refer to. A stream cut short (the client gone, a shutdown)
    awaits ``closing(False)`` instead. Both are shielded from the stream's cancellation.

    The frames of every event the agent has already produced go out together as one ``bytes``
    (one socket write); no frame waits for a later event. A keepalive goes out only after
    ``keepalive`` seconds without an event (NDJSON has no comment syntax: none there). A run that
    raises (the runner should never let it) still ends properly: the encoder's closing frames
    report the failure, then ``trailer``. If the client goes away, the iteration is cancelled and
    ``run`` is closed, which cancels the agent.

    The encoder's opening frames are made here, at once: they depend on no event, and a live turn
    takes them (``StreamBody.take_opening``) into its log before its task first runs, so its
    first reader sends them without waiting for that task's first turn of the event loop.
    """
    sse = transport is Transport.SSE
    if framer is not None:
        frame = framer
    else:
        frame = (sse_frame if event_ids is None else sse_numbered_frames(event_ids)) if sse else ndjson_frame
    body = StreamBody([frame(f) for f in encoder.start()])
    body.rest = _rest(body, run, encoder, frame, keepalive if sse else None, trailer, event_ids, closing)
    return body


class StreamBody:
    """What ``stream_body`` answers: an async iterator of the body's bytes, whose opening frames
    (``opening``) are already made. ``take_opening`` hands them out once, as one ``bytes``; the
    iteration then starts after them. Iterating it is iterating one async generator (no wrapper
    per chunk)."""

    __slots__ = ("opening", "rest")

    def __init__(self, opening: list[bytes]) -> None:
        self.opening = opening
        self.rest: AsyncGenerator[bytes, None]

    def take_opening(self) -> bytes:
        opening, self.opening = self.opening, []
        return b"".join(opening)

    def __aiter__(self) -> AsyncGenerator[bytes, None]:
        return self.rest

    def __anext__(self) -> Awaitable[bytes]:
        return self.rest.__anext__()

    async def aclose(self) -> None:
        await self.rest.aclose()


async def _rest(
    body: StreamBody,
    run: EventRun,
    encoder: StreamEncoder,
    frame: Callable[[Any], bytes],
    keepalive: float | None,
    trailer: bytes,
    event_ids: str | None,
    closing: Callable[[bool], Awaitable[None]] | None,
) -> AsyncGenerator[bytes, None]:
    closed = closing is None
    try:
        with cancel_on_shutdown(run):
            for data in body.opening:  # not taken by a live turn: they go out first, one by one
                yield data
            body.opening = []
            keepalive_bytes = SSE_KEEPALIVE if event_ids is None else SSE_KEEPALIVE_LINE
            interval = keepalive if keepalive is not None and keepalive > 0 else None
            to_bytes = _bytes_of(encoder, frame)
            pull = run.pull
            error: str | None = None
            try:
                ended = False
                while not ended:
                    try:
                        event = await pull(interval)
                    except StopAsyncIteration:
                        break
                    if event is None:
                        yield keepalive_bytes
                        continue
                    out = [to_bytes(event)]
                    # Then what is already buffered, without waiting. After the final event the run may
                    # still wait for its agent to stop: that must not hold the last frames back. A run
                    # may also end here without a stop reason (an EventRun other than TurnRun).
                    while run.stop_reason is None:
                        try:
                            event = await pull(0)
                        except StopAsyncIteration:
                            ended = True
                            break
                        if event is None:
                            break
                        out.append(to_bytes(event))
                    body_bytes = out[0] if len(out) == 1 else b"".join(out)
                    if body_bytes:
                        yield body_bytes
            except TurnNotStored as exc:  # the turn ran, but what it said is not in the conversation
                error = f"{exc} (logged on the server with request id {log_failure(exc, 'storing a turn')})"
            except Exception as exc:  # the runner's contract was broken: still end the stream properly
                # (the frame tells the request id of the log line, never the exception: no SQL, no paths)
                error = internal_error_message(log_failure(exc, "turn stream"))
            finally:
                # No anyio shield: the body is driven by the live turn's own asyncio task, where a
                # shield stops no cancellation (a native ``task.cancel()`` goes through it), and the
                # run's close already waits out a cancellation of its caller (``runner.stop_task``).
                await run.aclose()
            for f in encoder.finish(error=error):
                yield frame(f)
            if closing is not None:
                closed = True
                await asyncio.shield(closing(True))
            if trailer:
                yield trailer
    finally:
        if not closed:  # cut short: the client left, or the server is shutting down
            assert closing is not None
            await asyncio.shield(closing(False))


def cancel_on_shutdown(run: EventRun) -> contextlib.AbstractContextManager[None]:
    """While a stream runs, a server shutdown cancels its turn: the agent stops, the stream ends
    with the format's closing frames, and the recorder's closing write stores the turn."""
    cancel = getattr(run, "cancel", None)
    return SHUTDOWN.watch(cancel) if cancel is not None else contextlib.nullcontext()


def _bytes_of(encoder: StreamEncoder, frame: Callable[[Any], bytes]) -> Callable[[Event], bytes]:
    """``event -> bytes``: the framed chunks of one event (``b""`` for none)."""
    encode = encoder.encode

    def to_bytes(event: Event) -> bytes:
        chunks = encode(event)
        if len(chunks) == 1:
            return frame(chunks[0])
        return b"".join([frame(c) for c in chunks])

    return to_bytes


class BodyStream(StreamingResponse):
    """A ``StreamingResponse`` that watches for the client's departure with one plain task.

    Starlette's (for servers of ASGI spec < 2.4, uvicorn among them) runs the body and the
    disconnect listener in an anyio task group: two tasks, a cancel scope and events per
    response. Here the request's own task sends the body; a second task waits for
    ``http.disconnect`` and cancels it, which closes the body iterator at its ``await`` as the
    task group did (a turn's reader leaving: ``LiveTurn.follow``)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.background is not None:
            await super().__call__(scope, receive, send)
            return
        task = asyncio.current_task()
        assert task is not None
        gone: list[bool] = []
        watcher = asyncio.get_running_loop().create_task(_client_left(receive, task, gone))
        try:
            await self.stream_response(send)
        except asyncio.CancelledError:
            if not gone or task.uncancel():  # cancelled by someone else too: theirs to handle
                raise
        finally:
            watcher.cancel()


async def _client_left(receive: Receive, task: asyncio.Task[Any], gone: list[bool]) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.append(True)
            task.cancel()
            return


def stream_response(
    body: AsyncIterator[bytes], transport: Transport, headers: Mapping[str, str]
) -> StreamingResponse:
    """A streaming response of ``body`` with the transport's media type and no-buffering headers."""
    if transport is Transport.NDJSON:
        return BodyStream(body, headers=dict(headers), media_type=NDJSON_MEDIA_TYPE)
    response = BodyStream(body, headers={**SSE_HEADERS, **headers})
    response.headers["content-type"] = SSE_CONTENT_TYPE
    return response
