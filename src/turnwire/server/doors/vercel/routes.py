"""``POST /chat`` and ``POST /agents/{name}/chat``: the route a ``useChat`` page talks to unchanged.

The body is what the AI SDK's ``DefaultChatTransport`` sends — ``{id, messages, trigger, messageId}``
— and the answer is always the UI Message Stream. The chat id is the session id. A continuation
(the last message is the assistant's, e.g. after an approval) reuses that message's id in ``start``
so the client appends to it instead of adding a duplicate; ``regenerate-message`` answers the
conversation again under the id of the message being regenerated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.formats import TurnInfo
from turnwire.framing import SSE_MEDIA_TYPE
from turnwire.server.context import AppContext
from turnwire.server.doors.vercel.resume import add_resume_routes
from turnwire.server.doors.vercel.wire import CHAT_WIRE, VERCEL
from turnwire.server.http.errors import RequestError
from turnwire.server.http.models import SESSION_ID_PATTERN, MessageBody, ValidationErrorBody
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.door import (
    AI_SDK_VERSION_PARAMETER,
    add_door,
    client_version,
    parse_messages,
    read_object,
    session_id,
)
from turnwire.server.turns.pipeline import TurnRequest, start_turn, wants_stored_history
from turnwire.server.turns.running import serve_turn
from turnwire.server.turns.streaming import stream_body

SUBMIT: Final = "submit-message"
REGENERATE: Final = "regenerate-message"
TRIGGERS: Final = (SUBMIT, REGENERATE)

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


def chat_router(dependencies: Sequence[Any] = ()) -> APIRouter:
    """The useChat-native routes, serving the same agents and sessions as ``/invoke`` (each route
    with ``dependencies``: see ``app.create_router``)."""
    router = APIRouter(tags=["chat"], dependencies=list(dependencies))
    add_door(router, "chat", chat, summary="useChat", responses=_RESPONSES, openapi_extra=_OPENAPI_BODY)
    add_resume_routes(router)
    return router


async def chat(request: Request, app: AppContext, agent_name: str) -> Response:
    app.agent(agent_name)
    version = client_version(VERCEL, request, app)
    body = await read_object(request, app)
    sid = session_id(body.get("id"), ("body", "id"))
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
        message_id = VERCEL.continuation_id(raw_messages)
    turn = await start_turn(
        app,
        TurnRequest(
            agent_name,
            parse_messages(VERCEL, raw_messages, _MESSAGES_LOC),
            session_id=sid,
            loc=_MESSAGES_LOC,
            from_store=wants_stored_history(request, body),
            regenerate=trigger == REGENERATE,
            message_id=message_id,
        ),
    )
    info = TurnInfo(turn.session_id, turn.trace_id, turn.message_id, turn.history, version)
    assert VERCEL.stream_encoder is not None
    frames = stream_body(turn.events, VERCEL.stream_encoder(info), Transport.SSE, trailer=VERCEL.sse_trailer)
    # A chat page's turn outlives its connection: a reload resumes it (GET /chat/{id}/stream).
    headers = {**turn.headers, **VERCEL.stream_headers}
    return serve_turn(app, turn, frames, Transport.SSE, headers, detached=True, wire=CHAT_WIRE)


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
