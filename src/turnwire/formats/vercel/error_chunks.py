"""How failures reach a UI Message Stream: the ``data-agent-error`` + ``error`` pair and its texts."""

from __future__ import annotations

import re
from typing import Any, Final

from turnwire.model import ErrorEvent

Chunk = dict[str, Any]

NO_OUTPUT_TEXT: Final = "The agent produced no output."
_SLUG = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


def error_code(event: ErrorEvent) -> str:
    """The event's code when it is a slug, else a slug ``detail.code``, else ``runner_error``."""
    code = event.code if event.code and _SLUG.match(event.code) else "runner_error"
    detail = event.detail
    if code == "runner_error" and isinstance(detail, dict):
        inner = detail.get("code")
        if isinstance(inner, str) and _SLUG.match(inner):
            code = inner
    return code


def error_pair(code: str, text: str, detail: Any = None) -> list[Chunk]:
    """``data-agent-error{code, errorText, errorDetail?}`` (for UIs) + ``error{errorText}`` (for useChat)."""
    data: dict[str, Any] = {"code": code, "errorText": text}
    if detail is not None:
        data["errorDetail"] = detail
    return [{"type": "data-agent-error", "data": data}, {"type": "error", "errorText": text}]
