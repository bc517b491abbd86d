"""Byte framing for streamed responses: Server-Sent Events and NDJSON. Pure: no I/O, no asyncio.

Frames are JSON-ready dicts, serialised once with orjson (UTF-8, unescaped) and framed here.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

SSE_MEDIA_TYPE: Final = "text/event-stream"
NDJSON_MEDIA_TYPE: Final = "application/x-ndjson"
JSONL_MEDIA_TYPE: Final = "application/jsonl"
JSON_MEDIA_TYPE: Final = "application/json"

SSE_DONE: Final = b"data: [DONE]\n\n"
"""The Vercel UI Message Stream's terminator. Agenta SSE streams have none."""

SSE_KEEPALIVE: Final = b": keepalive\n\n"

_dumps = orjson.dumps


def sse_frame(frame: Any) -> bytes:
    """One SSE event holding ``frame`` as JSON: ``data: <json>\\n\\n``."""
    return b"data: " + _dumps(frame) + b"\n\n"


def ndjson_frame(frame: Any) -> bytes:
    """One NDJSON line holding ``frame`` as JSON."""
    return _dumps(frame) + b"\n"
