"""Reading streamed response bodies in the tests: SSE events and NDJSON lines."""

from __future__ import annotations

from typing import Any

import orjson


def invoke_body(messages: Any = None, **extra: Any) -> dict[str, Any]:
    if messages is None:
        messages = [{"role": "user", "content": "hi"}]
    return {"data": {"inputs": {"messages": messages}}, **extra}


def sse_events(raw: bytes) -> list[Any]:
    """Every SSE event's data in order: decoded JSON, or the literal ``"[DONE]"``; comments skipped.

    Fails on anything that is not a well-formed ``data:`` event or ``:`` comment block.
    """
    assert raw.endswith(b"\n\n"), raw[-40:]
    out: list[Any] = []
    for block in raw[:-2].split(b"\n\n"):
        assert block, "empty SSE block"
        if block.startswith(b":"):
            continue
        assert block.startswith(b"data: ") and b"\n" not in block, block
        data = block[6:]
        out.append("[DONE]" if data == b"[DONE]" else orjson.loads(data))
    return out


def sse_comments(raw: bytes) -> list[bytes]:
    return [b for b in raw.split(b"\n\n") if b.startswith(b":")]


def ndjson_lines(raw: bytes) -> list[Any]:
    assert raw.endswith(b"\n")
    return [orjson.loads(line) for line in raw[:-1].split(b"\n")]
