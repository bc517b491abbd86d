"""pydantic-ai stream parts, tool returns and usage as canonical events."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic_ai import messages as pm

from turnwire.agents.chat_history import DENIED_TEXT
from turnwire.agents.tools import result_text
from turnwire.model import (
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCallDelta,
    ToolResult,
    Usage,
)


def args_of(part: Any) -> Any:
    try:
        return part.args_as_dict()
    except Exception:  # arguments that are not a JSON object: pass the raw text on
        return part.args


class Parts:
    """Text and thinking parts by pydantic-ai part index, with turnwire ids ``msg_<turn>_<k>``;
    with ``map_id`` (the model's call id → turnwire's) also the tool calls' argument pieces as
    ``ToolCallDelta`` (text pieces only: arguments a model gives as a dict arrive whole in the call)."""

    __slots__ = ("_calls", "_map_id", "_messages", "_open", "_prefix", "_thoughts")

    def __init__(self, prefix: str, map_id: Any = None) -> None:
        self._prefix = prefix
        self._map_id = map_id
        self._messages = 0
        self._thoughts = 0
        self._open: dict[int, tuple[str, str]] = {}  # index → (kind, id)
        self._calls: dict[int, str] = {}  # index → the streaming call's turnwire id

    def start(self, index: int, part: Any) -> list[Event]:
        out = self.end(index)
        if isinstance(part, pm.ToolCallPart) and self._map_id is not None and part.tool_call_id:
            call_id = self._calls[index] = self._map_id(part.tool_call_id)
            args = part.args if isinstance(part.args, str) else ""
            out.append(ToolCallDelta(id=call_id, delta=args, name=part.tool_name or None))
        elif isinstance(part, pm.TextPart):
            self._messages += 1
            part_id = f"msg_{self._prefix}_{self._messages}"
            self._open[index] = ("text", part_id)
            out.append(MessageStart(id=part_id))
            if part.content:
                out.append(MessageDelta(id=part_id, delta=part.content))
        elif isinstance(part, pm.ThinkingPart):
            self._thoughts += 1
            part_id = f"thought_{self._prefix}_{self._thoughts}"
            self._open[index] = ("thought", part_id)
            out.append(ThoughtStart(id=part_id))
            if part.content:
                out.append(ThoughtDelta(id=part_id, delta=part.content))
        return out

    def delta(self, index: int, delta: Any) -> list[Event]:
        opened = self._open.get(index)
        if opened is None:
            call_id = self._calls.get(index)
            pieces = getattr(delta, "args_delta", None) if call_id is not None else None
            if isinstance(delta, pm.ToolCallPartDelta) and isinstance(pieces, str) and pieces:
                return [ToolCallDelta(id=call_id or "", delta=pieces)]
            return []
        kind, part_id = opened
        if kind == "text" and isinstance(delta, pm.TextPartDelta) and delta.content_delta:
            return [MessageDelta(id=part_id, delta=delta.content_delta)]
        if kind == "thought" and isinstance(delta, pm.ThinkingPartDelta) and delta.content_delta:
            return [ThoughtDelta(id=part_id, delta=delta.content_delta)]
        return []

    def end(self, index: int) -> list[Event]:
        opened = self._open.pop(index, None)
        if opened is None:
            return []
        kind, part_id = opened
        return [MessageEnd(id=part_id) if kind == "text" else ThoughtEnd(id=part_id)]

    def close(self) -> list[Event]:
        out: list[Event] = []
        for index in list(self._open):
            out += self.end(index)
        return out


def tool_result(part: Any) -> ToolResult:
    """A ``ToolReturnPart`` (or a ``RetryPromptPart``: the tool asked the model to retry) as a result."""
    call_id, name = part.tool_call_id, part.tool_name
    if isinstance(part, pm.RetryPromptPart):
        return ToolResult(id=call_id, name=name, output=part.model_response(), is_error=True)
    outcome = getattr(part, "outcome", None)
    if outcome == "denied":
        return ToolResult(id=call_id, name=name, output=DENIED_TEXT, is_error=True, denied=True)
    content = part.content
    if isinstance(content, str):
        return ToolResult(
            id=call_id, name=name, output=content, is_error=True if outcome == "failed" else None
        )
    data = orjson.loads(orjson.dumps(content, default=plain))
    return ToolResult(id=call_id, name=name, output=result_text(data), data=data)


def plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json")
    return str(value)


def usage_of(usage: Any) -> Usage | None:
    if usage is None:
        return None
    tokens_in = getattr(usage, "input_tokens", None) or 0
    tokens_out = getattr(usage, "output_tokens", None) or 0
    cost = getattr(usage, "cost", None)
    return Usage(
        input=tokens_in,
        output=tokens_out,
        total=tokens_in + tokens_out,
        cost=float(cost) if isinstance(cost, int | float) and cost else None,
    )
