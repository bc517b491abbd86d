"""Failures on the Responses door as OpenAI's error body ``{"error": {message, type, param, code}}``.

A bad body is a 400 naming the field (``param``: ``input[2].call_id``), an unknown model a 404
``model_not_found``, an unknown response a 404, a forged or replayed approval a 409, a body over
the limit 413; anything else is a 500 that says only which request id it was logged under.
"""

from __future__ import annotations

from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.formats.openai import error_body, error_type
from turnwire.server.http.body import BodyTooLarge, UnsupportedMediaType
from turnwire.server.http.errors import RequestError, UnknownAgent, json_response
from turnwire.server.http.request_id import internal_error_message, log_failure, log_refusal


class NotFound(LookupError):
    """No stored response of this tenant has that id (HTTP 404)."""

    def __init__(self, what: str, param: str | None = None) -> None:
        self.what = what
        self.param = param
        super().__init__(what)


def _param(loc: tuple[str | int, ...]) -> str | None:
    if loc[:1] == ("body",):
        loc = loc[1:]
    return InputError("", loc=loc).where or None


def responses_error(exc: Exception) -> Response:
    response = _error(exc)
    if response.status_code < 500:
        log_refusal(response.status_code, type(exc).__name__)
    return response


def _error(exc: Exception) -> Response:
    if isinstance(exc, RequestError):
        first = exc.errors[0]
        status = 400 if exc.status == 422 else exc.status
        where = _param(first.loc)
        message = f"{where}: {first.msg}" if where else first.msg
        return json_response(error_body(message, error_type(status), param=where, code=first.type), status)
    if isinstance(exc, InputError):
        where = _param(exc.loc)
        message = f"{where}: {exc.msg}" if where else exc.msg
        return json_response(error_body(message, "invalid_request_error", param=where, code=exc.type), 400)
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
