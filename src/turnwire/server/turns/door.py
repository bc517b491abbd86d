"""What every turn door reads the same way: its agent routes, the body, the session id, the
messages in a format, the client version a format targets."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.formats import WireFormat
from turnwire.model import Message
from turnwire.server.context import AppContext, current
from turnwire.server.http.body import decode_json, read_body
from turnwire.server.http.errors import RequestError, error_response
from turnwire.server.http.models import SESSION_ID_PATTERN
from turnwire.server.turns.door_route import DoorRoute

_SESSION_ID = re.compile(SESSION_ID_PATTERN)
SESSION_ID_RULE = "session id must be 1-128 characters of A-Z a-z 0-9 . _ : -"

AI_SDK_VERSION_HEADER: Final = "x-ai-sdk-version"
AI_SDK_VERSION_PARAMETER: Final = {
    "name": AI_SDK_VERSION_HEADER,
    "in": "header",
    "required": False,
    "description": "The AI SDK major a Vercel stream targets: `5`, `6`, `7` or `default` (also `v5`, "
    "`ai@5.0.100`). Absent or empty = the server's `TURNWIRE_VERCEL_CLIENT_VERSION`.",
    "schema": {"type": "string"},
}

Door = Callable[[Request, AppContext, str], Awaitable[Response]]
"""A door's handler: the request, the app context and the agent name."""


def add_door(router: APIRouter, path: str, door: Door, *, summary: str, **openapi: Any) -> None:
    """Register ``door`` at ``/{path}`` (the default agent) and ``/agents/{name}/{path}``.

    Every failure becomes a JSON error answer here, so the door also answers properly in an app
    that did not install turnwire's error handlers.
    """

    async def run(request: Request, name: str | None) -> Response:
        app = current(request)
        try:
            return await door(request, app, name or app.default_agent)
        except Exception as exc:
            return error_response(exc, request)

    async def default_agent(request: Request) -> Response:
        return await run(request, None)

    async def named_agent(name: str, request: Request) -> Response:
        return await run(request, name)

    # DoorRoute: the same routes, answered without FastAPI's per-request dependency solving.
    router.add_api_route(
        f"/{path}",
        default_agent,
        methods=["POST"],
        summary=f"{summary}: default agent",
        route_class_override=DoorRoute,
        **openapi,
    )
    router.add_api_route(
        f"/agents/{{name}}/{path}",
        named_agent,
        methods=["POST"],
        summary=summary,
        route_class_override=DoorRoute,
        **openapi,
    )


async def read_object(request: Request, app: AppContext) -> dict[str, Any]:
    """The JSON object body within the app's size and depth limits (400/413/422 otherwise)."""
    settings = app.settings
    raw = await read_body(request, settings.max_body_bytes)
    try:
        body = decode_json(raw, settings.max_json_depth)
    except InputError as exc:
        raise RequestError(400, [exc]) from None
    if not isinstance(body, dict):
        raise RequestError.at(422, f"expected a JSON object, got {kind_of(body)}", ("body",), "object_type")
    return body


def session_id(value: Any, loc: tuple[str, ...]) -> str:
    """A client's session id, checked (400 naming ``loc``); ``None`` → ``""`` (a fresh one)."""
    if value is None:
        return ""
    if not isinstance(value, str) or not _SESSION_ID.fullmatch(value):
        raise RequestError.at(400, SESSION_ID_RULE, loc, "invalid_session_id")
    return value


def parse_messages(fmt: WireFormat, raw: list[Any], loc: tuple[str, ...]) -> list[Message]:
    """``raw`` parsed by ``fmt``; a bad message is a 422 naming it under ``loc``."""
    try:
        return fmt.parse_messages(raw)
    except InputError as exc:
        inner = exc.loc[1:] if exc.loc[:1] == ("messages",) else exc.loc
        raise RequestError(422, [InputError(exc.msg, loc=(*loc, *inner), type=exc.type)]) from None


def client_version(fmt: WireFormat, request: Request, app: AppContext) -> Any:
    """The client version ``fmt``'s answer targets: its header, else the server's setting (400 on
    a value naming no supported version, never a silent fallback); ``None`` for other formats."""
    option = fmt.version
    if option is None:
        return None
    header = request.headers.get(option.header)
    if header is None or not header.strip():
        return getattr(app.settings, option.setting)
    try:
        return option.parse(header)
    except ValueError as exc:
        raise RequestError.at(400, str(exc), ("header", option.header), "invalid_client_version") from None


def kind_of(value: Any) -> str:
    """A JSON value's kind, as error messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return {dict: "object", list: "array", str: "string", int: "number", float: "number"}.get(
        type(value), type(value).__name__
    )
