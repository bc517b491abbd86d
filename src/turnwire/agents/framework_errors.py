"""A framework's failure (a LangGraph graph's, an Agents SDK run's) as the error event the OpenAI
adapter would send for it: the model server's status and ``retry-after`` keep their codes."""

from __future__ import annotations

import sys
from typing import Any

import orjson

from turnwire.agents.model_errors import status_code
from turnwire.model import ErrorEvent


def framework_failure(exc: BaseException, framework: str, model: str | None = None) -> ErrorEvent:
    """``exc`` raised by ``framework``'s run; an ``openai`` SDK error (what ``ChatOpenAI`` and the
    Agents SDK raise) is mapped exactly like ``openai_agent`` maps it."""
    openai = sys.modules.get("openai")
    cause: BaseException | None = exc
    while cause is not None:  # frameworks wrap the SDK's error; the SDK's one has the status
        if openai is not None and isinstance(cause, openai.APIError):
            from turnwire.agents.openai_chat.errors import model_error

            return model_error(cause, model or _requested_model(cause))
        cause = cause.__cause__
    name = type(exc).__name__
    detail: dict[str, Any] = {"exception": name}
    code = "model_error"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        detail["status"] = status
        code = status_code(status)
    return ErrorEvent(message=f"The {framework} agent failed: {name}: {exc}", code=code, detail=detail)


def _requested_model(error: BaseException) -> str:
    """The model the failed request asked for, read from the request the SDK sent (frameworks such
    as LangGraph keep the model inside the graph)."""
    request = getattr(error, "request", None)
    try:
        body = orjson.loads(request.content) if request is not None else None
    except (orjson.JSONDecodeError, AttributeError, TypeError):
        return ""
    model = body.get("model") if isinstance(body, dict) else None
    return model if isinstance(model, str) else ""
