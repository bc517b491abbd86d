"""Agenta event frames: every row of the spec's "Streamed frames: Agenta format" table, both ways."""

from __future__ import annotations

import pytest

from turnwire.errors import InputError
from turnwire.formats.agenta import decode_frames, encode_events, event_to_frame, frame_to_event
from turnwire.model import (
    UNSET,
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
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)

# (event, exact frame) for each row of the table, every field set
ROWS = [
    (MessageEvent("hi"), {"type": "message", "data": {"text": "hi"}}),
    (MessageStart("m1"), {"type": "message_start", "data": {"id": "m1"}}),
    (MessageDelta("m1", "Here are "), {"type": "message_delta", "data": {"id": "m1", "delta": "Here are "}}),
    (MessageEnd("m1"), {"type": "message_end", "data": {"id": "m1"}}),
    (Thought("hmm"), {"type": "thought", "data": {"text": "hmm"}}),
    (ThoughtStart("r1"), {"type": "thought_start", "data": {"id": "r1"}}),
    (ThoughtDelta("r1", "a"), {"type": "thought_delta", "data": {"id": "r1", "delta": "a"}}),
    (ThoughtEnd("r1"), {"type": "thought_end", "data": {"id": "r1"}}),
    (
        ToolCall("c1", "bash", {"cmd": "ls"}, {"cmd": "ls -la"}, {"kind": "terminal"}),
        {
            "type": "tool_call",
            "data": {
                "id": "c1",
                "name": "bash",
                "input": {"cmd": "ls"},
                "rawInput": {"cmd": "ls -la"},
                "render": {"kind": "terminal"},
            },
        },
    ),
    (
        ToolResult("c1", "out", {"rows": 1}, False, False, {"kind": "table"}),
        {
            "type": "tool_result",
            "data": {
                "id": "c1",
                "output": "out",
                "data": {"rows": 1},
                "isError": False,
                "denied": False,
                "render": {"kind": "table"},
            },
        },
    ),
    (
        InteractionRequest("perm_1", "user_approval", {"toolCallId": "c1"}),
        {
            "type": "interaction_request",
            "data": {"id": "perm_1", "kind": "user_approval", "payload": {"toolCallId": "c1"}},
        },
    ),
    (
        InteractionResponse("perm_1", "user_approval", {"reply": "once"}),
        {
            "type": "interaction_response",
            "data": {"id": "perm_1", "kind": "user_approval", "payload": {"reply": "once"}},
        },
    ),
    (
        DataEvent("progress", {"step": 1}, True),
        {"type": "data", "data": {"name": "progress", "data": {"step": 1}, "transient": True}},
    ),
    (
        FileEvent("https://x/c.png", "image/png"),
        {"type": "file", "data": {"url": "https://x/c.png", "mediaType": "image/png"}},
    ),
    (
        Usage(10, 2, 12, 0.5),
        {"type": "usage", "data": {"input": 10, "output": 2, "total": 12, "cost": 0.5}},
    ),
    (ErrorEvent("boom"), {"type": "error", "data": {"message": "boom"}}),
    (Done("end_turn", "abc"), {"type": "done", "data": {"stopReason": "end_turn", "traceId": "abc"}}),
]


@pytest.mark.parametrize(("event", "frame"), ROWS, ids=[e.type for e, _ in ROWS])
def test_event_renders_to_the_exact_frame(event, frame):
    assert event_to_frame(event) == frame


@pytest.mark.parametrize(("event", "frame"), ROWS, ids=[e.type for e, _ in ROWS])
def test_frame_reads_back_to_the_same_event(event, frame):
    assert frame_to_event(frame) == event


def test_type_is_not_repeated_inside_data():
    for event, _ in ROWS:
        assert "type" not in event_to_frame(event)["data"]


def test_unset_fields_are_omitted_not_null():
    assert event_to_frame(ToolCall("c1")) == {"type": "tool_call", "data": {"id": "c1"}}
    assert event_to_frame(ToolResult("c1")) == {"type": "tool_result", "data": {"id": "c1"}}
    assert event_to_frame(Done()) == {"type": "done", "data": {}}
    assert event_to_frame(Usage(output=3)) == {"type": "usage", "data": {"output": 3}}


def test_tool_result_explicit_null_output_is_sent_and_read_back():
    frame = event_to_frame(ToolResult("c1", None))
    assert frame == {"type": "tool_result", "data": {"id": "c1", "output": None}}
    assert frame_to_event(frame).output is None
    assert frame_to_event({"type": "tool_result", "data": {"id": "c1"}}).output is UNSET


def test_error_code_and_detail_are_carried_when_set():
    assert event_to_frame(ErrorEvent("boom", "runner_error", {"code": "x"})) == {
        "type": "error",
        "data": {"message": "boom", "code": "runner_error", "detail": {"code": "x"}},
    }


def test_reference_frames_with_type_repeated_in_data_are_read():
    frame = {"type": "message_delta", "data": {"type": "message_delta", "id": "m1", "delta": "let me check"}}
    assert frame_to_event(frame) == MessageDelta("m1", "let me check")


def test_corrective_done_without_type_in_data_is_read():
    assert frame_to_event({"type": "done", "data": {"stopReason": "paused"}}) == Done("paused")


def test_snake_case_data_keys_are_read_when_camel_case_is_absent():
    frame = {"type": "tool_result", "data": {"id": "c", "is_error": True, "output": "x"}}
    assert frame_to_event(frame) == ToolResult("c", "x", is_error=True)


def test_unknown_data_keys_are_ignored():
    assert frame_to_event({"type": "message", "data": {"text": "a", "attachments": []}}) == MessageEvent("a")


def test_frame_without_data_reads_as_empty_data():
    assert frame_to_event({"type": "done"}) == Done()


def test_unknown_frame_type_is_an_input_error_of_type_unknown_frame():
    with pytest.raises(InputError) as info:
        frame_to_event({"type": "attachment_delivery", "data": {}})
    assert info.value.type == "unknown_frame"
    assert info.value.loc == ("type",)


@pytest.mark.parametrize("frame", [[], "x", None, {"data": {}}, {"type": None}, {"type": 3}])
def test_frame_that_is_not_an_object_with_a_string_type_is_an_input_error(frame):
    with pytest.raises(InputError):
        frame_to_event(frame)


def test_non_object_data_is_an_input_error():
    with pytest.raises(InputError) as info:
        frame_to_event({"type": "message", "data": "hi"})
    assert info.value.loc == ("data",)


@pytest.mark.parametrize(
    ("frame", "loc"),
    [
        ({"type": "message_delta", "data": {"delta": "x"}}, ("data", "id")),
        ({"type": "message", "data": {"text": 5}}, ("data", "text")),
        ({"type": "file", "data": {"url": "u"}}, ("data", "mediaType")),
        ({"type": "interaction_request", "data": {"id": "i"}}, ("data", "kind")),
    ],
)
def test_missing_or_non_string_required_field_is_an_input_error_naming_it(frame, loc):
    with pytest.raises(InputError) as info:
        frame_to_event(frame)
    assert info.value.loc == loc


def test_decode_frames_skips_unknown_frame_types_but_not_broken_frames():
    frames = [
        {"type": "turn", "data": {"turnId": "t"}},
        {"type": "message", "data": {"text": "a"}},
        {"type": "mcp_server_failed", "data": {}},
    ]
    assert list(decode_frames(frames)) == [MessageEvent("a")]
    with pytest.raises(InputError):
        list(decode_frames([{"type": "message", "data": {}}]))


def test_encode_events_gives_one_frame_per_event_in_order():
    events = [MessageStart("m"), MessageDelta("m", "x"), MessageEnd("m"), Done("end_turn")]
    assert [f["type"] for f in encode_events(events)] == [
        "message_start",
        "message_delta",
        "message_end",
        "done",
    ]
