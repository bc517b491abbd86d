"""UI Message Stream chunks → canonical events: reading a Vercel stream back (a client's side).

``UIStreamDecoder`` is stateful, one per stream: tool names are announced once per call
(``tool-input-start``) and needed again by an approval request, and ``finish`` says ``other`` both
for a paused and for a cancelled turn, told apart by whether an interaction request came first.
Chunks that carry no content (steps, tool input deltas, metadata) give no event; sources give
their source events; unknown chunk types are skipped, as the AI SDK's own reader tolerates them.
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionKind,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageStart,
    SourceDocument,
    SourceUrl,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)

STOP_REASONS: Final[dict[str, str]] = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool-calls": "tool_use",
    "content-filter": "refusal",
    "error": "error",
}
"""``finishReason`` → canonical stop reason (``other`` is decided by the decoder, see the module doc)."""

_SILENT: Final = frozenset({"start-step", "finish-step", "tool-input-delta", "message-metadata"})


class UIStreamDecoder:
    """``decode(chunk)`` → the events one chunk stands for. ``message_id`` is the ``start`` chunk's
    ``messageId`` (the id a client answers an approval under)."""

    def __init__(self) -> None:
        self.message_id: str | None = None
        self.session_id: str | None = None
        self._tools: dict[str, tuple[str | None, Any]] = {}
        self._announced: dict[str, tuple[str | None, Any]] = {}
        self._asked = False

    def decode(self, chunk: Any) -> list[Event]:
        if not isinstance(chunk, dict):
            return []
        kind = chunk.get("type")
        if not isinstance(kind, str) or kind in _SILENT:
            return []
        handler = _HANDLERS.get(kind)
        if handler is not None:
            return handler(self, chunk)
        if kind.startswith("data-"):
            return [DataEvent(name=kind[5:], data=chunk.get("data"), transient=chunk.get("transient"))]
        return []

    def _start(self, chunk: dict[str, Any]) -> list[Event]:
        if isinstance(chunk.get("messageId"), str):
            self.message_id = chunk["messageId"]
        meta = chunk.get("messageMetadata")
        if isinstance(meta, dict) and isinstance(meta.get("sessionId"), str):
            self.session_id = meta["sessionId"]
        return []

    def _tool_start(self, chunk: dict[str, Any]) -> list[Event]:
        call_id = str(chunk.get("toolCallId"))
        self._tools.setdefault(call_id, (chunk.get("toolName"), None))
        return []

    def _tool_input(self, chunk: dict[str, Any]) -> list[Event]:
        call_id = str(chunk.get("toolCallId"))
        name = chunk.get("toolName") or self._tools.get(call_id, (None, None))[0]
        call = (name, chunk.get("input"))
        # A server may send a call's input again before asking to approve it (turnwire does, with
        # the approval's resolved name): the same call told twice is one ``ToolCall``; a changed
        # name or input is a refresh, told again (a fold updates the call in place).
        told = self._announced.get(call_id) == call
        self._tools[call_id] = self._announced[call_id] = call
        events: list[Event] = [] if told else [ToolCall(id=call_id, name=name, input=chunk.get("input"))]
        if chunk["type"] == "tool-input-error":
            events.append(ToolResult(id=call_id, output=chunk.get("errorText"), is_error=True, name=name))
        return events

    def _tool_output(self, chunk: dict[str, Any]) -> list[Event]:
        call_id = str(chunk.get("toolCallId"))
        name = self._tools.get(call_id, (None, None))[0]
        kind = chunk["type"]
        if kind == "tool-output-error":
            return [ToolResult(id=call_id, output=chunk.get("errorText"), is_error=True, name=name)]
        if kind == "tool-output-denied":
            return [ToolResult(id=call_id, is_error=True, denied=True, name=name)]
        return [ToolResult(id=call_id, output=chunk.get("output"), is_error=False, name=name)]

    def _approval(self, chunk: dict[str, Any]) -> list[Event]:
        self._asked = True
        call_id = str(chunk.get("toolCallId"))
        name, args = self._tools.get(call_id, (None, None))
        payload = {"toolCallId": call_id, "toolName": name, "toolCall": {"rawInput": args}}
        return [
            InteractionRequest(
                id=str(chunk.get("approvalId")), kind=InteractionKind.USER_APPROVAL, payload=payload
            )
        ]

    def _input_request(self, chunk: dict[str, Any]) -> list[Event]:
        self._asked = True
        return [
            InteractionRequest(
                id=str(chunk.get("id")), kind=InteractionKind.USER_INPUT, payload=chunk.get("data")
            )
        ]

    def _interaction(self, chunk: dict[str, Any]) -> list[Event]:
        self._asked = True
        data = given if isinstance(given := chunk.get("data"), dict) else {}
        return [
            InteractionRequest(
                id=str(chunk.get("id")), kind=str(data.get("kind")), payload=data.get("payload")
            )
        ]

    def _error(self, chunk: dict[str, Any]) -> list[Event]:
        return [ErrorEvent(message=str(chunk.get("errorText", "")))]

    def _finish(self, chunk: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        meta = given if isinstance(given := chunk.get("messageMetadata"), dict) else {}
        usage = meta.get("usage")
        if isinstance(usage, dict):
            events.append(
                Usage(
                    input=usage.get("input"),
                    output=usage.get("output"),
                    total=usage.get("total"),
                    cost=usage.get("cost"),
                )
            )
        reason = chunk.get("finishReason")
        if reason == "other":
            stop: str | None = "paused" if self._asked else "cancelled"
        else:
            stop = STOP_REASONS.get(reason, reason) if isinstance(reason, str) else None
        trace = meta.get("traceId")
        events.append(Done(stop_reason=stop, trace_id=trace if isinstance(trace, str) else None))
        return events

    def _abort(self, chunk: dict[str, Any]) -> list[Event]:
        return [Done(stop_reason="cancelled")]


def _text(event: type) -> Any:
    def handle(self: UIStreamDecoder, chunk: dict[str, Any]) -> list[Event]:
        part_id = str(chunk.get("id"))
        if event in (MessageDelta, ThoughtDelta):
            return [event(part_id, str(chunk.get("delta", "")))]
        return [event(part_id)]

    return handle


def _field(chunk: dict[str, Any], key: str) -> str | None:
    value = chunk.get(key)
    return value if isinstance(value, str) else None


def _source_url(chunk: dict[str, Any]) -> list[Event]:
    source_id, url = _field(chunk, "sourceId"), _field(chunk, "url")
    if source_id is None or url is None:
        return []
    return [SourceUrl(source_id, url, _field(chunk, "title"))]


def _source_document(chunk: dict[str, Any]) -> list[Event]:
    source_id, title = _field(chunk, "sourceId"), _field(chunk, "title")
    media_type = _field(chunk, "mediaType")
    if source_id is None or media_type is None or title is None:
        return []
    return [SourceDocument(source_id, media_type, title, _field(chunk, "filename"))]


_HANDLERS: Final[dict[str, Any]] = {
    "start": UIStreamDecoder._start,
    "text-start": _text(MessageStart),
    "text-delta": _text(MessageDelta),
    "text-end": _text(MessageEnd),
    "reasoning-start": _text(ThoughtStart),
    "reasoning-delta": _text(ThoughtDelta),
    "reasoning-end": _text(ThoughtEnd),
    "tool-input-start": UIStreamDecoder._tool_start,
    "tool-input-available": UIStreamDecoder._tool_input,
    "tool-input-error": UIStreamDecoder._tool_input,
    "tool-output-available": UIStreamDecoder._tool_output,
    "tool-output-error": UIStreamDecoder._tool_output,
    "tool-output-denied": UIStreamDecoder._tool_output,
    "tool-approval-request": UIStreamDecoder._approval,
    "data-input-request": UIStreamDecoder._input_request,
    "data-interaction": UIStreamDecoder._interaction,
    "data-agent-error": lambda self, chunk: [],  # the `error` chunk that follows carries the text
    "data-approval-manifest": lambda self, chunk: [],
    "data-render": lambda self, chunk: [],
    "error": UIStreamDecoder._error,
    "file": lambda self, chunk: [
        FileEvent(url=str(chunk.get("url")), media_type=str(chunk.get("mediaType")))
    ],
    "source-url": lambda self, chunk: _source_url(chunk),
    "source-document": lambda self, chunk: _source_document(chunk),
    "reasoning-file": lambda self, chunk: [
        FileEvent(url=str(chunk.get("url")), media_type=str(chunk.get("mediaType")), reasoning=True)
    ],
    "finish": UIStreamDecoder._finish,
    "abort": UIStreamDecoder._abort,
}


def decode_chunks(chunks: list[Any]) -> list[Event]:
    """Every event of a whole stream's chunks, in order."""
    decoder = UIStreamDecoder()
    return [event for chunk in chunks for event in decoder.decode(chunk)]
