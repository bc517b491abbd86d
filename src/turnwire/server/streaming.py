"""Streamed /invoke responses: canonical events → frames → SSE or NDJSON bytes.

One loop serves every stream: a ``FrameEncoder`` turns events into frames (Agenta frames or UI
Message Stream chunks), the transport frames them as bytes, and keepalive comments fill silent gaps
on SSE. Terminators are written from ``finally``-like paths, so a failing run still ends properly.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from turnwire.formats.agenta import event_to_frame
from turnwire.formats.vercel import agent_failure_text
from turnwire.model import Done, ErrorEvent, Event
from turnwire.transport import SSE_DONE, SSE_KEEPALIVE, ndjson_frame, sse_frame, with_keepalive

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

    A run that raises (the runner should never let it) still ends properly: the encoder's closing
    frames report the failure, then ``trailer``. If the client goes away, the iteration is
    cancelled and ``events`` is closed, which cancels the agent.
    """
    for f in encoder.start():
        yield frame(f)
    items = with_keepalive(events, keepalive if keepalive_bytes else None)
    error: str | None = None
    try:
        async for event in items:
            if event is None:
                if keepalive_bytes:
                    yield keepalive_bytes
                continue
            chunks = encoder.encode(event)
            if len(chunks) == 1:
                yield frame(chunks[0])
            elif chunks:
                yield b"".join(frame(c) for c in chunks)
    except Exception as exc:  # the runner's contract was broken: still end the stream properly
        log.exception("turn stream failed", exc_info=exc)
        error = agent_failure_text(exc)
    finally:
        await items.aclose()
    for f in encoder.finish(error=error):
        yield frame(f)
    if trailer:
        yield trailer


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
