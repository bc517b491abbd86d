"""Byte framing for streamed responses: Server-Sent Events and NDJSON. Pure: no I/O, no asyncio.

Frames are JSON-ready dicts, serialised once with orjson (UTF-8, unescaped) and framed here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, Final

import orjson

SSE_MEDIA_TYPE: Final = "text/event-stream"
NDJSON_MEDIA_TYPE: Final = "application/x-ndjson"
JSONL_MEDIA_TYPE: Final = "application/jsonl"
JSON_MEDIA_TYPE: Final = "application/json"

SSE_DONE: Final = b"data: [DONE]\n\n"
"""The Vercel UI Message Stream's terminator. Agenta SSE streams have none."""

SSE_KEEPALIVE: Final = b": keepalive\n\n"
SSE_KEEPALIVE_LINE: Final = b": keepalive\n"
"""The keepalive of a stream whose events carry ids: a comment line with no blank line after it.
Decoders derived from ``httpx-sse`` (the Stainless clients' too) dispatch an event with empty data
on every blank line once an id was seen — ``: keepalive\\n\\n`` would reach their callers as an
event whose ``data`` is not JSON. Without the blank line every SSE parser just skips the comment."""

_dumps = orjson.dumps


def sse_frame(frame: Any) -> bytes:
    """One SSE event holding ``frame`` as JSON: ``data: <json>\\n\\n``."""
    return b"data: " + _dumps(frame) + b"\n\n"


def sse_typed_frame(frame: Any) -> bytes:
    """One SSE event named by the frame's ``type``, as OpenAI streams them:
    ``event: <type>\ndata: <json>\n\n`` (``message``, SSE's default name, for a frame without one)."""
    name = frame.get("type") if isinstance(frame, dict) else None
    event = name.encode() if isinstance(name, str) and name.isascii() and name.isprintable() else b"message"
    return b"event: " + event + b"\ndata: " + _dumps(frame) + b"\n\n"


def ndjson_frame(frame: Any) -> bytes:
    """One NDJSON line holding ``frame`` as JSON."""
    return _dumps(frame) + b"\n"


def sse_numbered_frames(prefix: str) -> Callable[[Any], bytes]:
    """A framer like ``sse_frame`` whose events carry ids ``<prefix>:1``, ``<prefix>:2``, … in the
    order they are framed: ``id: <prefix>:<n>\\ndata: <json>\\n\\n``. Each event holds exactly
    one blank line (JSON has no raw newline), so a byte string of whole events holds as many
    ``\\n\\n`` as events."""
    template = b"id: " + prefix.encode().replace(b"%", b"%%") + b":%d\ndata: %b\n\n"
    count = itertools.count(1).__next__

    def frame(value: Any) -> bytes:
        return template % (count(), _dumps(value))

    return frame
