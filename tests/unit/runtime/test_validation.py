"""validate_event accepts exactly the model's events with well-typed fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from turnwire.model import (
    EVENT_TYPES,
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
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
from turnwire.runtime import validate_event

GOOD: list[Any] = [
    MessageEvent("hi"),
    MessageStart("m"),
    MessageDelta("m", ""),
    MessageEnd("m"),
    Thought("t"),
    ThoughtStart("t"),
    ThoughtDelta("t", "d"),
    ThoughtEnd("t"),
    ToolCall(),
    ToolCall(id="c", name="n", input={"a": 1}, raw_input={}, render={"k": 1}),
    ToolResult(),
    ToolResult(id="c", output=None, data=[1], is_error=False, denied=True, name="n"),
    InteractionRequest(id="r", kind="user_approval", payload={"toolCallId": "c"}),
    InteractionResponse(id="r", kind="user_input", payload="answer"),
    DataEvent(),
    DataEvent(name="n", data={"x": 1}, transient=True),
    FileEvent(url="https://x/f.png", media_type="image/png"),
    Usage(),
    Usage(input=1, output=2, total=3, cost=0.5),
    Usage(cost=1),
    ErrorEvent("oops", code="c", detail={"d": 1}),
    Done(),
    Done(stop_reason="end_turn"),
    SourceUrl("s1", "https://example.com/a", title="A"),
    SourceUrl("s1", "https://example.com/a"),
    SourceDocument("s2", "application/pdf", "Report", filename="r.pdf"),
    SourceDocument("s2", "text/plain", ""),
    ToolCallDelta("c", '{"ci', name="get_weather"),
    ToolCallDelta("c", ""),
    ToolProgress("c", {"percent": 50}),
    ToolProgress("c"),
    StateSnapshot(),
    StateSnapshot({"count": 1}),
    StateDelta(),
    StateDelta([{"op": "replace", "path": "/count", "value": 2}]),
    StepStart("plan"),
    StepEnd("plan"),
    AgentStart("researcher"),
    AgentEnd("researcher", id="run-1"),
    CustomEvent("acme.progress", {"done": 1}),
    CustomEvent("acme.ping"),
]


def test_every_model_event_class_has_a_passing_example() -> None:
    assert {type(e) for e in GOOD} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", GOOD, ids=lambda e: type(e).__name__)
def test_well_formed_events_pass(event: Any) -> None:
    assert validate_event(event) is None


@dataclass(slots=True)
class FancyStart(MessageStart):
    extra: str = ""


BAD: list[tuple[Any, str]] = [
    ({"type": "message", "text": "x"}, "agent yielded dict, not a turnwire event"),
    (None, "agent yielded NoneType"),
    (FancyStart("m"), "agent yielded FancyStart"),
    (MessageEvent(5), "MessageEvent: text must be a string"),  # type: ignore[arg-type]
    (MessageStart(""), "MessageStart: id must be a non-empty string"),
    (MessageDelta(None, "x"), "MessageDelta: id must be"),  # type: ignore[arg-type]
    (ThoughtDelta("t", b"x"), "ThoughtDelta: delta must be a string"),  # type: ignore[arg-type]
    (ToolCall(id=3), "ToolCall: id and name"),  # type: ignore[arg-type]
    (ToolResult(is_error="no"), "ToolResult: is_error and denied"),  # type: ignore[arg-type]
    (InteractionRequest(id="r", kind=""), "InteractionRequest: kind must be"),
    (DataEvent(transient="yes"), "DataEvent: name must be"),  # type: ignore[arg-type]
    (FileEvent(url=None, media_type="x"), "FileEvent: url and media_type"),  # type: ignore[arg-type]
    (Usage(input=True), "Usage: input, output and total"),
    (Usage(total=1.5), "Usage: input, output and total"),  # type: ignore[arg-type]
    (Usage(cost="1"), "Usage: cost must be a number"),  # type: ignore[arg-type]
    (ErrorEvent(None), "ErrorEvent: message must be a string"),  # type: ignore[arg-type]
    (Done(stop_reason=1), "Done: stop_reason must be"),  # type: ignore[arg-type]
    (SourceUrl("", "https://x"), "SourceUrl: id and url"),
    (SourceUrl("s", "https://x", title=3), "SourceUrl: title must be"),  # type: ignore[arg-type]
    (SourceDocument("s", "", "t"), "SourceDocument: id and media_type"),
    (SourceDocument("s", "a/b", None), "SourceDocument: title must be"),  # type: ignore[arg-type]
    (ToolCallDelta("c", None), "ToolCallDelta: id must be"),  # type: ignore[arg-type]
    (ToolCallDelta("c", "", name=1), "ToolCallDelta: name must be"),  # type: ignore[arg-type]
    (ToolProgress(""), "ToolProgress: id must be"),
    (StateDelta({"op": "add"}), "StateDelta: delta must be a list"),  # type: ignore[arg-type]
    (StateDelta([{"op": "add"}]), "StateDelta: delta must be a list"),
    (StepStart(""), "StepStart: name must be"),
    (AgentStart("a", id=1), "AgentStart: name must be"),  # type: ignore[arg-type]
    (CustomEvent("progress"), "CustomEvent: kind must be namespaced"),
    (CustomEvent(".progress"), "CustomEvent: kind must be namespaced"),
    (CustomEvent("acme. x"), "CustomEvent: kind must be namespaced"),
    (CustomEvent(None), "CustomEvent: kind must be namespaced"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("event", "reason"), BAD, ids=[str(i) for i in range(len(BAD))])
def test_malformed_events_are_named_with_the_reason(event: Any, reason: str) -> None:
    problem = validate_event(event)
    assert problem is not None and problem.startswith(reason)
