"""Canonical events → ``chat.completion.chunk`` objects (JSON-ready dicts).

=========================  ============================================================================
canonical event            chunk ``delta``
=========================  ============================================================================
(start)                    ``{"role": "assistant", "content": ""}``
message (start/delta)      ``content``; separate messages are joined by a blank line (``"\\n\\n"``)
thought (start/delta)      ``reasoning_content`` (joined the same way)
tool call + its result     ``executed_tool_calls: [{id, type, function, output}]`` (a turnwire
                           extension: the agent ran it, the client must not)
interaction request        client tool / approval → ``tool_calls: [{index, id, type, function}]``
usage                      the usage chunk (``choices: []``) when ``include_usage``
error                      ``{"error": {message, type, param, code}}`` instead of the finish chunk
(finish)                   ``{}`` with ``finish_reason`` (``finish_reason.FINISH_REASONS``)
=========================  ============================================================================
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.formats.openai.client_calls import EXECUTED_KEY, client_call, executed_call
from turnwire.formats.openai.errors import error_body
from turnwire.formats.openai.finish_reason import finish_reason
from turnwire.formats.openai.outbound import SEPARATOR
from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    MessageDelta,
    MessageEvent,
    Thought,
    ThoughtDelta,
    ToolCall,
    ToolResult,
    Usage,
)

Chunk = dict[str, Any]
RUN_FAILED_TEXT: Final = "The agent run failed."


def usage_body(usage: Usage | None) -> dict[str, int]:
    """``Usage`` → OpenAI ``usage`` (missing counts are 0; the total defaults to their sum)."""
    prompt = usage.input if usage is not None and usage.input is not None else 0
    completion = usage.output if usage is not None and usage.output is not None else 0
    total = usage.total if usage is not None and usage.total is not None else prompt + completion
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}


class ChatChunkEncoder:
    """Encodes one turn as one streamed completion: ``start()``, ``encode(event)``, ``finish()``."""

    def __init__(
        self,
        completion_id: str,
        model: str,
        created: int,
        *,
        include_usage: bool = False,
        session_id: str | None = None,
    ) -> None:
        self.completion_id = completion_id
        self.session_id = session_id
        self.model = model
        self.created = created
        self.include_usage = include_usage
        self.stop_reason: str | None = None
        self.usage: Usage | None = None
        self.calls: dict[str, tuple[str | None, Any]] = {}
        self.client_call_ids: list[str] = []
        self._error: tuple[str, str | None] | None = None
        self._last: dict[str, str | None] = {"content": None, "reasoning_content": None}
        self._whole = 0
        self._executed_count = 0
        self._started = False
        self._finished = False

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> Chunk:
        return {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    def start(self) -> list[Chunk]:
        if self._started:
            return []
        self._started = True
        return [self.chunk({"role": "assistant", "content": ""})]

    def encode(self, event: Event) -> list[Chunk]:
        if self._finished:
            return []
        out = self.start()
        # type(event) is C: the exact class (events are never subclassed), narrowed by the type checker
        if type(event) is MessageDelta:
            out += self._text("content", event.id, event.delta)
        elif type(event) is ThoughtDelta:
            out += self._text("reasoning_content", event.id, event.delta)
        elif type(event) is MessageEvent:
            out += self._text("content", None, event.text)
        elif type(event) is Thought:
            out += self._text("reasoning_content", None, event.text)
        elif type(event) is ToolCall:
            if event.id:
                self.calls[event.id] = (event.name, event.arguments)
        elif type(event) is ToolResult:
            out += self._executed(event)
        elif type(event) is InteractionRequest:
            out += self._client_call(event)
        elif type(event) is Usage:
            self.usage = event
        elif type(event) is ErrorEvent:
            if self._error is None:
                self._error = (event.message, event.code)
        elif type(event) is Done and event.stop_reason is not None:
            self.stop_reason = event.stop_reason
        return out

    def _text(self, key: str, part_id: str | None, text: str) -> list[Chunk]:
        if not text:
            return []
        last = self._last[key]
        if last is not None and (part_id is None or part_id != last):
            text = SEPARATOR + text  # a new message or thought: keep them apart
        self._whole += 1
        self._last[key] = part_id if part_id is not None else f"\0{self._whole}"  # a whole message
        return [self.chunk({key: text})]

    def _executed(self, event: ToolResult) -> list[Chunk]:
        if not event.id:
            return []
        name, arguments = self.calls.get(event.id, (event.name, None))
        entry = executed_call(
            self._executed_count,
            event.id,
            name or event.name,
            arguments,
            event.result_output,
            is_error=event.is_error,
        )
        self._executed_count += 1
        return [self.chunk({EXECUTED_KEY: [entry]})]

    def _client_call(self, event: InteractionRequest) -> list[Chunk]:
        call = client_call(event, self.session_id)
        if call is None or call["id"] in self.client_call_ids:
            return []
        call["index"] = len(self.client_call_ids)
        self.client_call_ids.append(call["id"])
        return [self.chunk({"tool_calls": [call]})]

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Chunk]:
        """The finish chunk and, with ``include_usage``, the usage chunk; after a failure the error
        object OpenAI streams instead (the SDK raises ``APIError`` on it)."""
        if self._finished:
            return []
        self._finished = True
        out = self.start()
        reason = stop_reason if stop_reason is not None else self.stop_reason
        failure = (error, "agent_run_failed") if error is not None else self._error
        if failure is not None:
            message, code = failure
            out.append(
                error_body(message or RUN_FAILED_TEXT, "server_error", code=code or "agent_run_failed")
            )
            return out
        out.append(self.chunk({}, finish_reason(reason, client_calls=bool(self.client_call_ids))))
        if self.include_usage:
            usage_chunk = self.chunk({})
            usage_chunk["choices"] = []
            usage_chunk["usage"] = usage_body(self.usage)
            out.append(usage_chunk)
        return out
