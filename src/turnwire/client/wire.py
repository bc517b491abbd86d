"""Response bodies → canonical events, line by line (the framing half of a client).

SSE: ``data:`` lines hold one JSON payload each (multi-line data joined), comments such as
``: keepalive`` and the Vercel ``data: [DONE]`` sentinel are skipped. NDJSON: one JSON value a line.
Payloads are Agenta frames (``formats.agenta.frame_to_event``; unknown frame types skipped, as
``decode_frames`` does) or Vercel UI Message Stream chunks (``formats.vercel.decode``).
"""

from __future__ import annotations

from typing import Any

import orjson

from turnwire.errors import InputError
from turnwire.formats.agenta import frame_to_event
from turnwire.formats.vercel.decode import UIStreamDecoder
from turnwire.model import Event


class EventReader:
    """Feed it the lines of one response (``feed(line)`` → events); ``message_id`` is the Vercel
    stream's ``start.messageId``."""

    def __init__(self, fmt: str, sse: bool) -> None:
        self.sse = sse
        self._vercel = UIStreamDecoder() if fmt == "vercel" else None
        self._data: list[str] = []

    @property
    def message_id(self) -> str | None:
        return self._vercel.message_id if self._vercel is not None else None

    def feed(self, line: str) -> list[Event]:
        line = line.rstrip("\r\n")
        if not self.sse:
            return self._payload(line) if line.strip() else []
        if line == "":
            return self.flush()
        if line.startswith(":"):
            return []
        name, _, value = line.partition(":")
        if name == "data":
            self._data.append(value.removeprefix(" "))
        return []

    def flush(self) -> list[Event]:
        """Events of a last SSE event not followed by a blank line."""
        if not self._data:
            return []
        text = "\n".join(self._data)
        self._data = []
        return [] if text == "[DONE]" else self._payload(text)

    def _payload(self, text: str) -> list[Event]:
        try:
            value: Any = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"the server sent a line that is not JSON: {text[:200]!r}", loc=()) from exc
        if self._vercel is not None:
            return self._vercel.decode(value)
        try:
            return [frame_to_event(value)]
        except InputError as exc:
            if exc.type == "unknown_frame":
                return []
            raise
