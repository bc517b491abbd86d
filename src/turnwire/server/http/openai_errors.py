"""Failures in OpenAI's error shape ``{"error": {message, type, param, code}}``, for the doors that
speak OpenAI's API (Chat Completions, Responses), with the statuses its SDKs map to their error
classes."""

from __future__ import annotations

from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.formats.openai import error_body, error_type
from turnwire.server.http.body import BodyTooLarge, UnsupportedMediaType
from turnwire.server.http.errors import RequestError, UnknownAgent, json_response
from turnwire.server.http.request_id import internal_error_message, log_failure, log_refusal


class NotFound(LookupError):
    """Nothing of this tenant has that id (HTTP 404, ``code: not_found``)."""

    def __init__(self, what: str, param: str | None = None) -> None:
        self.what = what
        self.param = param
        super().__init__(what)


def openai_error(exc: Exception) -> Response:
    """Any failure as OpenAI's error body; a refusal is logged at INFO under the request id (a
    failure is logged by ``log_failure``)."""
    response = _answer(exc)
    if response.status_code < 500:
        log_refusal(response.status_code, type(exc).__name__)
    return response


def _param(loc: tuple[str | int, ...]) -> str | None:
    if loc[:1] == ("body",):
        loc = loc[1:]
    return InputError("", loc=loc).where or None


def _answer(exc: Exception) -> Response:
    if isinstance(exc, RequestError):
        first = exc.errors[0]
        status = 400 if exc.status == 422 else exc.status  # OpenAI answers a bad body with 400
        where = _param(first.loc)
        message = f"{where}: {first.msg}" if where else first.msg
        return json_response(error_body(message, error_type(status), param=where, code=first.type), status)
    if isinstance(exc, InputError):
        where = _param(exc.loc)
        message = f"{where}: {exc.msg}" if where else exc.msg
        return json_response(error_body(message, error_type(400), param=where, code=exc.type), 400)
    if isinstance(exc, NotFound):
        return json_response(
            error_body(exc.what, "invalid_request_error", param=exc.param, code="not_found"), 404
        )
    if isinstance(exc, UnknownAgent):
        message = f"The model {exc.name!r} does not exist (the served agents are listed at /v1/models)"
        return json_response(
            error_body(message, "invalid_request_error", param="model", code="model_not_found"), 404
        )
    if isinstance(exc, BodyTooLarge):
        return json_response(
            error_body(str(exc), error_type(413), code="body_too_large"), 413, {"connection": "close"}
        )
    if isinstance(exc, UnsupportedMediaType):
        return json_response(
            error_body(str(exc), error_type(415), param="content-type", code="unsupported_media_type"), 415
        )
    rid = log_failure(exc, "handling a request")
    return json_response(error_body(internal_error_message(rid), "server_error"), 500)
