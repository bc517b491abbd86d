"""``GET /agui/threads/{threadId}/connect`` (and under ``/agents/{name}``): a reloaded AG-UI client
finds its thread and the run still running on it — what ``AbstractAgent.connectAgent()`` calls
``connect()`` for, which ``@ag-ui/client``'s ``HttpAgent`` leaves unimplemented
(``agui/client.js`` is the subclass that implements it with this route).

The answer is an SSE stream of AG-UI events, each run framed as ``verifyEvents`` requires (the
first event is ``RUN_STARTED``):

- **No run running**: ``RUN_STARTED``, ``MESSAGES_SNAPSHOT`` (the stored thread as the client
  holds it after its runs, what ``GET /tasks/{id}/messages?format=agui`` reads; ``[]`` for a thread
  never used), the last ``STATE_SNAPSHOT`` if a state is stored (``last_state_snapshot``), then
  ``RUN_FINISHED`` — with ``outcome: interrupt`` and the interrupts when the thread's last run
  paused on them (``open_interrupts``), so a reloaded client can answer them. Those events carry
  no SSE ids: there is nothing to resume in them.
- **A run running** (on this worker, or on another one through the Redis turn logs): the run's
  own ``RUN_STARTED``, then the snapshot of the thread *without* that run's messages (the store
  already holds part of its reply; the run's events bring all of it), then every event of the run
  from its first, live until it ends. The run's events carry ids ``<turn id>:<n>``: the run's
  n-th event (``RUN_STARTED`` is 1), the same on every worker and every connection.
- **Resuming** (``Last-Event-ID: <turn id>:<n>`` header, else ``?lastEventId=``) while that run
  still runs: its ``RUN_STARTED`` again and the opening event of each part still open at the n-th
  event (a text or reasoning message, a tool call, a step) — without ids, so the client's last id
  stays — then its events after the n-th: no snapshot, the client already holds the thread.
  ``verifyEvents`` checks each connection as a run of its own and refuses a delta of a message it
  did not see open; ``@ag-ui/client`` applies the opener of a message or call it holds as a no-op.
  An id of a run that is not running any more (the client missed its end) is answered like no id:
  the snapshot holds the run's end.

``400`` naming the header (or parameter): an id not of the form ``<turn id>:<n>``, or one past
what the running run has sent. A run keeps running when its client leaves only if it was started
with ``x-ag-on-disconnect: continue`` (what ``agui/client.js`` sends) or the server's
``on_disconnect`` says so.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Any, Final

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.conversations.rendered import render_conversation
from turnwire.conversations.stored import find_task
from turnwire.formats import get_format
from turnwire.formats.agui import AgUiStreamEncoder, interrupt_of, subagent_run_id
from turnwire.framing import SSE_KEEPALIVE, sse_frame
from turnwire.model import InteractionRequest
from turnwire.runtime.live import LOST_MESSAGE
from turnwire.server.context import AppContext, current
from turnwire.server.http.errors import RequestError, error_response
from turnwire.server.http.models import MessageBody, ValidationErrorBody
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.door import session_id
from turnwire.server.turns.event_ids import EVENT_ID_RULE, LAST_EVENT_ID, events_in, parse_last_event_id
from turnwire.server.turns.running import live_key
from turnwire.server.turns.streaming import stream_response
from turnwire.store.base import StoredMessage
from turnwire.store.errors import NotFoundError

AGUI_WIRE: Final = "agui/sse"
"""A live turn's ``wire`` when the AG-UI door streams it (``LiveTurn.wire``)."""
QUERY_PARAMETER: Final = "lastEventId"
_ID_LOC: Final = ("path", "thread_id")
AGUI = get_format("agui")


def last_state_snapshot(records: Sequence[StoredMessage]) -> Any | None:
    """The thread's last agent state, sent as ``STATE_SNAPSHOT`` after the messages: the state a
    turn ended with (the recorder notes it on the turn's last content, ``state``), of the last
    turn on ``records`` (the thread's stored branch, oldest first) that had one; ``None``: no
    turn did (or its state was ``null``), no event is sent."""
    for record in reversed(records):
        if "state" in record.note:
            return record.note["state"]
    return None


def _last_event_id(request: Request) -> tuple[tuple[str, int] | None, tuple[str, str]]:
    """The ``(turn id, events seen)`` the client names, and where it named it."""
    header = request.headers.get(LAST_EVENT_ID)
    if header is not None and header.strip():
        return parse_last_event_id(header), ("header", LAST_EVENT_ID)
    loc = ("query", QUERY_PARAMETER)
    value = request.query_params.get(QUERY_PARAMETER)
    if value is None or not value.strip():
        return None, loc
    try:
        return parse_last_event_id(value), loc
    except RequestError:
        rule = EVENT_ID_RULE.replace("Last-Event-ID", QUERY_PARAMETER)
        raise RequestError.at(400, rule, loc, "invalid_last_event_id") from None


def open_interrupts(records: Sequence[StoredMessage]) -> list[dict[str, Any]]:
    """The interrupts the thread's last run ended on, if it paused: what its ``RUN_FINISHED``
    said (``outcome.interrupts``), so a reloaded client holds them and can answer them."""
    if not records:
        return []
    turn = records[-1].note.get("turn")
    mine = [r for r in records if turn is not None and r.note.get("turn") == turn]
    if not any(r.note.get("stop_reason") == "paused" for r in mine):
        return []
    out = []
    for record in mine:
        content = record.record.get("content") or {}
        data = content.get("data") if content.get("type") == "data" else None
        if (
            isinstance(data, dict)
            and data.get("type") == "interaction_request"
            and isinstance(data.get("id"), str)
        ):
            request = InteractionRequest(data["id"], str(data.get("kind") or ""), data.get("payload"))
            invocation, message_id = record.note.get("agent"), record.note.get("message_id")
            owner = (
                subagent_run_id(message_id, invocation)
                if isinstance(invocation, str) and isinstance(message_id, str)
                else None
            )
            interrupt = interrupt_of(request, owner)
            if interrupt is not None:
                out.append(interrupt)
    return out


async def _thread(
    app: AppContext, thread_id: str, without_turn: str | None
) -> tuple[list[Any], Any | None, list[dict[str, Any]]]:
    """The thread's stored messages as AG-UI messages (those of turn ``without_turn`` left out),
    its last state and the interrupts it is paused on."""
    assert app.store is not None
    try:
        task = await find_task(app.store, thread_id)
    except NotFoundError:
        return [], None, []
    records = await app.store.read_branch(task["id"])
    if without_turn is not None:
        records = [r for r in records if r.note.get("turn") != without_turn]
    messages = render_conversation(records, "agui", task.get("name") or task["id"])
    return messages, last_state_snapshot(records), open_interrupts(records)


def _lost_run(thread_id: str, turn_id: str) -> bytes:
    """How a run followed from a worker that died mid-run ends: ``RUN_ERROR`` (a fresh encoder's
    ``finish`` opens its run first: that ``RUN_STARTED`` is left out, the followed run sent its own)."""
    encoder = AgUiStreamEncoder(thread_id, turn_id)
    frames = encoder.finish(error=LOST_MESSAGE)
    return b"".join(sse_frame(f) for f in frames if f.get("type") != "RUN_STARTED")


def _snapshot_frames(messages: list[Any], state: Any | None) -> bytes:
    out = sse_frame({"type": "MESSAGES_SNAPSHOT", "messages": messages})
    if state is not None:
        out += sse_frame({"type": "STATE_SNAPSHOT", "snapshot": state})
    return out


async def _idle_thread(app: AppContext, thread_id: str) -> AsyncIterator[bytes]:
    """No run: the snapshot framed as a run of its own (``verifyEvents`` wants one around it)."""
    messages, state, interrupts = await _thread(app, thread_id, None)
    encoder = AgUiStreamEncoder(thread_id, f"connect-{uuid.uuid4().hex}")
    body = b"".join(sse_frame(e) for e in encoder.start()) + _snapshot_frames(messages, state)
    # A paused thread's run ends on its open interrupts, as the paused run's own end did.
    encoder.interrupts = interrupts
    yield body + b"".join(sse_frame(e) for e in encoder.finish("paused" if interrupts else None))


_OPENERS: Final = {
    "TEXT_MESSAGE_START": (("TEXT_MESSAGE_END",), ("messageId",)),
    "TOOL_CALL_START": (("TOOL_CALL_END",), ("toolCallId",)),
    "REASONING_START": (("REASONING_END",), ("messageId",)),
    "REASONING_MESSAGE_START": (("REASONING_MESSAGE_END",), ("messageId",)),
    "STEP_STARTED": (("STEP_FINISHED",), ("subagentRunId", "stepName")),  # steps are per agent
    "SUBAGENT_STARTED": (("SUBAGENT_FINISHED", "SUBAGENT_ERROR"), ("subagentRunId",)),
}
"""Events that open a part another event closes (``verifyEvents`` refuses a delta or an end of a
part this stream did not open, and a sub-agent's end it did not see start), the closing events
and the keys that name the part."""
_CLOSERS: Final = {close: (opener, keys) for opener, (closes, keys) in _OPENERS.items() for close in closes}


class _OpenParts:
    """The parts open after the events seen so far, each with the raw event that opened it (in
    the order they opened: a sub-agent before what it sends)."""

    def __init__(self) -> None:
        self.open: dict[tuple[Any, ...], bytes] = {}

    def see(self, event: bytes) -> None:
        if not event.startswith(b"data: "):
            return
        frame = orjson.loads(event[6:])
        kind = frame.get("type") if isinstance(frame, dict) else None
        if kind in _OPENERS:
            self.open[(kind, *(frame.get(k) for k in _OPENERS[kind][1]))] = event
        elif kind in _CLOSERS:
            opener, keys = _CLOSERS[kind]
            self.open.pop((opener, *(frame.get(k) for k in keys)), None)


async def _numbered(
    body: AsyncGenerator[bytes, None], turn_id: str, skip: int, snapshot: bytes | None
) -> AsyncIterator[bytes]:
    """The run's events (``body``: whole ``data:`` events and keepalive comments) with their ids
    ``<turn_id>:<n>``, ``snapshot`` right after the first (``RUN_STARTED``). Resuming after the
    ``skip``-th, the events up to it are left out but ``RUN_STARTED`` and the openers of the parts
    still open (sub-agent, text, tool call, reasoning, step), sent again without ids: ``verifyEvents`` checks
    each connection as a run of its own, and ``@ag-ui/client`` applies an opener of a message or
    call it holds as a no-op."""
    prefix = f"id: {turn_id}:".encode()
    parts = _OpenParts() if skip > 1 else None
    n = 0
    pending = b""
    async with contextlib.aclosing(body):
        async for data in body:
            pending += data
            out: list[bytes] = []
            while True:
                end = pending.find(b"\n\n")
                if end < 0:
                    break
                event, pending = pending[: end + 2], pending[end + 2 :]
                if event.startswith(b":"):  # a keepalive comment: no event
                    out.append(event)
                    continue
                n += 1
                if n == 1:
                    out.append(event if skip else prefix + b"1\n" + event)
                    if snapshot is not None:
                        out.append(snapshot)
                elif n > skip:
                    out.append(prefix + str(n).encode() + b"\n" + event)
                elif parts is not None:
                    parts.see(event)
                    if n == skip:
                        out.extend(parts.open.values())
            if out:
                yield b"".join(out)


async def connect(request: Request, raw_thread: str, agent_name: str | None = None) -> Response:
    app = current(request)
    try:
        if agent_name is not None:
            app.agent(agent_name)
        thread_id = session_id(raw_thread, _ID_LOC)
        last, last_loc = _last_event_id(request)
        interval = app.settings.keepalive_interval
        key = live_key(app, thread_id)
        live = app.turns.get(key)
        body: AsyncGenerator[bytes, None] | None = None
        turn_id = ""
        if live is not None and not live.done and live.wire == AGUI_WIRE:
            turn_id = live.turn_id
            if last is not None and last[0] == turn_id:
                sent = events_in(live.log.chunks)
                if last[1] > sent:
                    msg = f"{last_loc[-1]} names event {last[1]} of turn {turn_id}, which has sent {sent}"
                    raise RequestError.at(400, msg, last_loc, "last_event_id_not_sent")
            body = live.follow(interval, SSE_KEEPALIVE)
        elif live is None:
            found = await app.turns.elsewhere(key)
            if found is not None and found[1] == AGUI_WIRE:
                turn_id = found[0]
                lost = _lost_run(thread_id, turn_id)
                body = app.turns.follow_elsewhere(turn_id, interval, SSE_KEEPALIVE, lost=lost)
        headers = {"x-ag-session-id": thread_id, **AGUI.stream_headers}
        if body is None:
            return stream_response(_idle_thread(app, thread_id), Transport.SSE, headers)
        headers["x-ag-trace-id"] = turn_id
        if last is not None and last[0] == turn_id and last[1] > 1:
            # The mirror may trail the worker the client read from: an event not mirrored yet is
            # waited for, not refused.
            events = _numbered(body, turn_id, last[1], None)
        else:  # a fresh client (or one that may have missed the snapshot after event 1)
            messages, state, _ = await _thread(app, thread_id, turn_id)
            skip = 1 if last is not None and last[0] == turn_id else 0
            events = _numbered(body, turn_id, skip, _snapshot_frames(messages, state))
    except Exception as exc:
        return error_response(exc, request)
    return stream_response(events, Transport.SSE, headers)


_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "AG-UI events (SSE): the thread's MESSAGES_SNAPSHOT, then its running run live",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    },
    400: {"model": ValidationErrorBody, "description": "A bad thread id, or a Last-Event-ID not sent"},
    404: {"model": MessageBody, "description": "Unknown agent"},
}
_OPENAPI: Final = {
    "parameters": [
        {
            "name": "Last-Event-ID",
            "in": "header",
            "required": False,
            "description": "The id of the last event the client got (`<turn id>:<n>`): resume after it.",
            "schema": {"type": "string"},
        },
        {
            "name": QUERY_PARAMETER,
            "in": "query",
            "required": False,
            "description": "The same as the `Last-Event-ID` header, for clients that cannot set it.",
            "schema": {"type": "string"},
        },
    ]
}


def add_connect_routes(router: APIRouter) -> None:
    async def connect_default(thread_id: str, request: Request) -> Response:
        return await connect(request, thread_id)

    async def connect_named(name: str, thread_id: str, request: Request) -> Response:
        return await connect(request, thread_id, name)

    summary = "Connect to an AG-UI thread: its messages, then its running run"
    for path, handler in (
        ("/agui/threads/{thread_id}/connect", connect_default),
        ("/agents/{name}/agui/threads/{thread_id}/connect", connect_named),
    ):
        router.add_api_route(
            path, handler, methods=["GET"], summary=summary, responses=_RESPONSES, openapi_extra=_OPENAPI
        )
