"""``GET /chat/{id}/stream`` (resume) and ``POST /chat/{id}/stop``, also under ``/agents/{name}``.

Resume is what the AI SDK's ``DefaultChatTransport.reconnectToStream`` calls (``useChat`` with
``resume: true``, or ``chat.resumeStream()``): ``204`` when the chat has no turn running, else the
running turn's UI Message Stream from its first chunk, then live until it ends — from the process
that runs it, or from any worker through the Redis turn logs. Stop cancels the chat's running turn
wherever it runs; its partial reply is stored with ``stop_reason: cancelled`` and every reader's
stream ends properly (``finish``, ``[DONE]``).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.framing import SSE_KEEPALIVE
from turnwire.server.context import current
from turnwire.server.doors.vercel.wire import CHAT_WIRE, VERCEL
from turnwire.server.http.errors import error_response, json_response
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.door import session_id
from turnwire.server.turns.running import live_key, lost_turn_frames, stop_turn
from turnwire.server.turns.streaming import stream_response

_ID_LOC = ("path", "id")


async def resume(request: Request, chat_id: str, agent_name: str | None = None) -> Response:
    app = current(request)
    try:
        if agent_name is not None:
            app.agent(agent_name)
        key = session_id(chat_id, _ID_LOC)
    except Exception as exc:
        return error_response(exc)
    interval = app.settings.keepalive_interval
    headers = {"x-ag-session-id": key, **VERCEL.stream_headers}
    key = live_key(app, key)
    live = app.turns.get(key)
    if live is not None and not live.done and live.wire == CHAT_WIRE:
        headers["x-ag-trace-id"] = live.turn_id
        return stream_response(live.follow(interval, SSE_KEEPALIVE), Transport.SSE, headers)
    if live is None:
        found = await app.turns.elsewhere(key)
        if found is not None and found[1] == CHAT_WIRE:
            headers["x-ag-trace-id"] = found[0]
            lost = lost_turn_frames(VERCEL, key, found[0])
            body = app.turns.follow_elsewhere(found[0], interval, SSE_KEEPALIVE, lost=lost)
            return stream_response(body, Transport.SSE, headers)
    return Response(status_code=204)


async def stop(request: Request, chat_id: str, agent_name: str | None = None) -> Response:
    app = current(request)
    try:
        if agent_name is not None:
            app.agent(agent_name)
        key = session_id(chat_id, _ID_LOC)
    except Exception as exc:
        return error_response(exc)
    stopped = await stop_turn(app, key)
    return json_response({"id": key, "stopped": stopped}, 200)


_STOP_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "`stopped`: whether a turn was running (it is cancelled, its partial reply stored)",
        "content": {"application/json": {"example": {"id": "chat-1", "stopped": True}}},
    }
}
_RESUME_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"description": "The running turn's UI Message Stream from its first chunk, then live"},
    204: {"description": "No turn is running for this chat"},
}


def add_resume_routes(router: APIRouter) -> None:
    async def resume_default(chat_id: str, request: Request) -> Response:
        return await resume(request, chat_id)

    async def resume_named(name: str, chat_id: str, request: Request) -> Response:
        return await resume(request, chat_id, name)

    async def stop_default(chat_id: str, request: Request) -> Response:
        return await stop(request, chat_id)

    async def stop_named(name: str, chat_id: str, request: Request) -> Response:
        return await stop(request, chat_id, name)

    for path, handler, method, summary, responses in (
        ("/chat/{chat_id}/stream", resume_default, "GET", "Resume a chat's running turn", _RESUME_RESPONSES),
        (
            "/agents/{name}/chat/{chat_id}/stream",
            resume_named,
            "GET",
            "Resume a chat's running turn",
            _RESUME_RESPONSES,
        ),
        ("/chat/{chat_id}/stop", stop_default, "POST", "Stop a chat's running turn", _STOP_RESPONSES),
        (
            "/agents/{name}/chat/{chat_id}/stop",
            stop_named,
            "POST",
            "Stop a chat's running turn",
            _STOP_RESPONSES,
        ),
    ):
        router.add_api_route(path, handler, methods=[method], summary=summary, responses=responses)
