"""The OpenAI-compatible door: ``GET /v1/models`` and ``POST /v1/chat/completions``.

``model`` names the agent (``/v1/models`` lists the served ones). A completion is one turn on the
pipeline, so approvals are signed and checked and the turn is recorded like on every door.

A client that names no session resends the whole conversation: a request continuing a
conversation this door answered for the tenant continues its session (``formats.openai.continuity``),
else it is a new session (and task). A client names its session with the ``x-ag-session-id``
header or ``metadata.session_id``; with ``x-ag-history: stored`` it then sends only its new messages. An
answered approval resumes the session it was issued in (the ``turnwire_approval`` call names it). Every
answer names its session, trace and task in the ``x-ag-*`` headers.

Errors have OpenAI's shape ``{"error": {"message", "type", "param", "code"}}``: a bad body is 400
(``param`` names the field, e.g. ``messages[2].content``), an unknown model 404
(``model_not_found``), a forged or stale approval 409, a body over the limit 413. A turn whose
agent failed is a 500 ``agent_run_failed`` with ``x-should-retry: false`` (the SDKs would otherwise
run the agent again), or, streamed, an ``{"error": ...}`` event before ``data: [DONE]``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.fold import fold
from turnwire.formats.openai import (
    STREAM_HEADERS,
    ChatChunkEncoder,
    ChatRequest,
    error_body,
    parse_request,
    render_completion,
)
from turnwire.formats.openai.continuity import ReplyView, conversation_digest, resent_prefix
from turnwire.framing import SSE_DONE, SSE_MEDIA_TYPE
from turnwire.model import ErrorEvent, InteractionRequest, Usage
from turnwire.server.context import AppContext, current
from turnwire.server.http.errors import RequestError, UnknownAgent, json_response
from turnwire.server.http.negotiation import Transport
from turnwire.server.http.openai_errors import openai_error
from turnwire.server.turns.door import read_object, session_id
from turnwire.server.turns.door_route import DoorRoute
from turnwire.server.turns.multitask import requested_strategy
from turnwire.server.turns.pipeline import StartedTurn, TurnRequest, start_turn, wants_stored_history
from turnwire.server.turns.running import collect_turn, continues_without_client, serve_turn
from turnwire.server.turns.streaming import StreamBody, stream_body
from turnwire.store.chat_digests import remember, session_of

log = logging.getLogger("turnwire.server")

SESSION_HEADER: Final = "x-ag-session-id"
OWNER: Final = "turnwire"
CREATED: Final = int(time.time())
"""``created`` of every model: when this process started serving them."""
_MESSAGES_LOC: Final = ("messages",)

_ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"type": ["string", "null"]},
                "code": {"type": ["string", "null"]},
            },
            "required": ["message", "type", "param", "code"],
        }
    },
    "required": ["error"],
}
_ERROR = {"content": {"application/json": {"schema": _ERROR_SCHEMA}}}
_SSE_EVENT = {
    "type": "object",
    "description": "One SSE event; `: keepalive` comments may come between events.",
    "required": ["data"],
    "properties": {
        "data": {
            "type": "string",
            "description": "A chat.completion.chunk (or an error) as JSON; `[DONE]` ends the stream.",
        }
    },
}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "A `chat.completion`; with `stream: true` SSE chunks ending `data: [DONE]`.",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            SSE_MEDIA_TYPE: {"schema": _SSE_EVENT},
        },
    },
    400: {"description": "Malformed JSON or a body of the wrong shape", **_ERROR},
    404: {"description": "Unknown model (agent)", **_ERROR},
    409: {"description": "An approval the server did not issue; a conversation busy with a turn", **_ERROR},
    413: {"description": "Body larger than the limit", **_ERROR},
    500: {"description": "The agent run failed", **_ERROR},
}
_OPENAPI_BODY = {
    "parameters": [
        {
            "name": SESSION_HEADER,
            "in": "header",
            "required": False,
            "description": "Keep the conversation in this session (default: a new session per request).",
            "schema": {"type": "string"},
        }
    ],
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "A Chat Completions request; other keys reach the agent as parameters.",
                    "properties": {
                        "model": {"type": "string"},
                        "messages": {"type": "array", "items": {"type": "object"}},
                        "stream": {"type": "boolean"},
                        "stream_options": {
                            "type": "object",
                            "properties": {"include_usage": {"type": "boolean"}},
                        },
                        "user": {"type": "string"},
                        "metadata": {"type": "object"},
                    },
                    "required": ["model", "messages"],
                }
            }
        },
    },
}


def openai_router(dependencies: Sequence[Any] = ()) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["openai"], dependencies=list(dependencies))
    router.add_api_route(
        "/models", list_models, methods=["GET"], summary="OpenAI: the served agents as models"
    )
    router.add_api_route("/models/{model}", get_model, methods=["GET"], summary="OpenAI: one model")
    router.add_api_route(
        "/chat/completions",
        chat_completions,
        methods=["POST"],
        summary="OpenAI Chat Completions",
        responses=_RESPONSES,
        openapi_extra=_OPENAPI_BODY,
        route_class_override=DoorRoute,  # a turn door: no dependency solving per request
    )
    return router


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": CREATED, "owned_by": OWNER}


async def list_models(request: Request) -> Response:
    app = current(request)
    return json_response({"object": "list", "data": [_model(name) for name in app.agents]}, 200)


async def get_model(model: str, request: Request) -> Response:
    app = current(request)
    if model not in app.agents:
        return openai_error(UnknownAgent(model))
    return json_response(_model(model), 200)


async def chat_completions(request: Request) -> Response:
    try:
        return await _complete(request, current(request))
    except Exception as exc:
        return openai_error(exc)


async def _complete(request: Request, app: AppContext) -> Response:
    body = await read_object(request, app)
    chat = _parse(body)
    app.agent(chat.model)
    detached = continues_without_client(request, app)
    from_store = wants_stored_history(request)
    session = _session(request, chat)
    # A client that names no session resends its whole conversation: continue the stored one it
    # is (``formats.openai.continuity``), unless that one is busy or gone (then a new session).
    stateless = not session and not from_store and app.store is not None
    found = await _continued_session(app, body["messages"]) if stateless else None

    def turn_request(session_id: str, continued: tuple[str, int] | None = None) -> TurnRequest:
        messages = chat.messages
        if continued is not None:  # only what follows the stored part is new: the stored
            # conversation (with the tool calls the agent ran, which the client never saw) goes first
            messages = _parse({**body, "messages": body["messages"][continued[1] :]}).messages
        return TurnRequest(
            chat.model,
            messages,
            session_id=session_id,
            loc=_MESSAGES_LOC,
            parameters={"openai": {**chat.parameters, "user": chat.user, "metadata": chat.metadata}},
            from_store=from_store or continued is not None,
            batch=not chat.stream,
            multitask=requested_strategy(
                request, chat.metadata.get("multitask_strategy"), ("body", "metadata", "multitask_strategy")
            ),
        )

    try:
        turn = await start_turn(app, turn_request(found[0], found) if found else turn_request(session))
    except RequestError as exc:
        if not found or exc.status != 409:
            raise
        turn = await start_turn(app, turn_request(""))
    completion_id = f"chatcmpl-{turn.trace_id}"
    created = int(time.time())
    sent = body["messages"] if stateless else None
    if chat.stream:
        encoder = ChatChunkEncoder(
            completion_id, chat.model, created, include_usage=chat.include_usage, session_id=turn.session_id
        )
        if sent is None:
            stream = stream_body(turn.events, encoder, Transport.SSE, trailer=SSE_DONE)
        else:
            stream = _remembering(app, turn, sent, encoder)
        headers = {**turn.headers, **STREAM_HEADERS}
        return serve_turn(app, turn, stream, Transport.SSE, headers, detached=detached)
    events = await collect_turn(app, turn, request, detached=detached)  # shutdown: the turn so far
    folded = fold(events, full=True)
    if folded.stop_reason == "error":
        errors = [e for e in events if isinstance(e, ErrorEvent)]
        message = errors[-1].message if errors else "The agent run failed."
        code = (errors[-1].code if errors else None) or "agent_run_failed"
        headers = {**turn.headers, "x-should-retry": "false"}
        return json_response(error_body(message, "server_error", code=code), 500, headers)
    usage = next((e for e in reversed(events) if isinstance(e, Usage)), None)
    pending = [e for e in events if isinstance(e, InteractionRequest)] if folded.pending_interaction else []
    completion = render_completion(
        folded,
        completion_id=completion_id,
        model=chat.model,
        created=created,
        usage=usage,
        pending=pending,
        session_id=turn.session_id,
    )
    if sent is not None:
        await _remember(app, turn, [*sent, completion["choices"][0]["message"]])
    return json_response(completion, 200, turn.headers)


async def _continued_session(app: AppContext, messages: list[Any]) -> tuple[str, int] | None:
    """The stored session ``messages`` continue and how many of them it already holds, if any."""
    prefix = resent_prefix(messages)
    if prefix is None or len(prefix) == len(messages):
        return None
    try:
        found = await session_of(app.store, app.tenant, conversation_digest(prefix))
    except Exception:  # continuity is a convenience: a store hiccup here starts a new session
        log.warning("could not look up the conversation a Chat Completions request continues", exc_info=True)
        return None
    return None if found is None else (found, len(prefix))


async def _remember(app: AppContext, turn: StartedTurn, conversation: list[Any]) -> None:
    """The conversation as the client will resend it is ``turn``'s session, for its next request."""
    try:
        await remember(app.store, app.tenant, conversation_digest(conversation), turn.session_id)
    except Exception:
        log.warning("could not remember the conversation of session %s", turn.session_id, exc_info=True)


def _remembering(
    app: AppContext, turn: StartedTurn, sent: list[Any], encoder: ChatChunkEncoder
) -> StreamBody:
    """The stream, with the conversation the client now holds remembered before ``[DONE]`` (the
    client's next request may come as soon as it reads it)."""
    watched = _Watched(encoder)

    async def remember(finished: bool) -> None:
        if finished and encoder.stop_reason != "error":
            await _remember(app, turn, [*sent, watched.view.message()])

    return stream_body(turn.events, watched, Transport.SSE, trailer=SSE_DONE, closing=remember)


class _Watched:
    """``encoder``, with what its chunks say read as the client reads them (``ReplyView``)."""

    def __init__(self, encoder: ChatChunkEncoder) -> None:
        self.encoder = encoder
        self.view = ReplyView()

    def start(self) -> list[Any]:
        return self.encoder.start()

    def encode(self, event: Any) -> list[Any]:
        chunks = self.encoder.encode(event)
        self.view.read(chunks)
        return chunks

    def finish(self, error: str | None = None) -> list[Any]:
        chunks = self.encoder.finish(error=error)
        self.view.read(chunks)
        return chunks


def _parse(body: dict[str, Any]) -> ChatRequest:
    try:
        return parse_request(body)
    except InputError as exc:
        raise RequestError(400, [exc]) from None


def _session(request: Request, chat: ChatRequest) -> str:
    """``x-ag-session-id``, else ``metadata.session_id``, else the session of an approval the
    messages answer, else ``""`` (a new session)."""
    header = request.headers.get(SESSION_HEADER)
    if header:
        return session_id(header, ("header", SESSION_HEADER))
    if chat.metadata.get("session_id") is not None:
        return session_id(chat.metadata["session_id"], ("metadata", "session_id"))
    return session_id(chat.approval_session, ("messages",))
