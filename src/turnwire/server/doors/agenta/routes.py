"""``POST /invoke`` and ``POST /agents/{name}/invoke``: one turn, batch or streamed, in any format
that serves turns (``x-ag-messages-format``: ``agenta``, the default, or ``vercel``).

The order of checks is fixed so a request is refused before any agent code runs: agent name (404),
``x-ag-messages-format`` (400), the format's client version header (400), ``Accept`` (406), body
size (413), JSON syntax and depth (400), envelope shape (422), ``flags`` (422, then 406 for a
``flags.stream`` that ``Accept`` refuses), session id (400), messages (422). Only then does the
turn start, on the one pipeline (``server.pipeline``). The request controls (``flags``, their
headers) are ``controls``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final
from urllib.parse import unquote

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.fold import fold
from turnwire.formats import TurnInfo, WireFormat, get_format, turn_formats
from turnwire.framing import JSON_MEDIA_TYPE, NDJSON_MEDIA_TYPE, SSE_KEEPALIVE_LINE, SSE_MEDIA_TYPE
from turnwire.interactions import render_pending
from turnwire.model import ErrorEvent, Event, InteractionRequest
from turnwire.server.context import AppContext
from turnwire.server.doors.agenta.controls import read_controls, stream_transport, trim_to_trailing_unit
from turnwire.server.doors.agenta.resume import add_resume_routes, resumable_wire
from turnwire.server.doors.agenta.resume import resume as resume_turn
from turnwire.server.http.errors import RequestError
from turnwire.server.http.models import (
    SESSION_ID_PATTERN,
    WIRE_VERSION,
    InvokeRequest,
    InvokeResponse,
    MessageBody,
    NotAcceptableBody,
    ValidationErrorBody,
)
from turnwire.server.http.negotiation import Transport, negotiate_format, negotiate_transport
from turnwire.server.turns.door import (
    AI_SDK_VERSION_PARAMETER,
    add_door,
    client_version,
    kind_of,
    parse_messages,
    read_object,
    session_id,
)
from turnwire.server.turns.multitask import requested_strategy
from turnwire.server.turns.pipeline import TurnRequest, start_turn, wants_stored_history
from turnwire.server.turns.running import collect_turn, continues_without_client, serve_turn
from turnwire.server.turns.streaming import stream_body

_MESSAGES_LOC = ("body", "data", "inputs", "messages")

_SSE_EVENT = {
    "type": "object",
    "description": "One SSE event; `: keepalive` comments may come between events.",
    "required": ["data"],
    "properties": {
        "id": {
            "type": "string",
            "description": "Agenta events: `<trace id>:<n>`, n = 1, 2, … (send it back as `Last-Event-ID` "
            "to `GET /invoke/{session_id}/stream`). Vercel chunks carry none.",
        },
        "data": {
            "type": "string",
            "description": "An Agenta frame or UI stream chunk as JSON; `[DONE]` ends Vercel streams.",
        },
    },
}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The folded turn (JSON), or a stream of frames (SSE / NDJSON) when Accept asks.",
        "content": {
            SSE_MEDIA_TYPE: {"schema": _SSE_EVENT},
            NDJSON_MEDIA_TYPE: {"schema": {"type": "string", "description": "One JSON frame per line."}},
        },
    },
    400: {"model": ValidationErrorBody, "description": "Malformed JSON, bad header or session id"},
    404: {"model": MessageBody, "description": "Unknown agent"},
    406: {"model": NotAcceptableBody, "description": "Accept names no type the server produces"},
    409: {
        "model": ValidationErrorBody,
        "description": "An approval the server did not issue; a conversation busy with a turn",
    },
    413: {"model": ValidationErrorBody, "description": "Body larger than the limit"},
    422: {"model": ValidationErrorBody, "description": "Body or messages of the wrong shape"},
}
# Case-insensitive format names (or blank) spelled out: JSON Schema regexes have no (?i).
_FORMAT_PATTERN = (
    "^[ \\t]*("
    + "|".join("".join(f"[{c.upper()}{c}]" for c in name) for name in turn_formats())
    + ")?[ \\t]*$"
)
_OPENAPI_BODY = {
    "requestBody": {
        "required": True,
        "content": {JSON_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/InvokeRequest"}}},
    },
    "parameters": [
        {
            "name": "x-ag-messages-format",
            "in": "header",
            "required": False,
            "description": "`agenta` (default) or `vercel`; case-insensitive, surrounding blanks ignored.",
            "schema": {"type": "string", "pattern": _FORMAT_PATTERN},
        },
        {
            "name": "x-ag-session-id",
            "in": "header",
            "required": False,
            "description": "Session id when the body has none.",
            "schema": {"type": "string", "pattern": SESSION_ID_PATTERN},
        },
        AI_SDK_VERSION_PARAMETER,
    ],
}
EXTRA_SCHEMAS = (InvokeRequest,)
"""Models the OpenAPI document must carry although no route declares them as a body parameter."""

DEFAULT_FORMAT: Final = "agenta"
_AGENT_FAILED: Final = "agent_run_failed"
_MISPLACED = 'messages belong in data.inputs.messages: {"data": {"inputs": {"messages": [...]}}}'


def invoke_router(dependencies: Sequence[Any] = ()) -> APIRouter:
    """The invoke routes, each with ``dependencies`` (``app.create_router`` gives them the
    ``AppContext`` binding)."""
    router = APIRouter(tags=["invoke"], dependencies=list(dependencies))
    add_door(
        router,
        "invoke",
        invoke,
        summary="Run one turn",
        response_model=InvokeResponse,
        responses=_RESPONSES,
        openapi_extra=_OPENAPI_BODY,
    )
    add_resume_routes(router)
    return router


async def invoke(request: Request, app: AppContext, agent_name: str) -> Response:
    app.agent(agent_name)
    headers = request.headers
    fmt = _format(headers.get("x-ag-messages-format"))
    version = client_version(fmt, request, app)
    transport = _transport(headers.get("accept"))
    body = await read_object(request, app)
    raw_messages, parameters = _envelope(body)
    controls = read_controls(body, headers)
    transport = stream_transport(transport, headers.get("accept"), controls.stream)
    sid = _session_id(body, headers.get("x-ag-session-id"), headers.get("baggage"))
    messages = parse_messages(fmt, raw_messages, _MESSAGES_LOC)
    detached = continues_without_client(request, app) if controls.detached is None else controls.detached
    multitask = requested_strategy(request, body.get("multitask_strategy"))
    if controls.force:
        if not raw_messages and sid and transport is Transport.SSE and fmt.sse_event_ids:
            attached = await resume_turn(request, sid, agent_name)
            if attached.status_code != 204:
                return attached
        multitask = "interrupt"
    turn = await start_turn(
        app,
        TurnRequest(
            agent_name,
            messages,
            session_id=sid,
            loc=_MESSAGES_LOC,
            parameters=parameters,
            from_store=wants_stored_history(request),
            batch=transport is Transport.JSON,
            message_id=fmt.continuation_id(raw_messages),
            multitask=multitask,
        ),
    )
    info = TurnInfo(
        session_id=turn.session_id,
        trace_id=turn.trace_id,
        message_id=turn.message_id,
        history=turn.history,
        client_version=version,
    )
    out_headers = turn.headers
    if transport is Transport.JSON:
        collected = await collect_turn(app, turn, request, detached=detached)
        return _batch(fmt, collected, info, out_headers, trim=controls.trim)
    if transport is Transport.NDJSON and not fmt.ndjson:
        fmt = get_format(DEFAULT_FORMAT)  # no NDJSON form: Agenta frames, as the reference does
    assert fmt.stream_encoder is not None  # _format admits only formats that serve turns
    out_headers.update(fmt.stream_headers)
    trailer = fmt.sse_trailer if transport is Transport.SSE else b""
    encoder = fmt.stream_encoder(info)
    if transport is Transport.SSE and fmt.sse_event_ids:  # resumable: GET /invoke/{session}/stream
        frames = stream_body(turn.events, encoder, transport, trailer=trailer, event_ids=turn.trace_id)
        wire, keepalive = resumable_wire(fmt), SSE_KEEPALIVE_LINE
        return serve_turn(
            app, turn, frames, transport, out_headers, detached=detached, wire=wire, keepalive=keepalive
        )
    frames = stream_body(turn.events, encoder, transport, trailer=trailer)
    return serve_turn(app, turn, frames, transport, out_headers, detached=detached)


def _batch(
    fmt: WireFormat, events: list[Event], info: TurnInfo, headers: dict[str, str], *, trim: bool = False
) -> Response:
    """The folded turn in the envelope (its messages cut to their trailing unit with ``trim``). A
    turn whose agent failed answers the reference's 500 with ``failure_code: agent_run_failed``
    and the failure's text; what the turn said is still there."""
    assert fmt.render_turn is not None
    turn = fold(events)
    pending = [e for e in events if isinstance(e, InteractionRequest)]
    outputs = fmt.render_turn(turn, pending, replace(info, events=events))
    if trim and isinstance(outputs.get("messages"), list):
        outputs["messages"] = trim_to_trailing_unit(outputs["messages"])
    headers.update(fmt.batch_headers)
    if turn.pending_interaction is not None:
        # Beyond the reference, which names only the last request: every gate of the turn, so a
        # client can answer two approvals pending in one message.
        outputs["pending_interactions"] = [render_pending(e) for e in pending]
    status: dict[str, Any] = {"code": 200, "message": "Success"}
    if turn.stop_reason == "error":
        errors = [e for e in events if isinstance(e, ErrorEvent)]
        failure = errors[-1] if errors else ErrorEvent("Agent run failed", _AGENT_FAILED)
        status = {"code": 500, "message": failure.message, "failure_code": failure.code or _AGENT_FAILED}
    envelope = {
        "version": WIRE_VERSION,
        "status": status,
        "session_id": info.session_id,
        "trace_id": info.trace_id,
        "data": {"outputs": outputs},
    }
    return Response(orjson.dumps(envelope), status["code"], headers=headers, media_type=JSON_MEDIA_TYPE)


_TRANSPORTS: dict[str, Transport] = {}
_TRANSPORTS_KEPT: Final = 256


def _transport(accept: str | None) -> Transport:
    """``negotiate_transport``, remembered for the Accept values clients repeat (a bounded number
    of them: a client sending ever new values costs a parse each, never memory)."""
    if accept is None:
        return Transport.JSON
    found = _TRANSPORTS.get(accept)
    if found is None:
        found = negotiate_transport(accept)  # NotAcceptable (406): nothing remembered
        if len(_TRANSPORTS) < _TRANSPORTS_KEPT:
            _TRANSPORTS[accept] = found
    return found


def _format(header: str | None) -> WireFormat:
    """The format ``x-ag-messages-format`` names (400 naming the header otherwise)."""
    try:
        return get_format(negotiate_format(header, turn_formats(), DEFAULT_FORMAT))
    except InputError as exc:
        raise RequestError(400, [exc]) from None


def _envelope(body: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """``data.inputs.messages`` (``None`` → ``[]``) and ``data.parameters`` (``None`` → ``{}``).

    Messages anywhere else (top-level ``messages``, ``data.messages``) are a 422 saying where they
    belong, not a silently empty conversation.
    """
    data = _object(body.get("data"), ("body", "data"))
    inputs = _object(data.get("inputs"), ("body", "data", "inputs"))
    parameters = _object(data.get("parameters"), ("body", "data", "parameters"))
    messages = inputs.get("messages")
    if messages is None:
        for loc, holder in ((("body", "messages"), body), (("body", "data", "messages"), data)):
            if holder.get("messages") is not None:
                raise RequestError.at(422, _MISPLACED, loc, "misplaced_messages")
        messages = []
    elif not isinstance(messages, list):
        raise RequestError.at(422, f"expected an array, got {kind_of(messages)}", _MESSAGES_LOC, "list_type")
    return messages, parameters


def _object(value: Any, loc: tuple[str, ...]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RequestError.at(422, f"expected an object, got {kind_of(value)}", loc, "object_type")
    return value


def _session_id(body: dict[str, Any], header: str | None, baggage: str | None) -> str:
    """Body ``session_id``, else ``x-ag-session-id``, else ``baggage: ag.session.id=…``, else ``""``
    (a fresh one). One rule for every source: an id that breaks it is a 400 naming that source."""
    if body.get("session_id") is not None:
        return session_id(body["session_id"], ("body", "session_id"))
    if header is not None:
        return session_id(header, ("header", "x-ag-session-id"))
    if baggage is not None:
        return session_id(_baggage_session(baggage), ("header", "baggage"))
    return ""


def _baggage_session(baggage: str) -> str | None:
    """The ``ag.session.id`` member of a W3C baggage header (percent-decoded), if any."""
    for member in baggage.split(","):
        key, eq, value = member.partition("=")
        if eq and key.strip() == "ag.session.id":
            return unquote(value.split(";", 1)[0].strip())
    return None
