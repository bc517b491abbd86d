"""A LangGraph ``astream`` (stream modes ``messages``, ``updates``, ``custom``) as canonical events.

``messages`` carries the model's tokens: text and reasoning deltas, usage. ``updates`` carries what
each node wrote: the model's complete tool calls (one ``ToolCall`` with the parsed arguments), the
tools' ``ToolMessage`` results, the node that ran (a transient ``langgraph_node`` data event, shown
as a step where the wire has them) and ``__interrupt__``. ``custom`` (``get_stream_writer()``) goes
on as a transient ``custom`` data event.
"""

from __future__ import annotations

from typing import Any

import orjson
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    RemoveMessage,
    ToolMessage,
    convert_to_messages,
)

from turnwire.agents.chat_history import DENIED_TEXT
from turnwire.agents.langgraph.messages import INPUT_ID_PREFIX
from turnwire.agents.model_ids import ModelIds
from turnwire.agents.tools import result_text
from turnwire.model import (
    DataEvent,
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    StepEnd,
    StepStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)

INTERRUPT_KEY = "__interrupt__"


class GraphEvents:
    """The events of one graph run; ``interrupts`` holds the ``__interrupt__`` update, if any."""

    def __init__(self, prefix: str, ids: ModelIds, announced: set[str], denied: set[str]) -> None:
        self._prefix = prefix
        self._ids = ids
        self.announced = announced  # turnwire ids of calls already on the wire
        self._denied = denied  # calls the user rejected: their result is a denial
        self._parts = 0
        self._open: tuple[str, str, str] | None = None  # (langchain message id, kind, part id)
        self._streamed: set[str] = set()
        self._usage: dict[str, Usage] = {}
        self.calls: dict[str, ToolCall] = {}  # announced in this run, by turnwire id
        self.results: set[str] = set()
        self.interrupts: list[Any] = []
        self._node: str | None = None  # the node whose step is open (its messages are streaming)

    def feed(self, mode: str, chunk: Any) -> list[Event]:
        if mode == "messages":
            message, metadata = chunk
            return self._message(message, metadata or {})
        if mode == "updates":
            return self._updates(chunk)
        if mode == "custom":
            return [DataEvent(name="custom", data=_jsonable(chunk), transient=True)]
        return []

    def _message(self, message: BaseMessage, metadata: dict[str, Any]) -> list[Event]:
        if not isinstance(message, AIMessage) or str(message.id or "").startswith(INPUT_ID_PREFIX):
            return []  # tool results come from ``updates``; the given conversation is not news
        key = message.id or "ai"
        chunk = isinstance(message, AIMessageChunk)
        if message.usage_metadata and (chunk or key not in self._streamed):
            self._add_usage(key, message.usage_metadata)
        if not chunk and key in self._streamed:
            return []  # the whole message after its chunks: already sent
        self._streamed.add(key)
        out: list[Event] = []
        node = metadata.get("langgraph_node")
        if isinstance(node, str) and node and node != self._node:
            # The node's first streamed message opens its step; its update closes it.
            out += self.close()
            out += self._end_step()
            self._node = node
            out.append(StepStart(name=node))
        for kind, text in _pieces(message):
            if not text:
                continue
            if self._open is None or self._open[:2] != (key, kind):
                out += self.close()
                self._parts += 1
                part_id = f"{'msg' if kind == 'text' else 'thought'}_{self._prefix}_{self._parts}"
                self._open = (key, kind, part_id)
                out.append(MessageStart(id=part_id) if kind == "text" else ThoughtStart(id=part_id))
            part_id = self._open[2]
            out.append(
                MessageDelta(id=part_id, delta=text)
                if kind == "text"
                else ThoughtDelta(id=part_id, delta=text)
            )
        if not isinstance(message, AIMessageChunk):
            out += self.close()  # a whole message is complete as it comes
        return out

    def _add_usage(self, key: str, usage: Any) -> None:
        before = self._usage.get(key) or Usage(input=0, output=0, total=0)
        tokens_in = (before.input or 0) + (usage.get("input_tokens") or 0)
        tokens_out = (before.output or 0) + (usage.get("output_tokens") or 0)
        self._usage[key] = Usage(input=tokens_in, output=tokens_out, total=tokens_in + tokens_out)

    def _updates(self, chunk: Any) -> list[Event]:
        out = self.close()
        if not isinstance(chunk, dict):
            return out
        for node, update in chunk.items():
            if node == INTERRUPT_KEY:
                self.interrupts.extend(update or ())
                continue
            if node != self._node:  # a node that streamed no message: its step is its update
                out += self._end_step()
                self._node = node
                out.append(StepStart(name=node))
            out.append(DataEvent(name="langgraph_node", data={"node": node}, transient=True))
            for message in _written_messages(update):
                out += self._written(message)
            out += self._end_step()
        return out

    def _end_step(self) -> list[Event]:
        if self._node is None:
            return []
        node, self._node = self._node, None
        return [StepEnd(name=node)]

    def _written(self, message: BaseMessage) -> list[Event]:
        out: list[Event] = []
        if isinstance(message, AIMessage):
            if (message.id or "ai") not in self._streamed:  # written without passing ``messages``
                out += self._message(message, {})
            for call in message.tool_calls:
                call_id = self._ids.from_model(call.get("id") or "")
                if not call_id or call_id in self.announced:
                    continue
                self.announced.add(call_id)
                event = ToolCall(id=call_id, name=call["name"], input=call.get("args"))
                self.calls[call_id] = event
                out.append(event)
        elif isinstance(message, ToolMessage):
            call_id = self._ids.from_model(message.tool_call_id)
            self.results.add(call_id)
            out.append(self._result(call_id, message))
        return out

    def _result(self, call_id: str, message: ToolMessage) -> ToolResult:
        name = message.name or (self.calls[call_id].name if call_id in self.calls else None)
        if call_id in self._denied:
            return ToolResult(id=call_id, name=name, output=DENIED_TEXT, is_error=True, denied=True)
        content = message.content
        text = content if isinstance(content, str) else result_text(_jsonable(content))
        failed = True if message.status == "error" else None
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:
            return ToolResult(id=call_id, name=name, output=text, is_error=failed)
        if not isinstance(data, dict | list):
            return ToolResult(id=call_id, name=name, output=text, is_error=failed)
        return ToolResult(id=call_id, name=name, output=text, data=data, is_error=failed)

    def close(self) -> list[Event]:
        """The open text or thought part's end (the open step stays: its update closes it)."""
        if self._open is None:
            return []
        _, kind, part_id = self._open
        self._open = None
        return [MessageEnd(id=part_id) if kind == "text" else ThoughtEnd(id=part_id)]

    def usage(self) -> Usage | None:
        if not self._usage:
            return None
        tokens_in = sum(u.input or 0 for u in self._usage.values())
        tokens_out = sum(u.output or 0 for u in self._usage.values())
        return Usage(input=tokens_in, output=tokens_out, total=tokens_in + tokens_out)


def _pieces(message: AIMessage) -> list[tuple[str, str]]:
    """(``text`` | ``thought``, text) in order: string content, or content blocks of type ``text``,
    ``reasoning`` (OpenAI Responses: ``summary`` items or ``reasoning``) and ``thinking`` (Anthropic);
    ``reasoning_content`` (DeepSeek-style providers) comes first."""
    out: list[tuple[str, str]] = []
    reasoning = message.additional_kwargs.get("reasoning_content")
    if isinstance(reasoning, str):
        out.append(("thought", reasoning))
    content = message.content
    if isinstance(content, str):
        out.append(("text", content))
        return out
    for block in content:
        if isinstance(block, str):
            out.append(("text", block))
        elif not isinstance(block, dict):
            continue
        elif block.get("type") == "text":
            out.append(("text", str(block.get("text") or "")))
        elif block.get("type") == "thinking":
            out.append(("thought", str(block.get("thinking") or "")))
        elif block.get("type") == "reasoning":
            if isinstance(block.get("reasoning"), str):
                out.append(("thought", block["reasoning"]))
            for item in block.get("summary") or ():
                if isinstance(item, dict) and isinstance(item.get("text"), str):
                    out.append(("thought", item["text"]))
    return out


def _written_messages(update: Any) -> list[BaseMessage]:
    """The messages a node wrote: ``{"messages": [...] | message}``, or a list of such updates."""
    if isinstance(update, list | tuple):
        return [m for u in update for m in _written_messages(u)]
    if not isinstance(update, dict):
        return []
    messages = update.get("messages")
    if messages is None:
        return []
    if not isinstance(messages, list):
        messages = [messages]
    try:  # ("ai", "text") tuples and dicts too, as the ``add_messages`` reducer takes them
        return [m for m in convert_to_messages(messages) if not isinstance(m, RemoveMessage)]
    except (ValueError, TypeError, NotImplementedError):
        return [m for m in messages if isinstance(m, BaseMessage)]


def _jsonable(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value, default=_plain))


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if dump is not None else str(value)
