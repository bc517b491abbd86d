"""``POST /invoke`` and ``POST /agents/{name}/invoke``: one turn, batch or streamed, in either format.

The order of checks is fixed so a request is refused before any agent code runs: agent name (404),
``x-ag-messages-format`` (400), ``x-ai-sdk-version`` for Vercel (400), ``Accept`` (406), body size
(413), JSON syntax and depth (400), envelope shape (422), session id (400), messages (422). Only then
does the turn start.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote

import orjson
from fastapi import APIRouter, Request
from starlette.responses import Response, StreamingResponse

from turnwire.errors import InputError
from turnwire.fold import fold
from turnwire.formats import agenta, vercel
from turnwire.framing import JSON_MEDIA_TYPE, NDJSON_MEDIA_TYPE, SSE_MEDIA_TYPE
from turnwire.interactions import render_pending
from turnwire.model import Event, InteractionRequest, Message, ToolCallBlock
from turnwire.runtime import Agent, TurnContext
from turnwire.runtime.sessions import WarmSessions
from turnwire.server.body import decode_json, read_body
from turnwire.server.errors import RequestError, error_response, json_response
from turnwire.server.models import (
    SESSION_ID_PATTERN,
    WIRE_VERSION,
    InvokeRequest,
    InvokeResponse,
    MessageBody,
    NotAcceptableBody,
    ValidationErrorBody,
)
from turnwire.server.negotiation import Transport, negotiate_format, negotiate_transport
from turnwire.server.recording import TASK_ID_HEADER, open_recording, wants_stored_history
from turnwire.server.sessions import build_sessions, check_approvals
from turnwire.server.settings import Settings
from turnwire.server.streaming import agenta_ndjson, agenta_sse, vercel_sse

_SESSION_ID = re.compile(SESSION_ID_PATTERN)
AI_SDK_VERSION_HEADER: Final = "x-ai-sdk-version"
AI_SDK_VERSION_PARAMETER: Final = {
    "name": AI_SDK_VERSION_HEADER,
    "in": "header",
    "required": False,
    "description": "The AI SDK major a Vercel stream targets: `5`, `6`, `7` or `default` (also `v5`, "
    "`ai@5.0.100`). Absent or empty = the server's `TURNWIRE_VERCEL_CLIENT_VERSION`.",
    "schema": {"type": "string"},
}
_MESSAGES_LOC = ("body", "data", "inputs", "messages")
_SSE_CONTENT_TYPE = f"{SSE_MEDIA_TYPE}; charset=utf-8"
# Streams must reach the client chunk by chunk: no proxy buffering, no caching.
_SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}

_SSE_EVENT = {
    "type": "object",
    "description": "One SSE event; `: keepalive` comments may come between events.",
    "required": ["data"],
    "properties": {
        "data": {
            "type": "string",
            "description": "An Agenta frame or UI stream chunk as JSON; `[DONE]` ends Vercel streams.",
        }
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
    409: {"model": ValidationErrorBody, "description": "An approval the server did not issue"},
    413: {"model": ValidationErrorBody, "description": "Body larger than the limit"},
    422: {"model": ValidationErrorBody, "description": "Body or messages of the wrong shape"},
}
# Case-insensitive "agenta" / "vercel" (or blank) spelled out: JSON Schema regexes have no (?i).
_FORMAT_PATTERN = (
    "^[ \\t]*("
    + "|".join("".join(f"[{c.upper()}{c}]" for c in name) for name in ("agenta", "vercel"))
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


@dataclass(slots=True)
class InvokeConfig:
    """What the invoke routes serve: the agents by name, the default one, and the settings."""

    agents: dict[str, Agent]
    default_agent: str
    settings: Settings
    sessions: WarmSessions | None = None

    def warm_sessions(self) -> WarmSessions:
        """The app's approval signer and warm-session pool, built on first use (reads the secret)."""
        if self.sessions is None:
            self.sessions = build_sessions(self.settings)
        return self.sessions


def invoke_router(config: InvokeConfig) -> APIRouter:
    """The invoke routes, bound to ``config`` (its ``agents`` dict is read on every request)."""
    router = APIRouter(tags=["invoke"])

    @router.post(
        "/invoke",
        response_model=InvokeResponse,
        responses=_RESPONSES,
        openapi_extra=_OPENAPI_BODY,
        summary="Run one turn of the default agent",
    )
    async def invoke(request: Request) -> Response:
        return await _invoke(request, config, config.default_agent)

    @router.post(
        "/agents/{name}/invoke",
        response_model=InvokeResponse,
        responses=_RESPONSES,
        openapi_extra=_OPENAPI_BODY,
        summary="Run one turn of the named agent",
    )
    async def invoke_agent(name: str, request: Request) -> Response:
        return await _invoke(request, config, name)

    return router


async def _invoke(request: Request, config: InvokeConfig, agent_name: str) -> Response:
    try:
        return await _run(request, config, agent_name)
    except Exception as exc:  # the router may be mounted without our handlers: answer here
        return error_response(exc)


async def _run(request: Request, config: InvokeConfig, agent_name: str) -> Response:
    agent = config.agents.get(agent_name)
    if agent is None:
        return json_response({"detail": f"Unknown agent: {agent_name}"}, 404)
    headers = request.headers
    fmt = _header(negotiate_format, headers.get("x-ag-messages-format"))
    version = client_version(headers.get(AI_SDK_VERSION_HEADER), config.settings) if fmt == "vercel" else None
    transport = negotiate_transport(headers.get("accept"))
    settings = config.settings

    raw = await read_body(request, settings.max_body_bytes)
    body = _header(decode_json, raw, settings.max_json_depth)
    raw_messages, parameters = _envelope(body)
    session_id = _session_id(body, headers.get("x-ag-session-id"), headers.get("baggage"))
    messages = _parse(fmt, raw_messages)
    recording = await open_recording(request, session_id, messages, from_store=wants_stored_history(request))
    if recording is not None:
        messages = recording.history
    sessions = config.warm_sessions()
    check_approvals(sessions, messages, session_id, _MESSAGES_LOC)

    trace_id = uuid.uuid4().hex
    ctx = TurnContext(messages=messages, session_id=session_id, parameters=parameters, trace_id=trace_id)
    out_headers = {"x-ag-version": WIRE_VERSION, "x-ag-session-id": session_id, "x-ag-trace-id": trace_id}
    events: AsyncIterator[Event] = sessions.start(agent_name, agent, ctx)
    if recording is not None:
        events = recording.record(events, batch=transport is Transport.JSON)
        out_headers[TASK_ID_HEADER] = recording.task_id

    if transport is Transport.JSON:
        collected = [e async for e in events]
        turn = fold(collected)
        pending = [e for e in collected if isinstance(e, InteractionRequest)]
        if fmt == "vercel":
            outputs = vercel.render_outputs(
                turn,
                continuation_id=vercel.continuation_id(raw_messages),
                message_id=f"msg-{trace_id}",
                history=messages,
                pending=pending if turn.pending_interaction is not None else (),
                client_version=version or vercel.ClientVersion.DEFAULT,
            )
            out_headers.update(vercel.BATCH_HEADERS)
        else:
            outputs = agenta.render_outputs(turn)
        if turn.pending_interaction is not None:
            # Beyond the reference, which names only the last request: every gate of the turn,
            # so a client can answer two approvals pending in one message.
            outputs["pending_interactions"] = [render_pending(e) for e in pending]
        envelope = {
            "version": WIRE_VERSION,
            "status": {"code": 200, "message": "Success"},
            "session_id": session_id,
            "trace_id": trace_id,
            "data": {"outputs": outputs},
        }
        return Response(orjson.dumps(envelope), headers=out_headers, media_type=JSON_MEDIA_TYPE)

    keepalive = settings.keepalive_interval
    body_iter: AsyncIterator[bytes]
    if transport is Transport.NDJSON:
        # Vercel has no NDJSON form: Agenta frames, as the reference does.
        body_iter = agenta_ndjson(events)
        return StreamingResponse(body_iter, headers=out_headers, media_type=NDJSON_MEDIA_TYPE)
    out_headers.update(_SSE_HEADERS)
    if fmt == "vercel":
        out_headers.update(vercel.STREAM_HEADERS)
        encoder = vercel_encoder(raw_messages, messages, session_id, trace_id, version)
        body_iter = vercel_sse(events, encoder, keepalive)
    else:
        body_iter = agenta_sse(events, keepalive)
    response = StreamingResponse(body_iter, headers=out_headers)
    response.headers["content-type"] = _SSE_CONTENT_TYPE
    return response


def vercel_encoder(
    raw_messages: list[Any],
    messages: list[Message],
    session_id: str,
    trace_id: str,
    version: vercel.ClientVersion | None = None,
) -> vercel.UIStreamEncoder:
    """A UI Message Stream encoder for this turn, written for ``version`` (``None`` = ``DEFAULT``).

    ``messageId`` continues the client's trailing assistant message, else ``msg-<trace id>``; tool
    calls in the history are known, so results for them may be streamed.
    """
    message_id = vercel.continuation_id(raw_messages) or f"msg-{trace_id}"
    known = [b.id for m in messages for b in m.content if isinstance(b, ToolCallBlock) and b.id]
    return vercel.UIStreamEncoder(
        message_id,
        session_id,
        version or vercel.ClientVersion.DEFAULT,
        known_tool_call_ids=known,
        trace_id=trace_id,
    )


def client_version(header: str | None, settings: Settings) -> vercel.ClientVersion:
    """The AI SDK version a Vercel answer targets: ``x-ai-sdk-version``, else the server setting.

    An absent or blank header means the setting; a value naming no supported version is a 400
    naming the header (``RequestError``), never a silent fallback.
    """
    if header is None or not header.strip():
        return settings.vercel_client_version
    try:
        return vercel.ClientVersion.parse(header)
    except ValueError as exc:
        loc = ("header", AI_SDK_VERSION_HEADER)
        raise RequestError.at(400, str(exc), loc, "invalid_client_version") from None


def _header(func: Any, *args: Any) -> Any:
    """Call ``func``; its ``InputError`` means the request itself is malformed (400)."""
    try:
        return func(*args)
    except InputError as exc:
        raise RequestError(400, [exc]) from None


def _envelope(body: Any) -> tuple[Any, dict[str, Any]]:
    """``data.inputs.messages`` (``None`` → ``[]``) and ``data.parameters`` (``None`` → ``{}``)."""
    if not isinstance(body, dict):
        raise RequestError.at(422, f"expected a JSON object, got {_kind(body)}", ("body",), "object_type")
    data = _object(body.get("data"), ("body", "data"))
    inputs = _object(data.get("inputs"), ("body", "data", "inputs"))
    parameters = _object(data.get("parameters"), ("body", "data", "parameters"))
    messages = inputs.get("messages")
    if messages is None:
        messages = []
    elif not isinstance(messages, list):
        raise RequestError.at(422, f"expected an array, got {_kind(messages)}", _MESSAGES_LOC, "list_type")
    return messages, parameters


def _object(value: Any, loc: tuple[str, ...]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RequestError.at(422, f"expected an object, got {_kind(value)}", loc, "object_type")
    return value


def _session_id(body: dict[str, Any], header: str | None, baggage: str | None) -> str:
    """Body ``session_id``, else ``x-ag-session-id``, else ``baggage: ag.session.id=…``, else a fresh
    uuid4 hex. One rule for every source: an id that breaks it is a 400 naming that source."""
    value: Any = body.get("session_id")
    loc: tuple[str, ...] = ("body", "session_id")
    if value is None and header is not None:
        value, loc = header, ("header", "x-ag-session-id")
    if value is None and baggage is not None:
        value, loc = _baggage_session(baggage), ("header", "baggage")
    if value is None:
        return uuid.uuid4().hex
    if not isinstance(value, str) or not _SESSION_ID.fullmatch(value):
        raise RequestError.at(
            400,
            "session id must be 1-128 characters of A-Z a-z 0-9 . _ : -",
            loc,
            "invalid_session_id",
        )
    return value


def _baggage_session(baggage: str) -> str | None:
    """The ``ag.session.id`` member of a W3C baggage header (percent-decoded), if any."""
    for member in baggage.split(","):
        key, eq, value = member.partition("=")
        if eq and key.strip() == "ag.session.id":
            return unquote(value.split(";", 1)[0].strip())
    return None


def _parse(fmt: str, raw_messages: list[Any]) -> list[Message]:
    parse = vercel.parse_messages if fmt == "vercel" else agenta.parse_messages
    try:
        return parse(raw_messages)
    except InputError as exc:
        loc = exc.loc[1:] if exc.loc[:1] == ("messages",) else exc.loc
        raise RequestError(422, [InputError(exc.msg, loc=(*_MESSAGES_LOC, *loc), type=exc.type)]) from None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "number", float: "number"}.get(
        type(value), type(value).__name__
    )
