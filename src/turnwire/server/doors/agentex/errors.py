"""Agentex error bodies and the route class that produces them.

Bodies keep the reference's shape ``{"message", "code", "data"}``. Validation errors are 422 with
``code: 422`` *and* the reference's ``status_code: 10422`` (its clients may read either), and
``data`` lists ``{loc, msg, type}``. Query mistakes (filters, cursor, page number) are 400.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

import orjson
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.server.http.auth import Unauthorized
from turnwire.server.http.body import BodyTooLarge, UnsupportedMediaType
from turnwire.server.http.request_id import (
    REQUEST_ID_HEADER,
    internal_error_message,
    log_failure,
    log_refusal,
)
from turnwire.server.http.unavailable import RETRY_AFTER, unavailable_message, unreachable
from turnwire.store.errors import ConflictError, IdempotencyMismatchError, NotFoundError
from turnwire.store.limits import NO_NUL


class AgentexError(Exception):
    def __init__(self, status: int, message: str, data: Any = None) -> None:
        self.status = status
        self.message = message
        self.data = data
        super().__init__(message)


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json", headers=headers)


def error_body(status: int, message: str, data: Any = None) -> dict[str, Any]:
    body = {"message": message, "code": status, "data": data}
    if status == 422:
        body["status_code"] = 10422
    return body


def _input_errors(errors: list[InputError]) -> Response:
    status = 400 if all(e.loc and e.loc[0] == "query" and e.type != "missing" for e in errors) else 422
    # A single error reads like the reference's message; ``data`` carries where it is.
    message = errors[0].msg if len(errors) == 1 else "; ".join(str(e) for e in errors)
    return json_response(error_body(status, message, [e.to_dict() for e in errors]), status)


def _validation_message(error: dict[str, Any]) -> str:
    """Pydantic's message, except where it would quote the id pattern instead of saying what is wrong."""
    if (error.get("ctx") or {}).get("pattern") == NO_NUL:
        return "must not contain NUL (\\u0000)"
    return str(error.get("msg", ""))


def to_response(exc: Exception, request: Request) -> Response:
    """The Agentex-shaped response for ``exc`` (a refusal, logged at INFO with the request id);
    anything unexpected is a logged 500."""
    known = _known(exc)
    if known is not None:
        log_refusal(known.status_code, type(exc).__name__, request.scope)
        return known
    # The body names no exception class, SQL or driver message: only the id the log line carries.
    rid = log_failure(exc, f"{request.method} {request.url.path}", request.scope)
    headers = {REQUEST_ID_HEADER: rid}
    if request.method == "POST" and "idempotency-key" not in request.headers:
        # A create without a key may have been stored before the failure: retrying could duplicate.
        headers["x-should-retry"] = "false"
    body = {"message": internal_error_message(rid), "code": 500, "data": None, "request_id": rid}
    return json_response(body, 500, headers)


def _known(exc: Exception) -> Response | None:
    if isinstance(exc, InputError):
        return _input_errors([exc])
    if isinstance(exc, RequestValidationError):
        errors = [
            InputError(_validation_message(e), loc=tuple(e.get("loc", ())), type=str(e.get("type", "")))
            for e in exc.errors()
        ]
        return _input_errors(errors)
    if isinstance(exc, BodyTooLarge):
        return json_response(error_body(413, str(exc), [{"loc": ["body"], "limit": exc.limit}]), 413)
    if isinstance(exc, UnsupportedMediaType):
        return json_response(error_body(415, str(exc), [exc.to_dict()]), 415)
    if isinstance(exc, NotFoundError):
        return json_response(error_body(404, str(exc)), 404)
    if isinstance(exc, ConflictError):
        return json_response(error_body(400, exc.message, exc.data), 400)
    if isinstance(exc, IdempotencyMismatchError):
        return json_response(error_body(422, str(exc), [{"loc": ["header", "idempotency-key"]}]), 422)
    if isinstance(exc, AgentexError):
        return json_response(error_body(exc.status, exc.message, exc.data), exc.status)
    if isinstance(exc, Unauthorized):
        return json_response(error_body(401, exc.message, exc.data), 401, dict(exc.headers or {}))
    service = unreachable(exc)
    if service is not None:
        return json_response(error_body(503, unavailable_message(service)), 503, {"retry-after": RETRY_AFTER})
    return None


class AgentexRoute(APIRoute):
    """Routes whose every failure, including parameter validation, is an Agentex error body."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def handle(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:
                return to_response(exc, request)

        return handle
