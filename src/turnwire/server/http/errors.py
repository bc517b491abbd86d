"""Error responses: every failure is a JSON body with a 4xx status naming the problem, or a logged 500."""

from __future__ import annotations

from collections.abc import Sequence

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.framing import JSON_MEDIA_TYPE
from turnwire.server.http.body import BodyTooLarge, UnsupportedMediaType
from turnwire.server.http.negotiation import NotAcceptable
from turnwire.server.http.request_id import (
    REQUEST_ID_HEADER,
    internal_error_message,
    log_failure,
    log_refusal,
)
from turnwire.server.http.unavailable import RETRY_AFTER, unavailable_message, unreachable


class RequestError(Exception):
    """A request the server refuses with ``status`` and a ``{"detail": [{loc, msg, type}]}`` body."""

    def __init__(self, status: int, errors: Sequence[InputError]) -> None:
        self.status = status
        self.errors = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))

    @classmethod
    def at(cls, status: int, msg: str, loc: Sequence[str | int], type: str = "invalid") -> RequestError:
        return cls(status, [InputError(msg, loc=loc, type=type)])


class UnknownAgent(LookupError):
    """No agent is served under that name (HTTP 404)."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Unknown agent: {name}")


def json_response(body: object, status: int, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status_code=status, headers=headers, media_type=JSON_MEDIA_TYPE)


def error_response(exc: Exception, request: Request | None = None) -> Response:
    """The JSON response for one of the server's known errors (logged at INFO with the request id);
    any other exception is a 500 whose body says only that, with the request id it was logged under."""
    scope = request.scope if request is not None else None
    known = _known(exc)
    if known is not None:
        log_refusal(known.status_code, type(exc).__name__, scope)
        return known
    rid = log_failure(exc, "handling a request", scope)
    body = {"detail": internal_error_message(rid), "request_id": rid}
    # This may run outside the request-id middleware (the outermost 500 handler): set the header here.
    return json_response(body, 500, {REQUEST_ID_HEADER: rid})


def _known(exc: Exception) -> Response | None:
    if isinstance(exc, RequestError):
        return json_response({"detail": [e.to_dict() for e in exc.errors]}, exc.status)
    if isinstance(exc, InputError):
        return json_response({"detail": [exc.to_dict()]}, 422)
    if isinstance(exc, UnknownAgent):
        return json_response({"detail": str(exc)}, 404)
    if isinstance(exc, NotAcceptable):
        return json_response(exc.to_dict(), 406)
    if isinstance(exc, BodyTooLarge):
        detail = {"loc": ["body"], "msg": str(exc), "type": "body_too_large"}
        return json_response({"detail": [detail]}, 413, {"connection": "close"})
    if isinstance(exc, UnsupportedMediaType):
        return json_response({"detail": [exc.to_dict()]}, 415)
    service = unreachable(exc)
    if service is not None:
        detail = {"loc": [], "msg": unavailable_message(service), "type": "service_unavailable"}
        return json_response({"detail": [detail]}, 503, {"retry-after": RETRY_AFTER})
    return None


async def _handle(request: Request, exc: Exception) -> Response:
    return error_response(exc, request)


async def _handle_validation(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    items = [
        {"loc": list(e.get("loc", ())), "msg": str(e.get("msg", "")), "type": str(e.get("type", "invalid"))}
        for e in exc.errors()
    ]
    return json_response({"detail": items}, 422)


async def _handle_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers) if exc.headers else None
    return json_response({"detail": exc.detail}, exc.status_code, headers)


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error of ``app`` with JSON: known errors as 4xx, anything else as a logged 500."""
    known = (RequestError, InputError, UnknownAgent, NotAcceptable, BodyTooLarge, UnsupportedMediaType)
    for kind in (*known, Exception):
        app.add_exception_handler(kind, _handle)
    app.add_exception_handler(RequestValidationError, _handle_validation)
    app.add_exception_handler(StarletteHTTPException, _handle_http)
