"""``GET /v1/responses/{id}?stream=true&starting_after=N``: a response's stream again.

A running response is followed through its live log, on this worker or (through Redis) the one
running it: the events after ``starting_after`` (default: from the first), then live ones to the
end. A response already over answers its terminal event (``response.completed`` / ``.failed`` /
``.incomplete``, with the whole response) unless ``starting_after`` is at or past it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Final

import orjson
from starlette.requests import Request
from starlette.responses import Response

from turnwire.formats.responses.response import TERMINAL
from turnwire.framing import SSE_DONE, SSE_KEEPALIVE
from turnwire.server.context import AppContext
from turnwire.server.doors.responses.state import load, parse_response_id, session_task
from turnwire.server.http.errors import RequestError
from turnwire.server.http.negotiation import Transport
from turnwire.server.http.openai_errors import NotFound
from turnwire.server.turns.running import live_key
from turnwire.server.turns.streaming import SSE_HEADERS, stream_response

WIRE: Final = "responses/sse"
"""What a Responses turn's live log holds (a reader re-attaches only to its own wire)."""


def starting_after(request: Request) -> int:
    raw = request.query_params.get("starting_after")
    if raw is None or raw == "":
        return -1
    try:
        return int(raw)
    except ValueError:
        raise RequestError.at(
            400,
            "starting_after must be an integer (a sequence number)",
            ("query", "starting_after"),
            "invalid_type",
        ) from None


async def _after(chunks: AsyncIterator[bytes], after: int) -> AsyncIterator[bytes]:
    """The SSE events of ``chunks`` whose ``sequence_number`` is above ``after`` (keepalives and
    the closing ``[DONE]`` pass)."""
    async for chunk in chunks:
        if after < 0 or not chunk.startswith(b"event: "):
            yield chunk
            continue
        kept = []
        for event in chunk.split(b"\n\n"):
            if not event:
                continue
            data = event[event.find(b"data: ") + 6 :] if b"data: " in event else b""
            try:
                number = (
                    orjson.loads(data).get("sequence_number", after + 1)
                    if data.startswith(b"{")
                    else after + 1
                )
            except orjson.JSONDecodeError:
                number = after + 1
            if number > after:
                kept.append(event + b"\n\n")
        if kept:
            yield b"".join(kept)


def _frame(event: dict[str, Any]) -> bytes:
    return b"event: " + event["type"].encode() + b"\ndata: " + orjson.dumps(event) + b"\n\n"


async def resume(app: AppContext, request: Request, rid: str) -> Response:
    if app.store is None:
        raise NotFound(f"No response found with id {rid!r}.")
    after = starting_after(request)
    trace, session = parse_response_id(rid)
    await session_task(app.store, session, f"No response found with id {rid!r}.")
    interval = app.settings.keepalive_interval
    key = live_key(app, session)
    headers = {"x-ag-session-id": session, "x-ag-trace-id": trace, **SSE_HEADERS}
    live = app.turns.get(key)
    if live is not None and not live.done and live.turn_id == trace and live.wire == WIRE:
        return stream_response(_after(live.follow(interval, SSE_KEEPALIVE), after), Transport.SSE, headers)
    if live is None:
        found = await app.turns.elsewhere(key)
        if found is not None and found == (trace, WIRE):
            body = app.turns.follow_elsewhere(trace, interval, SSE_KEEPALIVE)
            return stream_response(_after(body, after), Transport.SSE, headers)
    _, _, envelope = await load(app.store, rid)
    response = envelope["response"]
    last = int(envelope.get("last_sequence", 0))

    async def ended() -> AsyncIterator[bytes]:
        if last > after:
            yield _frame(
                {"type": TERMINAL[response["status"]], "sequence_number": last, "response": response}
            )
        yield SSE_DONE

    return stream_response(ended(), Transport.SSE, headers)
