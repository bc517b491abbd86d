"""The doors' side of running turns (``runtime.live``): answer a turn through its live log, collect
a batch turn while watching its client, and decide what a departing client means for its turn.

Every door's turn is registered by its conversation (the session id), so ``POST /chat/{id}/stop``
and the Agentex ``task/cancel`` stop it wherever it came from, and a client may re-attach to it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Final

from starlette.requests import Request
from starlette.responses import StreamingResponse

from turnwire.conversations.write_retry import TurnNotStored
from turnwire.formats import TurnInfo, WireFormat
from turnwire.framing import SSE_KEEPALIVE, sse_frame
from turnwire.model import Event
from turnwire.runtime.live import LOST_MESSAGE
from turnwire.server.context import AppContext
from turnwire.server.http.errors import RequestError
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.pipeline import StartedTurn, session_scope
from turnwire.server.turns.streaming import StreamBody, cancel_on_shutdown, stream_response

ON_DISCONNECT_HEADER: Final = "x-ag-on-disconnect"
CANCEL: Final = "cancel"
CONTINUE: Final = "continue"


def live_key(app: AppContext, session_id: str) -> str:
    """A running turn's key: its session, within its tenant (one tenant cannot reach another's)."""
    return session_scope(app.tenant, session_id)


def lost_turn_frames(fmt: WireFormat, session_id: str, turn_id: str) -> bytes:
    """How a stream followed from another worker ends when that worker died mid-turn
    (``runtime.live.TurnLost``): the format's error frames and trailer, never a silent cut. The
    opening chunks of a fresh encoder are left out: the followed stream already sent its own."""
    assert fmt.stream_encoder is not None
    info = TurnInfo(session_id=session_id, trace_id=turn_id, message_id=f"msg-{turn_id}")
    frames = fmt.stream_encoder(info).finish(error=LOST_MESSAGE)
    kept = [f for f in frames if not (isinstance(f, dict) and f.get("type") in _OPENING)]
    return b"".join(sse_frame(f) for f in kept) + fmt.sse_trailer


_OPENING: Final = frozenset(("start", "start-step"))


def continues_without_client(request: Request, app: AppContext) -> bool:
    """Whether the turn goes on when its client leaves: ``x-ag-on-disconnect: cancel|continue``,
    else the server's ``on_disconnect`` setting."""
    value = request.headers.get(ON_DISCONNECT_HEADER)
    if value is None or not value.strip():
        return app.settings.on_disconnect == CONTINUE
    value = value.strip().lower()
    if value not in (CANCEL, CONTINUE):
        msg = f"{ON_DISCONNECT_HEADER} must be '{CANCEL}' or '{CONTINUE}'"
        raise RequestError.at(400, msg, ("header", ON_DISCONNECT_HEADER), "enum")
    return value == CONTINUE


def serve_turn(
    app: AppContext,
    turn: StartedTurn,
    body: AsyncIterator[bytes],
    transport: Transport,
    headers: Mapping[str, str],
    *,
    detached: bool,
    wire: str = "",
    keepalive: bytes = SSE_KEEPALIVE,
) -> StreamingResponse:
    """Answer ``turn`` with ``body`` (its framed stream, no keepalives) through its live log: the
    turn runs in a task of its own and this response is its first reader (``keepalive`` on SSE).
    A ``stream_body`` hands its opening frames to the log at once: the response sends them in the
    request's own task, before the turn's task has run (one turn of a busy event loop fewer, two
    with the wake-up of the reader, before the first byte)."""
    opening = body.take_opening() if isinstance(body, StreamBody) else b""
    live = app.turns.begin(
        live_key(app, turn.session_id),
        turn.trace_id,
        turn.events,
        holding_claim(turn, body),
        detached=detached,
        idle_timeout=app.settings.detached_turn_seconds,
        wire=wire,
        opening=opening,
    )
    if transport is not Transport.SSE:
        keepalive = b""
    interval = app.settings.keepalive_interval if keepalive else None
    return stream_response(live.follow(interval, keepalive), transport, headers)


async def collect_turn(
    app: AppContext, turn: StartedTurn, request: Request, *, detached: bool
) -> list[Event]:
    """A batch turn's events, the turn registered like a streamed one (stop reaches it). If the
    client goes away first and the turn does not continue without it, the turn is cancelled —
    what it said is stored — and the answer nobody reads is dropped."""
    events: list[Event] = []
    lost: list[TurnNotStored] = []

    async def drain() -> AsyncIterator[bytes]:
        try:
            with cancel_on_shutdown(turn.events):  # a server shutdown answers with the turn so far
                async for event in turn.events:
                    events.append(event)
        except TurnNotStored as exc:  # the request answers with it (and the live turn logs it)
            lost.append(exc)
            raise
        return
        yield b""  # an async generator that yields nothing: the log only marks the end

    live = app.turns.begin(
        live_key(app, turn.session_id),
        turn.trace_id,
        turn.events,
        holding_claim(turn, drain()),
        detached=detached,
        idle_timeout=app.settings.detached_turn_seconds,
    )
    loop = asyncio.get_running_loop()
    # The request is the turn's reader until it answers; leaving, it lets the live turn decide.
    waiting = loop.create_task(_drain(live.follow()))
    watcher = loop.create_task(_client_gone(request))
    try:
        await asyncio.wait((waiting, watcher), return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not waiting.done():
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiting
            if live.task is not None and not detached:
                await asyncio.shield(live.task)  # cancelled: its partial reply is stored
    if lost:  # the turn ran but is not in the store: the answer must not look like a stored turn
        raise lost[0]
    return events


async def holding_claim(turn: StartedTurn, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """``body``, the turn holding its conversation's claim until it has ended: the last chunk
    is out and the reply stored (the recorder ends inside the body), so the next turn — here or
    on another worker — plans on it. Freed before the live log closes: a client that reads the
    end and sends its next message at once finds the conversation free."""
    claim = turn.admission.claim if turn.admission is not None else None
    if claim is None:
        async for data in body:
            yield data
        return
    claim.hold()
    try:
        async for data in body:
            yield data
    finally:
        await asyncio.shield(claim.release())


async def _drain(reader: AsyncIterator[bytes]) -> None:
    async for _ in reader:
        pass


async def _client_gone(request: Request) -> None:
    """Returns when the client disconnects (the request body is already read)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


STOP_WAIT: Final = 5.0
"""Seconds a stop request waits for a turn on this process to store its end."""


async def stop_turn(app: AppContext, session_id: str) -> bool:
    """Stop the conversation's running turn, on this process or (through the pub/sub) another.
    A turn running here has stored its partial reply when this returns. ``True``: one was running
    (here, or elsewhere as far as the turn logs know)."""
    key = live_key(app, session_id)
    live = app.turns.get(key)
    elsewhere = None if live is not None else await app.turns.elsewhere(key)
    app.turns.stop(key)
    if live is not None and live.task is not None:
        await asyncio.wait((live.task,), timeout=STOP_WAIT)
    return live is not None or elsewhere is not None
