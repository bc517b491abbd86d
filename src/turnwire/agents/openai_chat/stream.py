"""One streamed Chat Completions response as canonical events.

``StepReader.feed`` takes each chunk (an SDK ``ChatCompletionChunk``, or anything shaped like one)
and returns the events it makes: text and reasoning deltas as they come, each tool call's
arguments as ``ToolCallDelta`` pieces as they come (once the call's id and name are known; several
calls interleave by ``index``), and the whole calls once the stream is over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from turnwire.model import (
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    StopReason,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallDelta,
    Usage,
)

FINISH_REASONS: Final = {
    "stop": StopReason.END_TURN,
    "length": StopReason.MAX_TOKENS,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "content_filter": StopReason.REFUSAL,
}
"""Chat Completions ``finish_reason`` → canonical stop reason (others are kept as they come)."""


class MalformedChunk(ValueError):
    """A chunk that is not shaped like a Chat Completions chunk."""


@dataclass(slots=True)
class PendingCall:
    """A tool call being assembled from pieces."""

    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    streamed: int = -1
    """How many argument pieces went out as ``ToolCallDelta`` (-1: the call is not opened yet)."""

    def parsed(self) -> Any:
        """The arguments as JSON; the raw text when it is not valid JSON (the tool then reports it)."""
        text = "".join(self.arguments)
        if not text.strip():
            return {}
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            return text


class StepReader:
    """Turns one model call's chunks into events. Ids: ``msg_<prefix>_<k>``, ``thought_<prefix>_<k>``.

    After the stream: ``finish_reason`` (raw), ``calls`` (by index), ``usage`` (the last seen) and
    ``text`` (the content pieces, for the assistant message the next call sends back).
    """

    __slots__ = (
        "_messages",
        "_prefix",
        "_text",
        "_thought",
        "_thoughts",
        "calls",
        "finish_reason",
        "map_id",
        "text",
        "usage",
    )

    def __init__(self, prefix: str, messages: int = 0, thoughts: int = 0, map_id: Any = None) -> None:
        self._prefix = prefix
        self.map_id = map_id
        """The turnwire id of a model's call id (``ModelIds.from_model``); ``None``: no deltas."""
        self._messages = messages
        self._thoughts = thoughts
        self._text: str | None = None
        self._thought: str | None = None
        self.calls: dict[int, PendingCall] = {}
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.text: list[str] = []

    @property
    def counts(self) -> tuple[int, int]:
        """How many messages and thoughts this reader has started (to continue numbering)."""
        return self._messages, self._thoughts

    def feed(self, chunk: Any) -> list[Event]:
        try:
            return self._feed(chunk)
        except (AttributeError, TypeError, KeyError) as exc:
            raise MalformedChunk(f"malformed chunk: {type(exc).__name__}: {exc}") from None

    def _feed(self, chunk: Any) -> list[Event]:
        out: list[Event] = []
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = usage
        choices = chunk.choices
        if not choices:
            return out
        choice = choices[0]
        delta = choice.delta
        if delta is not None:
            reasoning = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
            if reasoning and isinstance(reasoning, str):
                if self._text is not None:
                    out.append(MessageEnd(id=self._text))
                    self._text = None
                if self._thought is None:
                    self._thoughts += 1
                    self._thought = f"thought_{self._prefix}_{self._thoughts}"
                    out.append(ThoughtStart(id=self._thought))
                out.append(ThoughtDelta(id=self._thought, delta=reasoning))
            content = delta.content
            if content:
                if not isinstance(content, str):
                    raise MalformedChunk("malformed chunk: delta.content is not a string")
                if self._thought is not None:
                    out.append(ThoughtEnd(id=self._thought))
                    self._thought = None
                if self._text is None:
                    self._messages += 1
                    self._text = f"msg_{self._prefix}_{self._messages}"
                    out.append(MessageStart(id=self._text))
                out.append(MessageDelta(id=self._text, delta=content))
                self.text.append(content)
            pieces = delta.tool_calls
            if pieces:
                for piece in pieces:
                    index = piece.index if isinstance(piece.index, int) else len(self.calls)
                    call = self.calls.get(index)
                    if call is None:
                        call = self.calls[index] = PendingCall()
                    if piece.id:
                        call.id = piece.id
                    function = piece.function
                    if function is not None:
                        if function.name:
                            call.name += function.name
                        if function.arguments:
                            call.arguments.append(function.arguments)
                    if self.map_id is not None and call.id and call.name:
                        out += self._stream_call(call)
        if choice.finish_reason:
            self.finish_reason = choice.finish_reason
        return out

    def _stream_call(self, call: PendingCall) -> list[Event]:
        """The call's argument pieces not sent yet; the first names the call (the name is taken
        whole from the piece that brought the id, as OpenAI-compatible servers send it)."""
        assert call.id is not None
        out: list[Event] = []
        call_id = self.map_id(call.id)
        if call.streamed < 0:
            out.append(ToolCallDelta(id=call_id, delta="".join(call.arguments), name=call.name))
        else:
            out.extend(ToolCallDelta(id=call_id, delta=p) for p in call.arguments[call.streamed :])
        call.streamed = len(call.arguments)
        return out

    def close(self) -> list[Event]:
        """End the open text/thought parts."""
        out: list[Event] = []
        if self._thought is not None:
            out.append(ThoughtEnd(id=self._thought))
            self._thought = None
        if self._text is not None:
            out.append(MessageEnd(id=self._text))
            self._text = None
        return out

    def tool_calls(self, make_id: Any) -> list[ToolCall]:
        """The assembled calls in index order; ``make_id()`` names a call the server sent without id."""
        out: list[ToolCall] = []
        for index in sorted(self.calls):
            call = self.calls[index]
            if not call.id:
                call.id = make_id()
            out.append(ToolCall(id=call.id, name=call.name, input=call.parsed()))
        return out


def usage_event(usages: list[Any]) -> Usage | None:
    """The sum of the model calls' usage (``prompt``/``completion``/``total`` tokens, ``cost`` if sent)."""
    if not usages:
        return None
    total_in = total_out = total = 0
    cost: float | None = None
    for usage in usages:
        total_in += getattr(usage, "prompt_tokens", 0) or 0
        total_out += getattr(usage, "completion_tokens", 0) or 0
        total += getattr(usage, "total_tokens", 0) or 0
        spent = getattr(usage, "cost", None)
        if isinstance(spent, int | float):
            cost = (cost or 0.0) + float(spent)
    return Usage(input=total_in, output=total_out, total=total or total_in + total_out, cost=cost)
