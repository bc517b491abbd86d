"""``POST /agui`` and ``POST /agents/{name}/agui``: the door an AG-UI client (``HttpAgent``) runs.

The body is a ``RunAgentInput``; the answer is always its SSE event stream. ``threadId`` is the
session, ``runId`` the run; the ``resume`` answers to a paused run's interrupts join the
conversation as decisions and answers, checked by the pipeline like a decision from any door. The
client's ``tools``, ``state``, ``context`` and ``forwardedProps`` reach the agent under
``TurnContext.parameters["agui"]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.formats import TurnInfo, get_format
from turnwire.formats.agui import RunInput, parse_run_input
from turnwire.framing import SSE_MEDIA_TYPE
from turnwire.server.context import AppContext
from turnwire.server.doors.agui.capabilities import add_capabilities_routes
from turnwire.server.doors.agui.client_module import add_client_route
from turnwire.server.doors.agui.connect import AGUI_WIRE, add_connect_routes
from turnwire.server.http.errors import RequestError
from turnwire.server.http.models import SESSION_ID_PATTERN, MessageBody, ValidationErrorBody
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.door import add_door, read_object, session_id
from turnwire.server.turns.multitask import requested_strategy
from turnwire.server.turns.pipeline import TurnRequest, start_turn, wants_stored_history
from turnwire.server.turns.running import continues_without_client, serve_turn
from turnwire.server.turns.streaming import stream_body

AGUI: Final = get_format("agui")
_MESSAGES_LOC: Final = ("body", "messages")
_SSE_EVENT = {
    "type": "object",
    "description": "One SSE event; `: keepalive` comments may come between events.",
    "required": ["data"],
    "properties": {"data": {"type": "string", "description": "One AG-UI event as JSON."}},
}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The run as AG-UI events (SSE): RUN_STARTED … RUN_FINISHED or RUN_ERROR.",
        "content": {SSE_MEDIA_TYPE: {"schema": _SSE_EVENT}},
    },
    400: {"model": ValidationErrorBody, "description": "Malformed JSON or threadId"},
    404: {"model": MessageBody, "description": "Unknown agent"},
    409: {
        "model": ValidationErrorBody,
        "description": "An approval the server did not issue; a conversation busy with a turn",
    },
    413: {"model": ValidationErrorBody, "description": "Body larger than the limit"},
    422: {"model": ValidationErrorBody, "description": "RunAgentInput of the wrong shape"},
}
_OPENAPI_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "AG-UI RunAgentInput; other keys are ignored.",
                    "properties": {
                        "threadId": {"type": "string", "pattern": SESSION_ID_PATTERN},
                        "runId": {"type": "string"},
                        "parentRunId": {"type": "string"},
                        "messages": {"type": "array", "items": {"type": "object"}},
                        "tools": {"type": "array", "items": {"type": "object"}},
                        "state": {},
                        "context": {"type": "array", "items": {"type": "object"}},
                        "forwardedProps": {},
                        "resume": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "interruptId": {"type": "string"},
                                    "status": {"type": "string", "enum": ["resolved", "cancelled"]},
                                    "payload": {},
                                },
                                "required": ["interruptId", "status"],
                            },
                        },
                    },
                    "required": ["threadId", "runId", "messages"],
                }
            }
        },
    },
}


def agui_router(dependencies: Sequence[Any] = ()) -> APIRouter:
    """The AG-UI routes, serving the same agents and sessions as every other door (each route
    with ``dependencies``: see ``app.create_router``)."""
    router = APIRouter(tags=["agui"], dependencies=list(dependencies))
    add_door(router, "agui", agui, summary="AG-UI run", responses=_RESPONSES, openapi_extra=_OPENAPI_BODY)
    add_connect_routes(router)
    add_capabilities_routes(router)
    add_client_route(router)
    return router


async def agui(request: Request, app: AppContext, agent_name: str) -> Response:
    app.agent(agent_name)
    body = await read_object(request, app)
    run = _run_input(body)
    from_store = wants_stored_history(request)
    detached = continues_without_client(request, app)
    try:
        turn = await start_turn(
            app,
            TurnRequest(
                agent_name,
                run.messages,
                session_id=session_id(run.thread_id, ("body", "threadId")),
                loc=_MESSAGES_LOC,
                parameters={"agui": _parameters(run)},
                from_store=from_store,
                multitask=_multitask(request, run),
                session_loc=("body", "threadId"),
            ),
        )
    except RequestError as exc:
        raise exc if from_store else _name_resume(exc, run) from None
    # The run's messages are named from the turn's stored message id (what a history read names
    # them by), the run itself by the client's runId.
    info = TurnInfo(turn.session_id, turn.trace_id, turn.message_id, turn.history, run_id=run.run_id)
    assert AGUI.stream_encoder is not None
    frames = stream_body(turn.events, AGUI.stream_encoder(info), Transport.SSE)
    headers = {**turn.headers, **AGUI.stream_headers}
    # Registered like every door's turn: stop reaches it; a client that leaves cancels it (unless
    # x-ag-on-disconnect / TURNWIRE_ON_DISCONNECT say continue).
    # Its wire lets GET /agui/threads/{threadId}/connect follow it (``connect``).
    return serve_turn(app, turn, frames, Transport.SSE, headers, detached=detached, wire=AGUI_WIRE)


def _run_input(body: dict[str, Any]) -> RunInput:
    try:
        return parse_run_input(body)
    except InputError as exc:
        raise RequestError(422, [InputError(exc.msg, loc=("body", *exc.loc), type=exc.type)]) from None


def _name_resume(exc: RequestError, run: RunInput) -> RequestError:
    """An error about a message made from ``resume`` names ``["body", "resume"]``, not an index
    past the client's messages."""
    errors = []
    for error in exc.errors:
        loc = error.loc
        at = loc[len(_MESSAGES_LOC)] if loc[: len(_MESSAGES_LOC)] == _MESSAGES_LOC and len(loc) > 2 else None
        if isinstance(at, int) and at >= run.resume_from:
            error = InputError(error.msg, loc=("body", "resume"), type=error.type)
        errors.append(error)
    return RequestError(exc.status, errors)


def _multitask(request: Request, run: RunInput) -> Any:
    """The header, else ``forwardedProps.multitask_strategy`` (what AG-UI forwards to agents)."""
    props = run.forwarded_props if isinstance(run.forwarded_props, dict) else {}
    loc = ("body", "forwardedProps", "multitask_strategy")
    return requested_strategy(request, props.get("multitask_strategy"), loc)


def _parameters(run: RunInput) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "parent_run_id": run.parent_run_id,
        "tools": run.tools,
        "state": run.state,
        "context": run.context,
        "forwarded_props": run.forwarded_props,
    }
