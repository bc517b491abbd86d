"""The stop reason → ``finish_reason`` table: the one place the mapping lives (stream and batch)."""

from __future__ import annotations

from typing import Final

FINISH_REASONS: Final[dict[str, str]] = {
    "end_turn": "stop",
    "stop": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "length": "length",
    "tool_use": "tool_calls",
    "tool_calls": "tool_calls",
    "function_call": "function_call",
    "refusal": "content_filter",
    "content_filter": "content_filter",
    "paused": "stop",
    "cancelled": "stop",
    "error": "stop",
}
"""Raw stop reason (trimmed, lower-cased) → ``finish_reason``. Anything else is ``stop``.

A turn that hands the client calls to make (client tools, approvals) finishes ``tool_calls``
whatever its stop reason says: the client must answer them before the conversation goes on.
"""


def finish_reason(stop_reason: str | None, *, client_calls: bool = False) -> str:
    """The ``finish_reason`` for ``stop_reason``; ``client_calls``: the turn left calls to answer."""
    if client_calls:
        return "tool_calls"
    if stop_reason is None:
        return "stop"
    return FINISH_REASONS.get(str(stop_reason).strip().lower(), "stop")
