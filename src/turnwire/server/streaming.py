"""Streamed /invoke responses: canonical events → frames → SSE or NDJSON bytes.

One loop serves every stream: a ``FrameEncoder`` turns events into frames (Agenta frames or UI
Message Stream chunks), the transport frames them as bytes, and keepalive comments fill silent gaps
on SSE. Terminators are written from ``finally``-like paths, so a failing run still ends properly.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import anyio

from turnwire.formats.agenta import event_to_frame
from turnwire.formats.vercel import agent_failure_text
from turnwire.framing import SSE_DONE, SSE_KEEPALIVE, ndjson_frame, sse_frame
from turnwire.model import Done, ErrorEvent, Event
from turnwire.runtime.keepalive import with_keepalive

log = logging.getLogger("turnwire.server")

Frame = dict[str, Any]


class FrameEncoder(Protocol):
    """Turns one run's events into wire frames; ``start``/``finish`` bracket the stream."""

    def start(self) -> list[Frame]: ...

    def encode(self, event: Event) -> list[Frame]: ...

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Frame]: ...


class AgentaFrames:
    """Agenta frames ``{"type", "data"}``: one per event, nothing around them."""

    __slots__ = ()

    def start(self) -> list[Frame]:
        return []

    def encode(self, event: Event) -> list[Frame]:
        return [event_to_frame(event)]

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Frame]:
        """Nothing after a normal run; after a broken one an ``error`` frame and a terminal ``done``."""
        if error is None:
            return []
        return [
            event_to_frame(ErrorEvent(message=error, code="agent_run_failed")),
            event_to_frame(Done(stop_reason="error")),
        ]


async def stream_bytes(
    events: AsyncIterator[Event],
    encoder: FrameEncoder,
    frame: Callable[[Any], bytes],
    *,
    keepalive: float | None,
    keepalive_bytes: bytes | None,
    trailer: bytes = b"",
) -> AsyncIterator[bytes]:
    """The response body for ``events``: encoded, framed, with keepalives and a trailer.

    From a ``TurnRun`` (anything with its ``pull``), the frames of every event the agent has
    already produced go out together as one ``bytes`` (one socket write); no frame waits for a
    later event. A keepalive goes out only after ``keepalive`` seconds without an event. A run
    that raises (the runner should never let it) still ends properly: the encoder's closing frames
    report the failure, then ``trailer``. If the client goes away, the iteration is cancelled and
    ``events`` is closed, which cancels the agent.
    """
    for f in encoder.start():
        yield frame(f)
    interval = keepalive if keepalive_bytes and keepalive is not None and keepalive > 0 else None
    to_bytes = _bytes_of(encoder, frame)
    pull = getattr(events, "pull", None)
    # No keepalive wrapper unless it has work to do: a generator layer per event otherwise.
    source: Any = events if pull is not None or interval is None else with_keepalive(events, interval)
    error: str | None = None
    try:
        if pull is not None:
            while True:
                try:
                    event = await pull(interval)
                except StopAsyncIteration:
                    break
                if event is None:
                    yield keepalive_bytes  # type: ignore[misc]  # None only comes with an interval
                    continue
                out = [to_bytes(event)]
                # Then what is already buffered, without waiting. After the final event the run
                # may still wait for its agent to stop: that must not hold the last frames back.
                while events.stop_reason is None:  # type: ignore[attr-defined]
                    event = await pull(0)
                    if event is None:
                        break
                    out.append(to_bytes(event))
                body = out[0] if len(out) == 1 else b"".join(out)
                if body:
                    yield body
        else:
            async for event in source:
                if event is None:
                    yield keepalive_bytes  # type: ignore[misc]
                    continue
                body = to_bytes(event)
                if body:
                    yield body
    except Exception as exc:  # the runner's contract was broken: still end the stream properly
        log.exception("turn stream failed", exc_info=exc)
        error = agent_failure_text(exc)
    finally:
        aclose = getattr(source, "aclose", None)
        if aclose is not None:
            with anyio.CancelScope(shield=True):
                await aclose()
    for f in encoder.finish(error=error):
        yield frame(f)
    if trailer:
        yield trailer


def _bytes_of(encoder: FrameEncoder, frame: Callable[[Any], bytes]) -> Callable[[Event], bytes]:
    """``event -> bytes``: the framed chunks of one event (``b""`` for none)."""
    if type(encoder) is AgentaFrames:
        # One frame per event, always: no list to build and walk.
        return lambda event: frame(event_to_frame(event))
    encode = encoder.encode

    def to_bytes(event: Event) -> bytes:
        chunks = encode(event)
        if len(chunks) == 1:
            return frame(chunks[0])
        return b"".join([frame(c) for c in chunks])

    return to_bytes


def agenta_sse(events: AsyncIterator[Event], keepalive: float | None) -> AsyncIterator[bytes]:
    """Agenta frames over SSE: ``data: <json>\\n\\n`` per frame, keepalive comments, no sentinel."""
    return stream_bytes(events, AgentaFrames(), sse_frame, keepalive=keepalive, keepalive_bytes=SSE_KEEPALIVE)


def agenta_ndjson(events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
    """Agenta frames as NDJSON lines. NDJSON has no comment syntax, so no keepalive is sent."""
    return stream_bytes(events, AgentaFrames(), ndjson_frame, keepalive=None, keepalive_bytes=None)


def vercel_sse(
    events: AsyncIterator[Event], encoder: FrameEncoder, keepalive: float | None
) -> AsyncIterator[bytes]:
    """The UI Message Stream over SSE, ending with ``data: [DONE]``."""
    return stream_bytes(
        events, encoder, sse_frame, keepalive=keepalive, keepalive_bytes=SSE_KEEPALIVE, trailer=SSE_DONE
    )
