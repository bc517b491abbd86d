"""Which UI Message Stream chunks each AI SDK client version accepts.

Clients before ai 5.0.217 / 6.0.231 / 7.0.32 validate chunks with strict schemas: an unknown key or
chunk type aborts the stream. The encoder only ever emits the keys every version knows, so the
version decides whether approval chunks may be sent, which finishReasons exist, and which of the
newer keys and chunks (a tool's ``title``; ai 7's, docs/vercel.md) a client gets.
"""

from __future__ import annotations

import enum


class ClientVersion(enum.Enum):
    """The ``ai`` major version a stream is written for. ``DEFAULT`` suits every version."""

    DEFAULT = "default"
    V5 = "5"
    V6 = "6"
    V7 = "7"

    @property
    def approval_chunks(self) -> bool:
        """``tool-approval-request`` / ``tool-output-denied`` exist (v6+).

        ``DEFAULT`` sends them too: a client that cannot answer an approval gains nothing from a
        stream that hides the request, and every approval-capable client (v6, v7) accepts them.
        """
        return self is not ClientVersion.V5

    @property
    def tool_titles(self) -> bool:
        """Tool chunks may carry a display ``title`` (v6+; the strict v5 schema has no such key)."""
        return self is ClientVersion.V6 or self is ClientVersion.V7

    @property
    def custom_parts(self) -> bool:
        """A ``CustomEvent`` is a ``custom`` part of the assistant message (v7 only: older strict
        schemas have no such chunk)."""
        return self is ClientVersion.V7

    @classmethod
    def parse(cls, value: str | int | None) -> ClientVersion:
        """``"5"``/``5``/``"v5"``/``"ai@5.0.100"`` → ``V5``; ``None``/``""``/``"default"`` → ``DEFAULT``.

        Raises ``ValueError`` on anything else.
        """
        if value is None:
            return cls.DEFAULT
        text = str(value).strip().lower().removeprefix("ai@").removeprefix("v")
        if text in ("", "default"):
            return cls.DEFAULT
        major = text.split(".", 1)[0]
        for member in cls:
            if member.value == major:
                return member
        raise ValueError(f"unsupported AI SDK version {value!r}; expected 5, 6, 7 or default")
