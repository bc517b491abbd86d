"""``GET /invoke/{session_id}/stream`` and ``/agents/{name}/invoke/{session_id}/stream``: re-attach
to a session's running ``/invoke`` SSE turn where the client's connection broke.

A format whose SSE events carry ids (``WireFormat.sse_event_ids``: Agenta) numbers them
``<trace id>:<n>`` — the turn, then the event's position in it from 1. ``Last-Event-ID:
<trace id>:<n>`` answers the turn's events after the n-th, then follows the turn live until it
ends; no header, from its first event. Every event comes from the turn's one live log (or its
Redis mirror, when another worker runs the turn), so a reconnecting client sees each event once
and misses none. Answers:

- ``204``: no such turn runs on the session (it ended, it streams another form, or the session is
  another tenant's: sessions are per tenant, so that is a session of the caller's with nothing
  running). An ended turn's reply is in the store (``GET /tasks/{id}/messages?format=agenta``).
- ``400`` naming the ``last-event-id`` header: not ``<turn>:<n>``, or an event the turn never sent.
- ``409`` naming it: an event of another turn than the running one (the client's turn is over).

A turn outlives a dropped connection only if it was started with ``x-ag-on-disconnect: continue``
(or the server's ``on_disconnect`` says so), or another reader is attached: by default the Agenta
doors cancel a turn its last reader leaves.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.formats import WireFormat, get_format
from turnwire.framing import SSE_KEEPALIVE_LINE
from turnwire.server.context import current
from turnwire.server.http.errors import RequestError, error_response
from turnwire.server.http.models import MessageBody, ValidationErrorBody
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.door import session_id
from turnwire.server.turns.event_ids import LAST_EVENT_ID, after, events_in, parse_last_event_id
from turnwire.server.turns.event_ids import LOC as _LOC
from turnwire.server.turns.running import live_key, lost_turn_frames
from turnwire.server.turns.streaming import stream_response

WIRE_PREFIX: Final = "invoke/sse+ids/"
"""A live turn's ``wire`` when the invoke door streams it as numbered SSE events, + the format."""
_ID_LOC: Final = ("path", "session_id")


def resumable_wire(fmt: WireFormat) -> str:
    return WIRE_PREFIX + fmt.name


def _another_turn(last: str, running: str) -> RequestError:
    msg = f"Last-Event-ID names turn {last}, which is not running (turn {running} is: omit the header)"
    return RequestError.at(409, msg, _LOC, "last_event_id_of_another_turn")


async def resume(request: Request, raw_session: str, agent_name: str | None = None) -> Response:
    app = current(request)
    try:
        if agent_name is not None:
            app.agent(agent_name)
        sid = session_id(raw_session, _ID_LOC)
        last = parse_last_event_id(request.headers.get(LAST_EVENT_ID))
        key = live_key(app, sid)
        interval = app.settings.keepalive_interval
        live = app.turns.get(key)
        if live is not None:
            if live.done or not live.wire.startswith(WIRE_PREFIX):
                return Response(status_code=204)
            turn_id, wire = live.turn_id, live.wire
            skip = 0
            if last is not None:
                if last[0] != turn_id:
                    raise _another_turn(last[0], turn_id)
                skip = last[1]
                sent = events_in(live.log.chunks)
                if skip > sent:
                    msg = f"Last-Event-ID names event {skip} of turn {turn_id}, which has sent {sent}"
                    raise RequestError.at(400, msg, _LOC, "last_event_id_not_sent")
            body = live.follow(interval, SSE_KEEPALIVE_LINE)
        else:
            found = await app.turns.elsewhere(key)
            if found is None or not found[1].startswith(WIRE_PREFIX):
                return Response(status_code=204)
            turn_id, wire = found
            # The mirror may trail the worker the client read from: an event it has not mirrored
            # yet is waited for, not refused.
            skip = 0
            if last is not None:
                if last[0] != turn_id:
                    raise _another_turn(last[0], turn_id)
                skip = last[1]
            lost = lost_turn_frames(get_format(wire.removeprefix(WIRE_PREFIX)), sid, turn_id)
            body = app.turns.follow_elsewhere(turn_id, interval, SSE_KEEPALIVE_LINE, lost=lost)
        fmt = get_format(wire.removeprefix(WIRE_PREFIX))
    except Exception as exc:
        return error_response(exc, request)
    headers = {"x-ag-session-id": sid, "x-ag-trace-id": turn_id, **fmt.stream_headers}
    return stream_response(after(body, skip) if skip else body, Transport.SSE, headers)


_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The running turn's SSE events after `Last-Event-ID` (all without it), then live",
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    },
    204: {"description": "No resumable turn is running on this session"},
    400: {"model": ValidationErrorBody, "description": "A bad session id, or a `Last-Event-ID` not sent"},
    404: {"model": MessageBody, "description": "Unknown agent"},
    409: {"model": ValidationErrorBody, "description": "`Last-Event-ID` of a turn not running"},
}
_OPENAPI: Final = {
    "parameters": [
        {
            "name": "Last-Event-ID",
            "in": "header",
            "required": False,
            "description": "The id of the last event the client got (`<turn id>:<n>`); absent: all.",
            "schema": {"type": "string"},
        }
    ]
}


def add_resume_routes(router: APIRouter) -> None:
    async def resume_default(session_id: str, request: Request) -> Response:
        return await resume(request, session_id)

    async def resume_named(name: str, session_id: str, request: Request) -> Response:
        return await resume(request, session_id, name)

    summary = "Resume a session's running streamed turn"
    for path, handler in (
        ("/invoke/{session_id}/stream", resume_default),
        ("/agents/{name}/invoke/{session_id}/stream", resume_named),
    ):
        router.add_api_route(
            path, handler, methods=["GET"], summary=summary, responses=_RESPONSES, openapi_extra=_OPENAPI
        )
