"""Canonical events -> Agentex ``TaskMessageUpdate`` frames (``start``/``delta``/``full``/``done``).

Each streamed message gets its own ``index``; ``parent_task_message`` is filled once the caller
has stored the message and told the encoder (``bind``), as the reference's sync path does.
"""

from __future__ import annotations

from typing import Any

import orjson

from turnwire import model as m
from turnwire.formats.agentex.messages import render_message


def _text(content: str) -> dict[str, Any]:
    return {
        "type": "text",
        "author": "agent",
        "style": "static",
        "format": "plain",
        "content": content,
        "attachments": None,
    }


def _reasoning(parts: list[str] | None) -> dict[str, Any]:
    return {"type": "reasoning", "author": "agent", "style": "static", "summary": [], "content": parts}


class TaskUpdateEncoder:
    """Stateful encoder for one task's stream. ``encode(event)`` returns zero or more frames."""

    __slots__ = ("_indexes", "_next", "_parents", "task_id")

    def __init__(self, task_id: str | None = None) -> None:
        self.task_id = task_id
        self._next = 0
        self._indexes: dict[tuple[str, str], int] = {}
        self._parents: dict[int, dict[str, Any]] = {}

    def index_of(self, kind: str, event_id: str) -> int | None:
        """The index given to the streamed message ``event_id`` (``kind``: message | thought)."""
        return self._indexes.get((kind, event_id))

    def bind(self, index: int, task_message: dict[str, Any]) -> None:
        """Attach the stored TaskMessage so later frames of ``index`` carry it as parent."""
        self._parents[index] = task_message

    def _new_index(self, key: tuple[str, str] | None = None) -> int:
        index = self._next
        self._next += 1
        if key is not None:
            self._indexes[key] = index
        return index

    def _frame(self, kind: str, index: int, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "index": index, "parent_task_message": self._parents.get(index), **fields}

    def _stream_index(self, kind: str, event_id: str) -> tuple[int, list[dict[str, Any]]]:
        # A delta without its start opens the message implicitly (reference: first delta creates it).
        index = self._indexes.get((kind, event_id))
        if index is not None:
            return index, []
        index = self._new_index((kind, event_id))
        start = _text("") if kind == "message" else _reasoning([])
        return index, [self._frame("start", index, content=start)]

    def _full(self, content: dict[str, Any]) -> list[dict[str, Any]]:
        index = self._new_index()
        return [self._frame("full", index, content=content)]

    def encode(self, event: m.Event) -> list[dict[str, Any]]:
        """Frames for one canonical event; events with no Agentex counterpart give ``[]``."""
        if isinstance(event, m.MessageStart | m.ThoughtStart):
            kind = "message" if isinstance(event, m.MessageStart) else "thought"
            return self._stream_index(kind, event.id)[1]
        if isinstance(event, m.MessageDelta):
            index, frames = self._stream_index("message", event.id)
            frames.append(self._frame("delta", index, delta={"type": "text", "text_delta": event.delta}))
            return frames
        if isinstance(event, m.ThoughtDelta):
            index, frames = self._stream_index("thought", event.id)
            delta = {"type": "reasoning_content", "content_index": 0, "content_delta": event.delta}
            frames.append(self._frame("delta", index, delta=delta))
            return frames
        if isinstance(event, m.MessageEnd | m.ThoughtEnd):
            kind = "message" if isinstance(event, m.MessageEnd) else "thought"
            ended = self._indexes.pop((kind, event.id), None)  # not `index`: an int above, None here
            return [] if ended is None else [self._frame("done", ended)]
        content = event_content(event)
        return [] if content is None else self._full(content)


def event_content(event: m.Event) -> dict[str, Any] | None:
    """The whole-message content a non-streamed event stands for, or ``None`` if it has none."""
    if isinstance(event, m.MessageEvent):
        return _text(event.text)
    if isinstance(event, m.Thought):
        return _reasoning([event.text] if event.text else None)
    if isinstance(event, m.ToolCall):
        block: m.Block = m.ToolCallBlock(event.id, event.name, event.arguments)
    elif isinstance(event, m.ToolResult):
        block = m.ToolResultBlock(event.id, event.name, event.result_output, event.is_error)
    elif isinstance(event, m.DataEvent):
        block = m.DataBlock(event.data, event.name)
    elif isinstance(event, m.FileEvent):
        block = m.DataBlock({"type": "file", "url": event.url, "media_type": event.media_type})
    elif isinstance(event, m.ErrorEvent):
        block = m.DataBlock({"type": "error", "message": event.message, "code": event.code})
    elif isinstance(event, m.InteractionRequest):
        payload = orjson.loads(orjson.dumps(event.payload, default=str))
        block = m.DataBlock(
            {"type": "interaction_request", "id": event.id, "kind": event.kind, "payload": payload}
        )
    else:
        return None
    return render_message(m.Message(m.Role.ASSISTANT, [block]))[0]


text_content = _text
"""A text content (author ``agent``): what a streamed message starts as, with ``""``."""
reasoning_content = _reasoning
"""A reasoning content (author ``agent``): what a streamed thought starts as, with ``[]``."""
