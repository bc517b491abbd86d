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

    Fails on anything that is not a well-formed event (``data:``, after an ``id:`` line on Agenta
    streams) or comment line. Ids, when there are any, must be on every event, of one turn, and
    count up by one (``sse_ids``).
    """
    return [data for _, data in _events(raw)]


def sse_ids(raw: bytes) -> list[str]:
    """Every SSE event's id in order (checked as ``sse_events`` says); ``[]`` for a stream without."""
    return [event_id for event_id, _ in _events(raw) if event_id is not None]


def _events(raw: bytes) -> list[tuple[str | None, Any]]:
    assert raw.endswith(b"\n\n"), raw[-40:]
    out: list[tuple[str | None, Any]] = []
    for block in raw[:-2].split(b"\n\n"):
        assert block, "empty SSE block"
        lines = block.split(b"\n")
        while lines and lines[0].startswith(b":"):  # keepalive comments
            lines.pop(0)
        if not lines:
            continue
        event_id = lines.pop(0)[4:].decode() if lines[0].startswith(b"id: ") else None
        assert len(lines) == 1 and lines[0].startswith(b"data: "), block
        data = lines[0][6:]
        out.append((event_id, "[DONE]" if data == b"[DONE]" else orjson.loads(data)))
    ids = [event_id for event_id, _ in out]
    if any(ids):
        assert all(ids), ids
        turns = {i.rpartition(":")[0] for i in ids if i}
        first = int(str(ids[0]).rpartition(":")[2])
        assert len(turns) == 1 and [int(str(i).rpartition(":")[2]) for i in ids] == list(
            range(first, first + len(ids))
        ), ids
    return out


def sse_comments(raw: bytes) -> list[bytes]:
    """Every comment line (``: keepalive``), whether a blank line follows it or not."""
    return [line for line in raw.split(b"\n") if line.startswith(b":")]


def ndjson_lines(raw: bytes) -> list[Any]:
    assert raw.endswith(b"\n")
    return [orjson.loads(line) for line in raw[:-1].split(b"\n")]
