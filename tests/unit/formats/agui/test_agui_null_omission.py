"""AG-UI 1.0's null-omission contract (``sdks/fixtures/null-omission.json`` of the AG-UI repository):
a field without a value is left out, a null that carries meaning (a state value, a JSON Patch
value, a custom event's value, a metadata value) stays. Each case below is the fixture's case of
that name: the canonical events that make the fixture's event, and the fixture's ``expected``
JSON, which turnwire's event must equal exactly. Cases whose events turnwire always sends with
more (``RUN_STARTED.protocolVersion``, ``TOOL_CALL_START.parentMessageId``,
``TOOL_CALL_RESULT.role``, an interrupt's ``metadata``) are checked for the keys the fixture omits.
Also: the 1.0 interrupt fields (``responseSchema``, ``expiresAt``) and the sub-agent attribution."""

from __future__ import annotations

from typing import Any

import pytest

from agui_checks import validate_event
from turnwire.formats.agui import AgUiStreamEncoder, interrupt_of, render_messages
from turnwire.model import (
    CustomEvent,
    DataEvent,
    ErrorEvent,
    Event,
    InteractionKind,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ReasoningBlock,
    StateDelta,
    StateSnapshot,
    StepStart,
    TextBlock,
    ToolCall,
    ToolResultBlock,
)


def events_of(events: list[Event], **kw: Any) -> list[dict[str, Any]]:
    enc = AgUiStreamEncoder(kw.pop("thread_id", "thread_1"), kw.pop("run_id", "run_1"), **kw)
    out = enc.start()
    for event in events:
        out += enc.encode(event)
    return out + enc.finish()


def first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind)


# (fixture case name, canonical events, the event type, the fixture's expected event)
EXACT: list[tuple[str, list[Event], str, dict[str, Any]]] = [
    ("step_started", [StepStart("plan")], "STEP_STARTED", {"type": "STEP_STARTED", "stepName": "plan"}),
    (
        "text_message_start_without_name",
        [MessageStart("a"), MessageDelta("a", "Looking that up."), MessageEnd("a")],
        "TEXT_MESSAGE_START",
        {"type": "TEXT_MESSAGE_START", "messageId": "msg_1", "role": "assistant"},
    ),
    (
        "text_message_content",
        [MessageStart("a"), MessageDelta("a", "Looking that up."), MessageEnd("a")],
        "TEXT_MESSAGE_CONTENT",
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg_1", "delta": "Looking that up."},
    ),
    (
        "text_message_end",
        [MessageStart("a"), MessageDelta("a", "Looking that up."), MessageEnd("a")],
        "TEXT_MESSAGE_END",
        {"type": "TEXT_MESSAGE_END", "messageId": "msg_1"},
    ),
    (
        "tool_call_args",
        [ToolCall("tc_1", "search", {"q": "ag-ui"})],
        "TOOL_CALL_ARGS",
        {"type": "TOOL_CALL_ARGS", "toolCallId": "tc_1", "delta": '{"q":"ag-ui"}'},
    ),
    (
        "tool_call_end",
        [ToolCall("tc_1", "search", {"q": "ag-ui"})],
        "TOOL_CALL_END",
        {"type": "TOOL_CALL_END", "toolCallId": "tc_1"},
    ),
    (
        "state_snapshot_keeps_nulls_inside_the_snapshot",
        [StateSnapshot({"selectedId": None, "items": [None, 1], "nested": {"cursor": None}})],
        "STATE_SNAPSHOT",
        {
            "type": "STATE_SNAPSHOT",
            "snapshot": {"selectedId": None, "items": [None, 1], "nested": {"cursor": None}},
        },
    ),
    (
        "state_snapshot_that_is_entirely_null_stays_null",
        [StateSnapshot(None)],
        "STATE_SNAPSHOT",
        {"type": "STATE_SNAPSHOT", "snapshot": None},
    ),
    (
        "state_delta_keeps_a_null_patch_value",
        [StateDelta([{"op": "replace", "path": "/selectedId", "value": None}])],
        "STATE_DELTA",
        {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/selectedId", "value": None}]},
    ),
    (
        "custom_event_with_nulls_inside_the_value",
        [CustomEvent("ping", {"latencyMs": None})],
        "CUSTOM",
        {"type": "CUSTOM", "name": "ping", "value": {"latencyMs": None}},
    ),
    (
        "run_error_without_code",
        [ErrorEvent("upstream timed out")],
        "RUN_ERROR",
        {"type": "RUN_ERROR", "message": "upstream timed out"},
    ),
    (
        "run_finished_with_success_outcome",
        [],
        "RUN_FINISHED",
        {"type": "RUN_FINISHED", "threadId": "thread_1", "runId": "run_1", "outcome": {"type": "success"}},
    ),
]


@pytest.mark.parametrize(("events", "kind", "expected"), [c[1:] for c in EXACT], ids=[c[0] for c in EXACT])
def test_event_equals_the_fixtures_expected_json(
    events: list[Event], kind: str, expected: dict[str, Any]
) -> None:
    event = first(events_of(events, message_id="msg_1"), kind)
    assert event == expected


def test_messages_snapshot_with_sparse_messages_leaves_unset_fields_out() -> None:
    messages = [
        Message("system", [TextBlock("Be brief.")], "msg_0"),
        Message("user", [TextBlock("Search for ag-ui.")], "msg_1"),
        Message("assistant", [TextBlock("Looking that up.")], "msg_2"),
        Message("tool", [ToolResultBlock("tc_1", output={"hits": 2})], "msg_3"),
        Message("assistant", [ReasoningBlock("Two results look relevant.")], "msg_4"),
    ]
    assert render_messages(messages) == [
        {"id": "msg_0", "role": "system", "content": "Be brief."},
        {"id": "msg_1", "role": "user", "content": "Search for ag-ui."},
        {"id": "msg_2", "role": "assistant", "content": "Looking that up."},
        {"id": "msg_3", "role": "tool", "content": '{"hits":2}', "toolCallId": "tc_1"},
        {"id": "msg_4", "role": "reasoning", "content": "Two results look relevant."},
    ]


def test_run_started_leaves_out_parent_run_and_input_when_unset() -> None:
    started = events_of([])[0]
    assert started == {
        "type": "RUN_STARTED",
        "threadId": "thread_1",
        "runId": "run_1",
        "protocolVersion": "1.0",
    }


def test_activity_content_keeps_its_nulls() -> None:
    activity = first(
        events_of([DataEvent(name="SEARCH", data={"query": "ag-ui", "resultCount": None})]),
        "ACTIVITY_SNAPSHOT",
    )
    assert activity["content"] == {"query": "ag-ui", "resultCount": None}
    validate_event(activity)


def test_sparse_interrupt_leaves_out_what_it_lacks_and_keeps_a_null_in_metadata() -> None:
    request = InteractionRequest("int_1", "pick", {"traceId": None})
    interrupt = interrupt_of(request)
    assert interrupt is not None
    for absent in ("message", "toolCallId", "responseSchema", "expiresAt", "subagentRunId"):
        assert absent not in interrupt
    assert interrupt["metadata"]["turnwire"]["payload"] == {"traceId": None}


# --------------------------------------------------------------------------- the 1.0 interrupt fields


def approval(payload: dict[str, Any] | None = None) -> InteractionRequest:
    base = {"toolCallId": "c1", "toolName": "rm", "toolCall": {"rawInput": {"p": 1}}}
    return InteractionRequest("ap_tok", InteractionKind.USER_APPROVAL, {**base, **(payload or {})})


def test_an_approval_describes_its_answer_and_has_no_expiry_of_its_own() -> None:
    interrupt = interrupt_of(approval())
    assert interrupt is not None
    assert interrupt["responseSchema"] == {
        "type": "object",
        "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
        "required": ["approved"],
    }
    assert "expiresAt" not in interrupt  # an approval token is answerable after any restart


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({"expires_at": "2026-12-02T09:00:00Z"}, "2026-12-02T09:00:00Z"),
        ({"expiresAt": "2026-12-02T09:00:00+01:00"}, "2026-12-02T09:00:00+01:00"),
        ({"expires_at": 1796374800}, "2026-12-04T09:00:00.000Z"),
        ({"expires_at": 1796374800.25}, "2026-12-04T09:00:00.250Z"),
        ({"expires_at": True}, None),
        ({"expires_at": ""}, None),
        ({"expires_at": 10**20}, None),
    ],
)
def test_an_agents_deadline_becomes_expires_at_in_iso_8601(
    given: dict[str, Any], expected: str | None
) -> None:
    interrupt = interrupt_of(approval(given))
    assert interrupt is not None
    assert interrupt.get("expiresAt") == expected


def test_a_question_describes_its_text_answer() -> None:
    interrupt = interrupt_of(InteractionRequest("q1", InteractionKind.USER_INPUT, {"prompt": "Echo?"}))
    assert interrupt is not None
    assert interrupt["responseSchema"] == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }


def test_another_kind_carries_the_schema_its_payload_gives() -> None:
    schema = {"type": "object", "properties": {"color": {"enum": ["red", "blue"]}}}
    interrupt = interrupt_of(InteractionRequest("r1", "pick_color", {"response_schema": schema}))
    assert interrupt is not None and interrupt["responseSchema"] == schema
    bad = interrupt_of(InteractionRequest("r2", "pick_color", {"response_schema": True}))
    assert bad is not None and "responseSchema" not in bad  # 1.0 restricts the schema to an object


def test_interrupts_validate_against_the_1_0_models() -> None:
    enc = AgUiStreamEncoder("thread_1", "run_1")
    out = enc.start() + enc.encode(approval({"expires_at": 1796374800}))
    out += enc.encode(InteractionRequest("q", "user_input", {})) + enc.finish("paused")
    finished = validate_event(out[-1])
    first_interrupt = finished.outcome.interrupts[0]
    assert first_interrupt.expires_at == "2026-12-04T09:00:00.000Z"
    assert first_interrupt.response_schema["required"] == ["approved"]
