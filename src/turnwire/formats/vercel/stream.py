"""Canonical events → UI Message Stream chunks (and their SSE bytes).

``UIStreamEncoder`` is synchronous and stateful: one per turn. The server drives it from its event
stream and calls ``finish`` from a ``finally``, so a turn is always closed — also after the agent raised.
Every chunk is built with exactly the keys the client's schema knows (strict clients before
ai 5.0.217 / 6.0.231 / 7.0.32 reject any other key), so no per-chunk filtering is needed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from turnwire.formats.vercel import tool_states
from turnwire.formats.vercel.custom_parts import custom_part
from turnwire.formats.vercel.error_chunks import NO_OUTPUT_TEXT, error_code, error_pair
from turnwire.formats.vercel.finish_reason import finish_reason
from turnwire.formats.vercel.interaction_chunks import decision_chunks, interaction_chunks
from turnwire.formats.vercel.versions import ClientVersion
from turnwire.model import (
    UNSET,
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    Usage,
)

Chunk = dict[str, Any]

UNKNOWN_TOOL: Final = "unknown_tool"
ABORT_REASON: Final = "The turn was stopped."
_MCP_WRAPPER_KEYS: Final = frozenset(
    {"tool", "server", "name", "toolName", "serverName", "tool_name", "server_name"}
)


def unwrap_tool_input(value: Any) -> Any:
    """MCP-style ``{"tool": "x", "arguments": {...}}`` → the arguments; anything else unchanged.

    Only when every other key is a wrapper key holding a string, so real arguments that happen to
    contain ``arguments`` (``{"integration", "tool", "arguments"}``) stay as they are.
    """
    if isinstance(value, dict):
        args = value.get("arguments")
        if isinstance(args, dict) and all(
            k == "arguments" or (k in _MCP_WRAPPER_KEYS and isinstance(v, str)) for k, v in value.items()
        ):
            return args
    return value


class UIStreamEncoder:
    """Encodes one turn: ``start()``, then ``encode(event)`` per event, then ``finish()`` exactly once.

    Guarantees: the turn opens with ``start`` + ``start-step`` and closes with ``finish-step`` +
    ``finish``; on a continuation (``known_tool_call_ids`` given) outputs for those history calls
    come between ``start`` and ``start-step``, as the AI SDK sends a resumed call's result; every
    text/reasoning part is closed before a ``finish-step``; no delta is sent for an unopened id;
    tool chunks always name a call seen in this turn or in ``known_tool_call_ids`` (the history the
    client holds). ``encode`` and ``finish`` start the turn themselves if needed; after ``finish``
    everything returns ``[]``.
    """

    def __init__(
        self,
        message_id: str | None = None,
        session_id: str | None = None,
        client_version: ClientVersion = ClientVersion.DEFAULT,
        *,
        known_tool_call_ids: Iterable[str] = (),
        trace_id: str | None = None,
    ) -> None:
        self.message_id = message_id
        self.session_id = session_id
        self.client_version = client_version
        self.approval_chunks = client_version.approval_chunks
        self.known_tool_call_ids = set(known_tool_call_ids)
        self.tool_names: dict[str, str] = {}
        self.stop_reason: str | None = None
        self.trace_id = trace_id
        self.usage: dict[str, Any] | None = None
        self._open_text: set[str] = set()
        self._open_reasoning: set[str] = set()
        self._n_text = 0
        self._n_reasoning = 0
        self._started = False
        self._step_open = False
        self._finished = False
        self._step_has_output = False
        self._content = False
        self._errored = False

    @property
    def finished(self) -> bool:
        return self._finished

    def start(self) -> list[Chunk]:
        """``start`` (messageId, messageMetadata.sessionId when known) and the first ``start-step``.

        With ``known_tool_call_ids`` the step opens later, before the first chunk that is not an
        output for one of those calls.
        """
        if self._started:
            return []
        self._started = True
        start: Chunk = {"type": "start"}
        if self.message_id:
            start["messageId"] = self.message_id
        if self.session_id:
            start["messageMetadata"] = {"sessionId": self.session_id}
        if self.known_tool_call_ids:
            return [start]
        self._step_open = True
        return [start, {"type": "start-step"}]

    def encode(self, event: Event) -> list[Chunk]:
        """The chunks for one event (often none). Unknown event objects are ignored."""
        if self._finished:
            return []
        handler = _HANDLERS.get(type(event))
        if handler is None:
            return []
        if self._step_open:  # the usual case once the turn is under way: nothing to prepend
            return handler(self, event)
        head = self.start()
        chunks: list[Chunk] = handler(self, event)
        if chunks and not self._step_open and not self._resumed_output(event):
            self._step_open = True
            head.append({"type": "start-step"})
        return [*head, *chunks] if head else chunks

    def _resumed_output(self, event: Event) -> bool:
        """A result for a call the client holds from the history, not re-announced in this turn."""
        return (
            isinstance(event, ToolResult)
            and event.id in self.known_tool_call_ids
            and event.id not in self.tool_names
        )

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Chunk]:
        """Close the turn. ``stop_reason`` beats the agent's ``done``; ``error`` reports a failure.

        Order: open parts closed, the error pair (unless the agent already reported an error),
        ``finish-step``, the no-output pair (no content, no error, not cancelled), ``finish``.
        A failed turn without a stop reason finishes with ``finishReason: "error"``.
        """
        if self._finished:
            return []
        chunks = self.start()
        if not self._step_open:
            self._step_open = True
            chunks.append({"type": "start-step"})
        chunks += self._close_parts()
        if error is not None and not self._errored:
            chunks += error_pair("agent_run_failed", error)
            self._errored = True
        chunks.append({"type": "finish-step"})
        reason = stop_reason if stop_reason is not None else self.stop_reason
        if reason is None and error is not None:
            reason = "error"
        cancelled = reason is not None and reason.strip().lower() == "cancelled"
        if not self._content and not self._errored and not cancelled:
            chunks += error_pair("no_output", NO_OUTPUT_TEXT)
        if cancelled:
            # As the AI SDK's own streams say a stop (its onFinish reports isAborted); the reason
            # is a v7 key (the strict v5/v6 schemas refuse it). ``finish`` still closes the stream.
            abort: Chunk = {"type": "abort"}
            if self.client_version is ClientVersion.V7:
                abort["reason"] = ABORT_REASON
            chunks.append(abort)
        finish: Chunk = {"type": "finish"}
        mapped = finish_reason(reason, self.client_version)
        if mapped is not None:
            finish["finishReason"] = mapped
        metadata: dict[str, Any] = {}
        if self.usage:
            metadata["usage"] = self.usage
        if self.trace_id:
            metadata["traceId"] = self.trace_id
        if metadata:
            finish["messageMetadata"] = metadata
        chunks.append(finish)
        self._finished = True
        return chunks

    # ----------------------------------------------------------------- steps and parts

    def _close_parts(self) -> list[Chunk]:
        chunks = [{"type": "text-end", "id": i} for i in self._open_text]
        chunks += [{"type": "reasoning-end", "id": i} for i in self._open_reasoning]
        self._open_text.clear()
        self._open_reasoning.clear()
        return chunks

    def _next_step(self, chunks: list[Chunk]) -> None:
        """New model output after tool outputs starts a new step, as the AI SDK's own agents do."""
        if self._step_has_output:
            self._step_has_output = False
            chunks += self._close_parts()
            chunks.append({"type": "finish-step"})
            chunks.append({"type": "start-step"})

    def _message(self, event: MessageEvent) -> list[Chunk]:
        self._n_text += 1
        return self._whole_part("text", f"text-{self._n_text}", event.text)

    def _thought(self, event: Thought) -> list[Chunk]:
        self._n_reasoning += 1
        return self._whole_part("reasoning", f"reasoning-{self._n_reasoning}", event.text)

    def _whole_part(self, kind: str, part_id: str, text: str) -> list[Chunk]:
        """A one-shot text or reasoning part: always start, delta, end (never a bare delta)."""
        chunks: list[Chunk] = []
        if self._step_has_output:
            self._next_step(chunks)
        self._content = True
        chunks += (
            {"type": f"{kind}-start", "id": part_id},
            {"type": f"{kind}-delta", "id": part_id, "delta": text},
            {"type": f"{kind}-end", "id": part_id},
        )
        return chunks

    def _part_start(self, event: MessageStart | ThoughtStart) -> list[Chunk]:
        is_text = isinstance(event, MessageStart)
        open_ids = self._open_text if is_text else self._open_reasoning
        chunks: list[Chunk] = []
        if self._step_has_output:
            self._next_step(chunks)
        if event.id not in open_ids:
            open_ids.add(event.id)
            chunks.append({"type": "text-start" if is_text else "reasoning-start", "id": event.id})
        return chunks

    def _text_delta(self, event: MessageDelta) -> list[Chunk]:
        self._content = True
        if event.id in self._open_text:
            return [{"type": "text-delta", "id": event.id, "delta": event.delta}]
        # A delta for an unopened id: the client would throw, so open the part first (Q12).
        chunks = self._part_start(MessageStart(event.id))
        chunks.append({"type": "text-delta", "id": event.id, "delta": event.delta})
        return chunks

    def _reasoning_delta(self, event: ThoughtDelta) -> list[Chunk]:
        self._content = True
        if event.id in self._open_reasoning:
            return [{"type": "reasoning-delta", "id": event.id, "delta": event.delta}]
        chunks = self._part_start(ThoughtStart(event.id))
        chunks.append({"type": "reasoning-delta", "id": event.id, "delta": event.delta})
        return chunks

    def _part_end(self, event: MessageEnd | ThoughtEnd) -> list[Chunk]:
        is_text = isinstance(event, MessageEnd)
        open_ids = self._open_text if is_text else self._open_reasoning
        if event.id not in open_ids:
            return []
        open_ids.discard(event.id)
        return [{"type": "text-end" if is_text else "reasoning-end", "id": event.id}]

    # ----------------------------------------------------------------- tools

    def tool_input(
        self,
        call_id: str,
        name: str | None,
        arguments: Any,
        *,
        rename: bool = False,
        title: str | None = None,
    ) -> list[Chunk]:
        """``tool-input-start`` (first sight in this turn) + ``tool-input-available``.

        The name is fixed at first sight; ``rename`` (an approval's resolved name) may replace it.
        ``title``: the tool's display title when one is known, on both chunks for v6 and v7.
        """
        chunks: list[Chunk] = []
        known = self.tool_names.get(call_id)
        if known is None or (rename and name):
            known = name or known or UNKNOWN_TOOL
            first = call_id not in self.tool_names
            self.tool_names[call_id] = known
            if first and call_id not in self.known_tool_call_ids:
                chunks.append({"type": "tool-input-start", "toolCallId": call_id, "toolName": known})
        value = unwrap_tool_input(arguments)
        chunks.append(
            {
                "type": "tool-input-available",
                "toolCallId": call_id,
                "toolName": known,
                "input": {} if value is None else value,
            }
        )
        if title is not None and self.client_version.tool_titles:
            for chunk in chunks:
                chunk["title"] = title
        self._content = True
        return chunks

    def _tool_call_delta(self, event: ToolCallDelta) -> list[Chunk]:
        """The call's arguments as they stream: ``tool-input-start`` at the first piece, then one
        ``tool-input-delta`` per non-empty piece (the client parses the partial JSON); the call's
        ``tool_call`` sends ``tool-input-available`` with the whole input."""
        call_id = event.id
        chunks: list[Chunk] = []
        if call_id not in self.tool_names:
            if call_id in self.known_tool_call_ids:
                return []  # the client holds this call whole: no streaming into it
            if self._step_has_output:
                self._next_step(chunks)
            name = self.tool_names[call_id] = event.name or UNKNOWN_TOOL
            chunks.append({"type": "tool-input-start", "toolCallId": call_id, "toolName": name})
            self._content = True
        if event.delta:
            chunks.append({"type": "tool-input-delta", "toolCallId": call_id, "inputTextDelta": event.delta})
        return chunks

    def _tool_progress(self, event: ToolProgress) -> list[Chunk]:
        """A preliminary output: the client shows it until the result replaces it."""
        if not self.has_call(event.id):
            return []
        self._content = True
        chunk: Chunk = {"type": "tool-output-available", "toolCallId": event.id, "output": event.output}
        chunk["preliminary"] = True
        return [chunk]

    def has_call(self, call_id: str | None) -> bool:
        return call_id is not None and (call_id in self.tool_names or call_id in self.known_tool_call_ids)

    def _tool_call(self, event: ToolCall) -> list[Chunk]:
        if not event.id:
            return []
        chunks: list[Chunk] = []
        if self._step_has_output:
            self._next_step(chunks)
        chunks += self.tool_input(event.id, event.name, event.arguments)
        if event.render is not None:
            chunks.append({"type": "data-render", "data": {"toolCallId": event.id, "render": event.render}})
        return chunks

    def _tool_result(self, event: ToolResult) -> list[Chunk]:
        call_id = event.id
        if call_id is None or not self.has_call(call_id):
            return []  # an orphan: the client would throw "No tool invocation found"
        chunk: Chunk
        if event.denied:
            if self.approval_chunks:
                chunk = {"type": "tool-output-denied", "toolCallId": call_id}
            else:
                text = tool_states.error_text(event.output) or tool_states.DENIED_TEXT
                chunk = {"type": "tool-output-error", "toolCallId": call_id, "errorText": text}
        elif event.is_error:
            text = tool_states.error_text(event.output)
            chunk = {"type": "tool-output-error", "toolCallId": call_id, "errorText": text}
        else:
            output = event.result_output
            chunk = {
                "type": "tool-output-available",
                "toolCallId": call_id,
                "output": None if output is UNSET else output,
            }
        self._content = True
        # A resumed call's output precedes the step, so the text after it needs no new step.
        self._step_has_output = self._step_open
        if event.render is None:
            return [chunk]
        return [chunk, {"type": "data-render", "data": {"toolCallId": call_id, "render": event.render}}]

    # ----------------------------------------------------------------- everything else

    def _interaction(self, event: InteractionRequest) -> list[Chunk]:
        chunks = interaction_chunks(self, event)
        if chunks:
            self._content = True
        return chunks

    def _decision(self, event: InteractionResponse) -> list[Chunk]:
        chunks = decision_chunks(self, event)
        if chunks:
            self._content = True
        return chunks

    def _data(self, event: DataEvent) -> list[Chunk]:
        chunk: Chunk = {"type": f"data-{event.name or 'data'}", "data": event.data}
        if event.transient:
            chunk["transient"] = True
        self._content = True
        return [chunk]

    def _file(self, event: FileEvent) -> list[Chunk]:
        if not event.url or not event.media_type:
            return []
        self._content = True
        # ai 7 keeps a file from the model's reasoning apart; older clients have no such chunk.
        kind = "reasoning-file" if event.reasoning and self.client_version is ClientVersion.V7 else "file"
        return [{"type": kind, "url": event.url, "mediaType": event.media_type}]

    def _source_url(self, event: SourceUrl) -> list[Chunk]:
        chunk: Chunk = {"type": "source-url", "sourceId": event.id, "url": event.url}
        if event.title is not None:
            chunk["title"] = event.title
        self._content = True
        return [chunk]

    def _source_document(self, event: SourceDocument) -> list[Chunk]:
        chunk: Chunk = {
            "type": "source-document",
            "sourceId": event.id,
            "mediaType": event.media_type,
            "title": event.title,
        }
        if event.filename is not None:
            chunk["filename"] = event.filename
        self._content = True
        return [chunk]

    def _custom(self, event: CustomEvent) -> list[Chunk]:
        """v7: a ``custom`` part, its data under ``providerMetadata.turnwire.data`` (the part keeps
        only ``kind`` and ``providerMetadata``). Older clients reject ``custom``: a transient
        ``data-custom{kind, data}`` (shown by ``onData``, no part)."""
        if self.client_version.custom_parts:
            return [custom_part(event.kind, event.data)]
        return [{"type": "data-custom", "data": {"kind": event.kind, "data": event.data}, "transient": True}]

    def _usage(self, event: Usage) -> list[Chunk]:
        usage = {
            k: v
            for k, v in (
                ("input", event.input),
                ("output", event.output),
                ("total", event.total),
                ("cost", event.cost),
            )
            if v is not None
        }
        self.usage = usage or None
        return []

    def _error(self, event: ErrorEvent) -> list[Chunk]:
        self._errored = True
        return error_pair(error_code(event), event.message, event.detail)

    def _done(self, event: Done) -> list[Chunk]:
        if event.stop_reason is not None:
            self.stop_reason = event.stop_reason
        if event.trace_id:
            self.trace_id = event.trace_id
        return []

    def _ignore(self, event: Event) -> list[Chunk]:
        return []


_HANDLERS: Final[dict[type, Any]] = {
    MessageEvent: UIStreamEncoder._message,
    MessageStart: UIStreamEncoder._part_start,
    MessageDelta: UIStreamEncoder._text_delta,
    MessageEnd: UIStreamEncoder._part_end,
    Thought: UIStreamEncoder._thought,
    ThoughtStart: UIStreamEncoder._part_start,
    ThoughtDelta: UIStreamEncoder._reasoning_delta,
    ThoughtEnd: UIStreamEncoder._part_end,
    ToolCall: UIStreamEncoder._tool_call,
    ToolResult: UIStreamEncoder._tool_result,
    InteractionRequest: UIStreamEncoder._interaction,
    InteractionResponse: UIStreamEncoder._decision,
    DataEvent: UIStreamEncoder._data,
    FileEvent: UIStreamEncoder._file,
    Usage: UIStreamEncoder._usage,
    ErrorEvent: UIStreamEncoder._error,
    Done: UIStreamEncoder._done,
    SourceUrl: UIStreamEncoder._source_url,
    SourceDocument: UIStreamEncoder._source_document,
    ToolCallDelta: UIStreamEncoder._tool_call_delta,
    ToolProgress: UIStreamEncoder._tool_progress,
    CustomEvent: UIStreamEncoder._custom,
    # No UI Message Stream counterpart (see docs/vercel.md): the AI SDK's steps are its model
    # calls (turnwire opens them itself), it has no shared state and no sub-agent frames.
    StateSnapshot: UIStreamEncoder._ignore,
    StateDelta: UIStreamEncoder._ignore,
    StepStart: UIStreamEncoder._ignore,
    StepEnd: UIStreamEncoder._ignore,
    AgentStart: UIStreamEncoder._ignore,
    AgentEnd: UIStreamEncoder._ignore,
}
