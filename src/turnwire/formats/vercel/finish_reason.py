"""The stop reason → ``finishReason`` table of the spec, per client version."""

from __future__ import annotations

from typing import Final

from turnwire.formats.vercel.versions import ClientVersion

# Every AI SDK version (5, 6, 7) accepts these six.
SAFE_FINISH_REASONS: Final = frozenset({"stop", "length", "content-filter", "tool-calls", "error", "other"})

FINISH_REASONS: Final[dict[str, str]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool-calls",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "refusal": "content-filter",
    "content_filter": "content-filter",
    "paused": "other",
    "cancelled": "other",
    **{value: value for value in SAFE_FINISH_REASONS},
}
"""Raw stop reason (trimmed, lower-cased) → finishReason. Values not listed are "unknown"."""


def finish_reason(stop_reason: str | None, version: ClientVersion = ClientVersion.DEFAULT) -> str | None:
    """The ``finishReason`` a ``version`` client accepts for ``stop_reason``; ``None`` = omit the field.

    ``unknown`` exists only in AI SDK v5, ``interrupted`` only in v7 (>= 7.0.149): other clients get
    ``other`` instead of a value their schema rejects.
    """
    if stop_reason is None:
        return None
    key = str(stop_reason).strip().lower()
    mapped = FINISH_REASONS.get(key)
    if mapped is not None:
        return mapped
    if key == "interrupted" and version is ClientVersion.V7:
        return "interrupted"
    return "unknown" if version is ClientVersion.V5 else "other"
