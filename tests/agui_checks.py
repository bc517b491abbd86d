"""Checks for AG-UI event streams: every event validates against the real ``ag-ui-protocol`` models
with no unknown keys, and the order rules the ``@ag-ui/client`` verifier enforces hold."""

from __future__ import annotations

from typing import Any

from ag_ui.core import Event, Message
from pydantic import BaseModel, TypeAdapter

EVENT = TypeAdapter(Event)
MESSAGE = TypeAdapter(Message)


def _no_extras(model: Any, where: str) -> None:
    """The models accept unknown keys; a misspelled key would pass silently, so refuse them."""
    if isinstance(model, BaseModel):
        assert not model.model_extra, f"{where}: unknown keys {sorted(model.model_extra or {})}"
        for name in type(model).model_fields:
            _no_extras(getattr(model, name), f"{where}.{name}")
    elif isinstance(model, list):
        for i, item in enumerate(model):
            _no_extras(item, f"{where}[{i}]")


def validate_event(event: dict[str, Any]) -> Any:
    model = EVENT.validate_python(event)
    _no_extras(model, event.get("type", "event"))
    # 1.0 omits an optional field without a value; a required one's null is a value (CUSTOM.value).
    fields = type(model).model_fields
    optional = {f.alias or n for n, f in fields.items() if not f.is_required() and f.default is None}
    assert not [k for k, v in event.items() if v is None and k in optional], f"null field in {event}"
    return model


def validate_message(message: dict[str, Any]) -> Any:
    model = MESSAGE.validate_python(message)
    # ``metadata`` is open by key; only the message's own keys must be known ones.
    assert not model.model_extra, f"unknown keys {sorted(model.model_extra or {})} in {message}"
    return model


def check_order(events: list[dict[str, Any]]) -> None:
    """The verifier's rules: RUN_STARTED first, nothing after the end, content only for open ids,
    no id opened twice, everything closed before RUN_FINISHED, and the run ends. Steps are kept
    per (sub-)agent (``subagentRunId``); a part's events carry its opener's ``subagentRunId``."""
    assert events, "no events"
    assert events[0]["type"] == "RUN_STARTED", events[0]
    text: set[str] = set()
    tools: set[str] = set()
    spans: set[str] = set()
    reasoning: set[str] = set()
    steps: set[str] = set()
    opened = {
        "TEXT_MESSAGE_START": (text, "messageId"),
        "TOOL_CALL_START": (tools, "toolCallId"),
        "REASONING_START": (spans, "messageId"),
        "REASONING_MESSAGE_START": (reasoning, "messageId"),
        "STEP_STARTED": (steps, "stepName"),
    }
    inside = {
        "TEXT_MESSAGE_CONTENT": (text, "messageId"),
        "TOOL_CALL_ARGS": (tools, "toolCallId"),
        "REASONING_MESSAGE_CONTENT": (reasoning, "messageId"),
    }
    closed = {
        "TEXT_MESSAGE_END": (text, "messageId"),
        "TOOL_CALL_END": (tools, "toolCallId"),
        "REASONING_END": (spans, "messageId"),
        "REASONING_MESSAGE_END": (reasoning, "messageId"),
        "STEP_FINISHED": (steps, "stepName"),
    }
    owner: dict[tuple[str, str], Any] = {}  # (kind of part, id) → its opener's subagentRunId
    for i, event in enumerate(events[1:], 1):
        kind = event["type"]
        if kind in ("STEP_STARTED", "STEP_FINISHED"):
            event = {**event, "stepName": (event.get("subagentRunId"), event["stepName"])}
        part = next((p for p in ("messageId", "toolCallId") if p in event), None)
        if part is not None and kind in {**opened, **inside, **closed} and "STEP" not in kind:
            held = owner.setdefault((part, event[part]), event.get("subagentRunId"))
            assert held == event.get("subagentRunId"), f"{kind} of {event[part]} by another agent at {i}"
        assert kind != "RUN_STARTED", f"second RUN_STARTED at {i}"
        if kind in opened:
            active, key = opened[kind]
            assert event[key] not in active, f"{kind} for active {event[key]} at {i}"
            active.add(event[key])
        elif kind in inside:
            active, key = inside[kind]
            assert event[key] in active, f"{kind} for inactive {event[key]} at {i}"
        elif kind in closed:
            active, key = closed[kind]
            assert event[key] in active, f"{kind} for inactive {event[key]} at {i}"
            active.discard(event[key])
        elif kind == "RUN_FINISHED":
            assert not (text or tools or spans or reasoning or steps), f"open at RUN_FINISHED: {events}"
        if kind in ("RUN_FINISHED", "RUN_ERROR"):
            assert i == len(events) - 1, f"events after {kind}: {events[i + 1 :]}"
    assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"), f"run not ended: {events[-1]}"


def check_stream(events: list[dict[str, Any]]) -> None:
    for event in events:
        validate_event(event)
    check_order(events)
