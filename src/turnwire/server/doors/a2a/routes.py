"""The A2A door: agent cards and the JSON-RPC binding.

- ``GET /.well-known/agent-card.json``: the default agent's card; ``GET
  /a2a/{name}/.well-known/agent-card.json``: each agent's.
- ``POST /a2a`` (default agent) and ``POST /a2a/{name}``: JSON-RPC 2.0, the v1.0 methods
  (``SendMessage``, ``SendStreamingMessage``, ``GetTask``, ``ListTasks``, ``CancelTask``,
  ``SubscribeToTask``) and their v0.3 names (``message/send``, ``message/stream``, ``tasks/get``,
  ``tasks/list``, ``tasks/cancel``, ``tasks/resubscribe``) answered in v0.3 shapes.
- ``/a2a/{name}/http/…``: the HTTP+JSON binding of the same methods (``rest``).

Every route runs the app's key check (a tenant's tasks are its own); every failure is a JSON-RPC
error (``rpc``), never a 5xx.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.server.context import current
from turnwire.server.doors.a2a.card import agent_card
from turnwire.server.doors.a2a.methods import dispatch
from turnwire.server.doors.a2a.rest import rest_router
from turnwire.server.doors.a2a.rpc import (
    INTERNAL_ERROR,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    RequestId,
    RpcError,
    error_body,
    parse_envelope,
    request_id,
    rpc_response,
)
from turnwire.server.http.body import BodyTooLarge, UnsupportedMediaType, decode_json, read_body
from turnwire.server.http.errors import UnknownAgent, error_response
from turnwire.server.http.request_id import internal_error_message, log_failure
from turnwire.server.turns.door_route import DoorRoute


def a2a_router(dependencies: Sequence[Any] = ()) -> APIRouter:
    router = APIRouter(tags=["a2a"], dependencies=list(dependencies))
    router.add_api_route(
        "/.well-known/agent-card.json", default_card, methods=["GET"], summary="A2A agent card"
    )
    router.add_api_route(
        "/a2a/{name}/.well-known/agent-card.json",
        named_card,
        methods=["GET"],
        summary="A2A agent card of an agent",
    )
    for path, endpoint in (("/a2a", default_rpc), ("/a2a/{name}", named_rpc)):
        router.add_api_route(
            path,
            endpoint,
            methods=["POST"],
            summary="A2A JSON-RPC (v1.0 and v0.3 methods)",
            route_class_override=DoorRoute,
        )
    # The HTTP+JSON binding: the same methods under /a2a/{agent}/http (see ``rest``).
    router.routes.extend(rest_router(dependencies).routes)
    return router


async def default_card(request: Request) -> Response:
    return _card(request, None)


async def named_card(name: str, request: Request) -> Response:
    return _card(request, name)


def _card(request: Request, name: str | None) -> Response:
    app = current(request)
    try:
        return rpc_response(agent_card(request, app, name or app.default_agent))
    except Exception as exc:
        return error_response(exc, request)


async def default_rpc(request: Request) -> Response:
    return await _rpc(request, None)


async def named_rpc(name: str, request: Request) -> Response:
    return await _rpc(request, name)


async def _rpc(request: Request, name: str | None) -> Response:
    app = current(request)
    rid: RequestId = None
    try:
        raw = await read_body(request, app.settings.max_body_bytes)
        try:
            body = decode_json(raw, app.settings.max_json_depth)
        except InputError as exc:
            raise RpcError(PARSE_ERROR, f"the body is not JSON: {exc.msg}") from None
        rid = request_id(body)
        rid, method, params = parse_envelope(body)
        agent_name = name or app.default_agent
        if agent_name not in app.agents:
            raise UnknownAgent(agent_name)
        return await dispatch(request, app, agent_name, rid, method, params)
    except RpcError as exc:
        return rpc_response(error_body(rid, exc))
    except UnknownAgent as exc:
        error = RpcError(METHOD_NOT_FOUND, f"no agent named {exc.name!r} is served here", {"agent": exc.name})
        return rpc_response(error_body(rid, error))
    except (BodyTooLarge, UnsupportedMediaType) as exc:
        return error_response(exc, request)  # 413 / 415: no JSON-RPC request was read
    except Exception as exc:
        message = internal_error_message(log_failure(exc, "handling an A2A request"))
        return rpc_response(error_body(rid, RpcError(INTERNAL_ERROR, message)))
