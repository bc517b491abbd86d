"""Error responses: every failure is a JSON body with a 4xx status naming the problem, or a logged 500."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.framing import JSON_MEDIA_TYPE
from turnwire.server.body import BodyTooLarge
from turnwire.server.negotiation import NotAcceptable

log = logging.getLogger("turnwire.server")


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


def error_response(exc: Exception) -> Response:
    """The JSON response for one of the server's known errors; any other exception is a logged 500."""
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
    log.exception("unexpected error while handling a request", exc_info=exc)
    return json_response({"detail": "Internal server error (a turnwire bug; it was logged)."}, 500)


async def _handle(request: Request, exc: Exception) -> Response:
    return error_response(exc)


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
    for kind in (RequestError, InputError, UnknownAgent, NotAcceptable, BodyTooLarge, Exception):
        app.add_exception_handler(kind, _handle)
    app.add_exception_handler(RequestValidationError, _handle_validation)
    app.add_exception_handler(StarletteHTTPException, _handle_http)
