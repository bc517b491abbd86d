"""The OpenAI Responses door: ``POST /v1/responses`` and the stored responses under it.

``model`` names the agent (``GET /v1/models`` lists them). A response is one turn on the one turn
pipeline (approvals signed and checked, the turn recorded), answered as the ``response`` object or,
with ``stream: true``, as the semantic event stream whose ``response.completed`` carries the same
object (``formats.responses.stream``). The batch answer is that encoder's final object too, so a
batch answer, an accumulated stream and ``GET /v1/responses/{id}`` agree.

State (``state``): with ``store`` (the default) the response is a turn of a turnwire session;
``previous_response_id`` continues that session from its latest response; ``conversation`` (a
session id) names the session directly, so a conversation begun on another door continues here.
Continuing from an older response than the latest is refused (409 ``branch_not_supported``).
``store: false`` runs the turn on the request's own ``input`` and keeps nothing.

Approvals: a paused turn's ``mcp_approval_request`` item's ``id`` is the signed approval token; an
``mcp_approval_response`` input item answers it (with ``previous_response_id`` or
``conversation``): the door finds the call the token was issued for in the stored conversation, the
pipeline checks the signature and claims the decision once, so the tool runs once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.conversations.planning import branch_messages
from turnwire.conversations.stored import read_conversation, stored_conversation
from turnwire.errors import InputError
from turnwire.formats.responses import (
    ResponseEncoder,
    ResponsesRequest,
    chat_tools,
    new_response,
    parse_request,
    render_messages,
)
from turnwire.framing import SSE_DONE, sse_typed_frame
from turnwire.model import Message
from turnwire.server.context import AppContext, current
from turnwire.server.doors.responses.conversations import add_conversation_routes
from turnwire.server.doors.responses.openapi import CREATE_BODY, CREATE_RESPONSES, DELETED, ITEMS, stored
from turnwire.server.doors.responses.pages import page
from turnwire.server.doors.responses.references import check_references
from turnwire.server.doors.responses.resume import WIRE, resume
from turnwire.server.doors.responses.state import (
    envelopes,
    load,
    parse_response_id,
    persist,
    resolve_decisions,
    response_id,
    session_task,
)
from turnwire.server.http.errors import RequestError, json_response
from turnwire.server.http.negotiation import Transport
from turnwire.server.http.openai_errors import NotFound, openai_error
from turnwire.server.turns.door import read_object, session_id
from turnwire.server.turns.door_route import DoorRoute
from turnwire.server.turns.multitask import requested_strategy
from turnwire.server.turns.pipeline import StartedTurn, TurnRequest, start_turn
from turnwire.server.turns.running import collect_turn, continues_without_client, serve_turn, stop_turn
from turnwire.server.turns.streaming import SSE_HEADERS, stream_body

_INPUT_LOC: Final = ("input",)
CANCEL_WAIT: Final = 5.0


def responses_router(dependencies: Sequence[Any] = ()) -> APIRouter:
    router = APIRouter(prefix="/v1", tags=["responses"], dependencies=list(dependencies))
    router.add_api_route(
        "/responses",
        create_response,
        methods=["POST"],
        summary="OpenAI Responses: one turn of the agent named by model",
        responses=CREATE_RESPONSES,
        openapi_extra=CREATE_BODY,
        route_class_override=DoorRoute,  # a turn door: no dependency solving per request
    )
    router.add_api_route(
        "/responses/{response_id}",
        retrieve_response,
        methods=["GET"],
        summary="A stored response",
        responses=stored("The response as stored"),
    )
    router.add_api_route(
        "/responses/{response_id}",
        delete_response,
        methods=["DELETE"],
        summary="Forget a stored response",
        responses=stored("Forgotten", DELETED),
    )
    router.add_api_route(
        "/responses/{response_id}/input_items",
        list_input_items,
        methods=["GET"],
        summary="A stored response's input items",
        responses=stored("A page of input items", ITEMS),
    )
    router.add_api_route(
        "/responses/{response_id}/cancel",
        cancel_response,
        methods=["POST"],
        summary="Stop a running response",
        responses=stored("The response, stopped"),
    )
    add_conversation_routes(router)
    return router


async def create_response(request: Request) -> Response:
    try:
        return await _create(request, current(request))
    except Exception as exc:
        return openai_error(exc)


def _parse(body: dict[str, Any]) -> ResponsesRequest:
    try:
        return parse_request(body)
    except InputError as exc:
        raise RequestError(400, [exc]) from None


def _without_store(app: AppContext) -> AppContext:
    """``app`` keeping nothing (``store: false``): the same agents, settings and live turns."""
    view = object.__new__(type(app))
    view.__dict__.update(app.__dict__)
    view.store = None
    return view


async def _session(
    app: AppContext, req: ResponsesRequest
) -> tuple[str, list[dict[str, Any]], list[Message] | None]:
    """The session the response continues (``""``: a new one), its stored conversation, and the
    history to branch from when ``previous_response_id`` names an older response (else ``None``)."""
    store = app.store
    if req.previous_response_id is not None and req.conversation is not None:
        raise RequestError.at(
            400, "give previous_response_id or conversation, not both", ("conversation",), "conflicting_state"
        )
    if req.previous_response_id is not None:
        if not req.store or store is None:
            raise RequestError.at(400, "previous_response_id needs store: true", ("store",), "store_required")
        task, path, _ = await load(store, req.previous_response_id, "previous_response_id")
        session = parse_response_id(req.previous_response_id)[1]
        latest = await read_conversation(store, task["id"])
        later = envelopes(latest[len(path) :]) if latest[: len(path)] == path else None
        if later == []:
            # The session's latest response: continue the stored conversation at its end.
            return session, [m.record for m in latest], None
        # An older response: the conversation as it stood then is the history, so the new turn
        # starts a branch there (the later turns stay on their own branch).
        return session, [m.record for m in path], branch_messages(path)
    if req.conversation is not None:
        session = session_id(req.conversation, ("conversation",))
        if not req.store or store is None:
            raise RequestError.at(400, "conversation needs store: true", ("store",), "store_required")
        try:
            task = await session_task(store, session, "")
        except NotFound:
            return session, [], None
        return session, await stored_conversation(store, task["id"]), None
    return "", [], None


def _parameters(req: ResponsesRequest) -> dict[str, Any]:
    """What the agent reads: the request's fields under ``responses``, and its function tools in
    the Chat Completions shape under ``openai`` (where agents already look for client tools)."""
    responses = {
        **req.parameters,
        "tools": req.tools,
        "tool_choice": req.tool_choice,
        "parallel_tool_calls": req.parallel_tool_calls,
        "metadata": req.metadata,
        "instructions": req.instructions,
    }
    openai = {"tools": chat_tools(req.tools), "tool_choice": req.tool_choice, "metadata": req.metadata}
    return {"responses": responses, "openai": openai}


def _input_items(messages: list[Message], trace_id: str, instructions: bool) -> list[dict[str, Any]]:
    items = render_messages(messages[1:] if instructions else messages)
    for i, item in enumerate(items):
        item.setdefault("id", f"in_{trace_id}_{i}")
    return items


async def _create(request: Request, app: AppContext) -> Response:
    req = _parse(await read_object(request, app))
    app.agent(req.model)
    keep = req.store and app.store is not None
    session, records, branch_from = await _session(app, req)
    await check_references(app.store if keep else None, session, req.raw_input)
    resolve_decisions(req.messages, records, req.raw_input)
    ctx = app if keep else _without_store(app)
    detached = continues_without_client(request, ctx)
    turn = await start_turn(
        ctx,
        TurnRequest(
            req.model,
            req.messages if branch_from is None else [*branch_from, *req.messages],
            session_id=session,
            loc=_INPUT_LOC,
            parameters=_parameters(req),
            from_store=keep and branch_from is None,
            batch=not req.stream,
            multitask=requested_strategy(
                request,
                req.metadata.get("multitask_strategy") if req.metadata else None,
                ("body", "metadata", "multitask_strategy"),
            ),
        ),
    )
    rid = response_id(turn.trace_id, turn.session_id)
    response = new_response(
        rid,
        req.model,
        instructions=req.instructions,
        metadata=req.metadata,
        previous_response_id=req.previous_response_id,
        store=req.store,
        tools=req.tools,
        tool_choice=req.tool_choice,
        parallel_tool_calls=req.parallel_tool_calls,
        conversation=req.conversation,
        parameters=req.parameters,
    )
    encoder = ResponseEncoder(response, req.model, turn.history)
    inputs = _input_items(req.messages, turn.trace_id, req.instructions is not None)

    async def remember(_finished: bool = True) -> None:
        """Keep the response before its client reads its end (or when its stream is cut short)."""
        if not keep or turn.task_id is None or app.store is None:
            return
        encoder.finish("cancelled")  # a stream cut short ends here (no-op once finished)
        envelope = {"response": encoder.response, "input": inputs, "last_sequence": encoder.last_sequence}
        await persist(app.store, turn.task_id, turn.trace_id, envelope)

    headers = turn.headers
    if req.stream:
        body = stream_body(
            turn.events, encoder, Transport.SSE, trailer=SSE_DONE, framer=sse_typed_frame, closing=remember
        )
        headers = {**headers, **SSE_HEADERS}
        return serve_turn(ctx, turn, body, Transport.SSE, headers, detached=detached, wire=WIRE)
    return await _batch(ctx, turn, request, encoder, remember, headers, detached)


async def _batch(
    ctx: AppContext,
    turn: StartedTurn,
    request: Request,
    encoder: ResponseEncoder,
    remember: Any,
    headers: dict[str, str],
    detached: bool,
) -> Response:
    events = await collect_turn(ctx, turn, request, detached=detached)
    encoder.start()
    for event in events:
        encoder.encode(event)
    encoder.finish()
    await remember()
    return json_response(encoder.response, 200, headers)


def _store(app: AppContext, rid: str) -> Any:
    if app.store is None:
        raise NotFound(f"No response found with id {rid!r}.")
    return app.store


async def retrieve_response(response_id: str, request: Request) -> Response:
    """The stored response; with ``stream=true`` its stream again (``resume``)."""
    try:
        app = current(request)
        if request.query_params.get("stream", "").lower() == "true":
            return await resume(app, request, response_id)
        _, _, envelope = await load(_store(app, response_id), response_id)
        return json_response(envelope["response"], 200)
    except Exception as exc:
        return openai_error(exc)


async def delete_response(response_id: str, request: Request) -> Response:
    """Forget the response (its object and input items); the conversation's turns stay, as the
    session's other doors show them (deleting the session deletes them)."""
    try:
        app = current(request)
        store = _store(app, response_id)
        task, _, _ = await load(store, response_id)
        trace, _ = parse_response_id(response_id)
        await persist(store, task["id"], trace, None)
        return json_response({"id": response_id, "object": "response", "deleted": True}, 200)
    except Exception as exc:
        return openai_error(exc)


async def list_input_items(response_id: str, request: Request) -> Response:
    """``order`` (``desc`` by default, as the API), ``limit`` (1-100, default 20), ``after``."""
    try:
        app = current(request)
        _, _, envelope = await load(_store(app, response_id), response_id)
        return json_response(page(list(envelope.get("input") or []), request), 200)
    except Exception as exc:
        return openai_error(exc)


async def cancel_response(response_id: str, request: Request) -> Response:
    """Stop the response's turn if it is still running (on this worker or another), then answer
    the response as stored (``cancelled``); a response already over is answered as it is."""
    try:
        app = current(request)
        store = _store(app, response_id)
        _, session = parse_response_id(response_id)
        missing = f"No response found with id {response_id!r}."
        await session_task(store, session, missing)
        try:
            _, _, envelope = await load(store, response_id)
            return json_response(envelope["response"], 200)
        except NotFound:
            pass
        await stop_turn(app, session)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CANCEL_WAIT
        while True:
            try:
                _, _, envelope = await load(store, response_id)
                return json_response(envelope["response"], 200)
            except NotFound:
                if loop.time() >= deadline:
                    raise
            await asyncio.sleep(0.05)
    except Exception as exc:
        return openai_error(exc)
