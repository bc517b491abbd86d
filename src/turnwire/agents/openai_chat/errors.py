"""Model failures as clear error events: what went wrong, a stable code, and the details a client needs."""

from __future__ import annotations

from typing import Any, Final

import openai

from turnwire.agents.model_errors import status_code
from turnwire.agents.openai_chat.stream import MalformedChunk
from turnwire.model import ErrorEvent

INCOMPLETE_CODE: Final = "model_stream_incomplete"
MAX_STEPS_CODE: Final = "max_steps_exceeded"


def _retry_after(response: Any) -> float | None:
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name in ("retry-after-ms", "retry-after"):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value)
        except ValueError:
            continue  # an HTTP date: rare from model servers, left out
        return seconds / 1000 if name == "retry-after-ms" else seconds
    return None


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(body.get("message"), str):
            return body["message"]
    return exc.message


def model_error(exc: BaseException, model: str) -> ErrorEvent:
    """The error event for an exception raised while calling or reading the model."""
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        code = status_code(status)
        detail: dict[str, Any] = {"status": status, "model": model}
        retry_after = _retry_after(exc.response)
        if retry_after is not None:
            detail["retryAfter"] = retry_after
        text = f"The model server answered {status}: {_message(exc)}"
        if retry_after is not None:
            text += f" (retry after {retry_after:g} s)"
        return ErrorEvent(message=text, code=code, detail=detail)
    if isinstance(exc, openai.APITimeoutError):
        return ErrorEvent(
            message="The model server timed out.", code="model_timeout", detail={"model": model}
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return ErrorEvent(
            message=f"Lost the connection to the model server: {type(cause).__name__}: {cause}".rstrip(": "),
            code="model_connection_error",
            detail={"model": model},
        )
    if isinstance(exc, openai.APIError):  # an error object sent inside the stream
        return ErrorEvent(
            message=f"The model server reported an error mid-stream: {exc.message}",
            code="model_stream_error",
            detail={"model": model, "body": exc.body},
        )
    if isinstance(exc, MalformedChunk | ValueError):  # incl. JSON that does not parse
        return ErrorEvent(
            message=f"The model server sent a chunk that cannot be read: {exc}",
            code="model_bad_chunk",
            detail={"model": model},
        )
    return ErrorEvent(
        message=f"Calling the model failed: {type(exc).__name__}: {exc}",
        code="model_error",
        detail={"model": model},
    )


def incomplete(model: str) -> ErrorEvent:
    return ErrorEvent(
        message="The model stream ended before the model finished (no finish_reason).",
        code=INCOMPLETE_CODE,
        detail={"model": model},
    )
