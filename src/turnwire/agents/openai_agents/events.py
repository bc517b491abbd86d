"""An Agents SDK stream (``RunResultStreaming.stream_events()``) as canonical events.

Raw Responses events carry the model's text and reasoning deltas and each call's arguments as they
are generated (``ToolCallDelta``); run items carry the tool calls (complete arguments), their
outputs and handoffs (a handoff is a call of ``transfer_to_<agent>``
and its output, stored like any call so a replay continues); a change of agent becomes an
``agent`` data event naming the agent now speaking.
"""

from __future__ import annotations

from typing import Any

import orjson

from turnwire.agents.chat_history import DENIED_TEXT
from turnwire.agents.model_ids import ModelIds
from turnwire.agents.tools import result_text
from turnwire.model import (
    AgentEnd,
    AgentStart,
    DataEvent,
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallDelta,
    ToolResult,
)

_TEXT_DELTAS = {
    "response.output_text.delta": "text",
    "response.reasoning_summary_text.delta": "thought",
    "response.reasoning_text.delta": "thought",
}
_CALL_ITEMS = ("tool_called", "handoff_requested")
_OUTPUT_ITEMS = ("tool_output", "handoff_occured")


class RunEvents:
    """The events of one Agents SDK run."""

    def __init__(
        self, prefix: str, ids: ModelIds, announced: set[str], denied: set[str], agent_name: str
    ) -> None:
        self._prefix = prefix
        self._ids = ids
        self.announced = announced
        self._denied = denied
        self.agent_name = agent_name  # the agent speaking
        self._parts = 0
        self._open: tuple[str, str, str] | None = None  # (item id, kind, part id)
        self.results: set[str] = set()
        self.names: dict[str, str | None] = {}
        self.handed_to: str | None = None  # the agent a handoff went to, speaking as a sub-agent
        self._streaming: dict[str, str] = {}  # output item id → call id, while its arguments stream

    def feed(self, event: Any) -> list[Event]:
        kind = getattr(event, "type", None)
        if kind == "raw_response_event":
            return self._raw(event.data)
        if kind == "run_item_stream_event":
            return self._item(event.name, event.item)
        if kind == "agent_updated_stream_event":
            name = getattr(event.new_agent, "name", None)
            if name and name != self.agent_name:
                self.agent_name = name
                # The data event names the speaker on every wire (and in the store, as before);
                # agent_end/agent_start bracket what the agent handed to says (AG-UI SUBAGENT_*).
                out = [*self.close(), DataEvent(name="agent", data={"name": name})]
                if self.handed_to is not None:
                    out.append(AgentEnd(name=self.handed_to))
                self.handed_to = name
                out.append(AgentStart(name=name))
                return out
        return []

    def _raw(self, data: Any) -> list[Event]:
        raw_type = getattr(data, "type", "")
        kind = _TEXT_DELTAS.get(raw_type)
        if kind is None:
            if raw_type == "response.output_item.added":
                return self._call_opened(getattr(data, "item", None))
            if raw_type == "response.function_call_arguments.delta":
                call_id = self._streaming.get(str(getattr(data, "item_id", "") or ""))
                delta = getattr(data, "delta", "") or ""
                return [ToolCallDelta(id=call_id, delta=delta)] if call_id and delta else []
            if raw_type in ("response.output_item.done", "response.completed"):
                return self.close()
            return []
        delta = getattr(data, "delta", "") or ""
        if not delta:
            return []
        item_id = str(getattr(data, "item_id", "") or "")
        out: list[Event] = []
        if self._open is None or self._open[:2] != (item_id, kind):
            out += self.close()
            self._parts += 1
            part_id = f"{'msg' if kind == 'text' else 'thought'}_{self._prefix}_{self._parts}"
            self._open = (item_id, kind, part_id)
            out.append(MessageStart(id=part_id) if kind == "text" else ThoughtStart(id=part_id))
        part_id = self._open[2]
        out.append(
            MessageDelta(id=part_id, delta=delta) if kind == "text" else ThoughtDelta(id=part_id, delta=delta)
        )
        return out

    def _call_opened(self, item: Any) -> list[Event]:
        """A function call the model starts: its arguments stream as ``ToolCallDelta`` pieces (the
        ``tool_called`` item that follows closes it with the whole arguments)."""
        if _field(item, "type") != "function_call":
            return []
        item_id = str(_field(item, "id") or "")
        call_id = self._ids.from_model(_field(item, "call_id") or "")
        if not call_id or call_id in self.announced:  # said already: its pieces are not sent again
            self._streaming.pop(item_id, None)
            return []
        self._streaming[item_id] = call_id
        return [*self.close(), ToolCallDelta(id=call_id, delta="", name=_field(item, "name"))]

    def _item(self, name: str, item: Any) -> list[Event]:
        if name in _CALL_ITEMS:
            raw = item.raw_item
            call_id = self._ids.from_model(_field(raw, "call_id") or "")
            if not call_id or call_id in self.announced:
                return []
            self.announced.add(call_id)
            self._streaming.pop(str(_field(raw, "id") or ""), None)  # closed by the whole call
            self.names[call_id] = _field(raw, "name")
            return [*self.close(), call_of(call_id, _field(raw, "name"), _field(raw, "arguments"))]
        if name in _OUTPUT_ITEMS:
            raw = item.raw_item
            call_id = self._ids.from_model(_field(raw, "call_id") or "")
            if not call_id:
                return []
            self.results.add(call_id)
            output = getattr(item, "output", None)
            if output is None:
                output = _field(raw, "output")
            return [
                *self.close(),
                result_of(call_id, self.names.get(call_id), output, call_id in self._denied),
            ]
        return []

    def end_agents(self) -> list[Event]:
        """The open handoff's ``agent_end`` (when the run is over)."""
        if self.handed_to is None:
            return []
        name, self.handed_to = self.handed_to, None
        return [AgentEnd(name=name)]

    def close(self) -> list[Event]:
        if self._open is None:
            return []
        _, kind, part_id = self._open
        self._open = None
        return [MessageEnd(id=part_id) if kind == "text" else ThoughtEnd(id=part_id)]


def _field(raw: Any, name: str) -> Any:
    return raw.get(name) if isinstance(raw, dict) else getattr(raw, name, None)


def call_of(call_id: str, name: str | None, arguments: Any) -> ToolCall:
    parsed = arguments
    if isinstance(arguments, str):
        try:
            parsed = orjson.loads(arguments) if arguments else {}
        except orjson.JSONDecodeError:
            parsed = arguments
    return ToolCall(id=call_id, name=name, input=parsed)


def result_of(call_id: str, name: str | None, output: Any, denied: bool) -> ToolResult:
    if denied:
        return ToolResult(id=call_id, name=name, output=DENIED_TEXT, is_error=True, denied=True)
    if isinstance(output, str):
        return ToolResult(id=call_id, name=name, output=output)
    if hasattr(output, "model_dump"):
        output = output.model_dump(mode="json")
    data = orjson.loads(orjson.dumps(output, default=str))
    return ToolResult(id=call_id, name=name, output=result_text(data), data=data)
