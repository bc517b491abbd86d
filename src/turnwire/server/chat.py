"""``POST /chat`` and ``POST /agents/{name}/chat``: the route a ``useChat`` page talks to unchanged.

The body is what the AI SDK's ``DefaultChatTransport`` sends — ``{id, messages, trigger, messageId}``
— and the answer is always the UI Message Stream. The chat id is the session id. A continuation
(the last message is the assistant's, e.g. after an approval) reuses that message's id in ``start``
so the client appends to it instead of adding a duplicate; ``regenerate-message`` answers the
conversation again under the id of the message being regenerated.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response, StreamingResponse

from turnwire.errors import InputError
from turnwire.formats import vercel
from turnwire.framing import SSE_MEDIA_TYPE
from turnwire.model import Event, Message, ToolCallBlock
from turnwire.runtime import TurnContext
from turnwire.server.body import decode_json, read_body
from turnwire.server.errors import RequestError, error_response, json_response
from turnwire.server.invoke import (
    AI_SDK_VERSION_HEADER,
    AI_SDK_VERSION_PARAMETER,
    InvokeConfig,
    client_version,
)
from turnwire.server.models import SESSION_ID_PATTERN, WIRE_VERSION, MessageBody, ValidationErrorBody
from turnwire.server.recording import TASK_ID_HEADER, open_recording, wants_stored_history
from turnwire.server.sessions import check_approvals
from turnwire.server.streaming import vercel_sse

SUBMIT: Final = "submit-message"
REGENERATE: Final = "regenerate-message"
TRIGGERS: Final = (SUBMIT, REGENERATE)

_SESSION_ID = re.compile(SESSION_ID_PATTERN)
_MESSAGES_LOC: Final = ("body", "messages")
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The turn as a UI Message Stream (SSE, ending with `data: [DONE]`).",
        "content": {SSE_MEDIA_TYPE: {"schema": {"type": "string"}}},
    },
    400: {"model": ValidationErrorBody, "description": "Malformed JSON, chat id or x-ai-sdk-version"},
    404: {"model": MessageBody, "description": "Unknown agent"},
    409: {"model": ValidationErrorBody, "description": "An approval the server did not issue"},
    413: {"model": ValidationErrorBody, "description": "Body larger than the limit"},
    422: {"model": ValidationErrorBody, "description": "Body or messages of the wrong shape"},
}
_OPENAPI_BODY = {
    "parameters": [AI_SDK_VERSION_PARAMETER],
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "What the AI SDK's DefaultChatTransport sends; other keys are ignored.",
                    "properties": {
                        "id": {"type": "string", "pattern": SESSION_ID_PATTERN},
                        "messages": {"type": "array", "items": {"type": "object"}},
                        "trigger": {"type": "string", "enum": list(TRIGGERS)},
                        "messageId": {"type": "string"},
                    },
                    "required": ["messages"],
                }
            }
        },
    },
}


def chat_router(config: InvokeConfig) -> APIRouter:
    """The useChat-native routes, serving the same agents and sessions as ``/invoke``."""
    router = APIRouter(tags=["chat"])

    @router.post("/chat", responses=_RESPONSES, openapi_extra=_OPENAPI_BODY, summary="useChat: default agent")
    async def chat(request: Request) -> Response:
        return await _answer(request, config, config.default_agent)

    @router.post("/agents/{name}/chat", responses=_RESPONSES, openapi_extra=_OPENAPI_BODY, summary="useChat")
    async def chat_agent(name: str, request: Request) -> Response:
        return await _answer(request, config, name)

    return router


async def _answer(request: Request, config: InvokeConfig, agent_name: str) -> Response:
    try:
        return await _run(request, config, agent_name)
    except Exception as exc:  # mounted without our handlers: answer here
        return error_response(exc)


async def _run(request: Request, config: InvokeConfig, agent_name: str) -> Response:
    agent = config.agents.get(agent_name)
    if agent is None:
        return json_response({"detail": f"Unknown agent: {agent_name}"}, 404)
    settings = config.settings
    version = client_version(request.headers.get(AI_SDK_VERSION_HEADER), settings)
    raw = await read_body(request, settings.max_body_bytes)
    try:
        body = decode_json(raw, settings.max_json_depth)
    except InputError as exc:
        raise RequestError(400, [exc]) from None
    if not isinstance(body, dict):
        raise RequestError.at(422, "expected a JSON object", ("body",), "object_type")
    session_id = _chat_id(body.get("id"))
    trigger = _trigger(body.get("trigger"))
    raw_messages = _raw_messages(body)
    message_id: str | None
    if trigger == REGENERATE:
        # The client trims the message being regenerated; drop it if it did not.
        while raw_messages and _is_assistant(raw_messages[-1]):
            raw_messages = raw_messages[:-1]
        requested = body.get("messageId")
        message_id = requested if isinstance(requested, str) and requested else None
    else:
        message_id = vercel.continuation_id(raw_messages)
    messages = _parse(raw_messages)
    from_store = wants_stored_history(request, body)
    recording = await open_recording(request, session_id, messages, from_store=from_store)
    if recording is not None:
        messages = recording.history

    sessions = config.warm_sessions()
    check_approvals(sessions, messages, session_id, _MESSAGES_LOC)
    if trigger == REGENERATE:
        sessions.forget(agent_name, session_id)
    trace_id = uuid.uuid4().hex
    ctx = TurnContext(messages=messages, session_id=session_id, trace_id=trace_id)
    events: AsyncIterator[Event] = sessions.start(agent_name, agent, ctx)
    if recording is not None:
        events = recording.record(events)
    known = [b.id for m in messages for b in m.content if isinstance(b, ToolCallBlock) and b.id]
    encoder = vercel.UIStreamEncoder(
        message_id or f"msg-{trace_id}", session_id, version, known_tool_call_ids=known, trace_id=trace_id
    )
    headers = {
        "x-ag-version": WIRE_VERSION,
        "x-ag-session-id": session_id,
        "x-ag-trace-id": trace_id,
        **vercel.STREAM_HEADERS,
    }
    if recording is not None:
        headers[TASK_ID_HEADER] = recording.task_id
    response = StreamingResponse(vercel_sse(events, encoder, settings.keepalive_interval), headers=headers)
    response.headers["content-type"] = f"{SSE_MEDIA_TYPE}; charset=utf-8"
    return response


def _chat_id(value: Any) -> str:
    if value is None:
        return uuid.uuid4().hex
    if not isinstance(value, str) or not _SESSION_ID.fullmatch(value):
        msg = "the chat id must be 1-128 characters of A-Z a-z 0-9 . _ : -"
        raise RequestError.at(400, msg, ("body", "id"), "invalid_session_id")
    return value


def _trigger(value: Any) -> str:
    if value is None:
        return SUBMIT
    if value not in TRIGGERS:
        msg = f"trigger must be one of {', '.join(TRIGGERS)}"
        raise RequestError.at(422, msg, ("body", "trigger"), "enum")
    return str(value)


def _is_assistant(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "assistant"


def _raw_messages(body: dict[str, Any]) -> list[Any]:
    """``messages``; a lone ``message`` (a custom ``prepareSendMessagesRequest`` body) is a one-item list."""
    messages = body.get("messages")
    if messages is None and isinstance(body.get("message"), dict):
        return [body["message"]]
    if not isinstance(messages, list):
        raise RequestError.at(422, "messages must be an array of UIMessages", _MESSAGES_LOC, "list_type")
    return messages


def _parse(raw_messages: list[Any]) -> list[Message]:
    try:
        return vercel.parse_messages(raw_messages)
    except InputError as exc:
        loc = exc.loc[1:] if exc.loc[:1] == ("messages",) else exc.loc
        raise RequestError(422, [InputError(exc.msg, loc=(*_MESSAGES_LOC, *loc), type=exc.type)]) from None
