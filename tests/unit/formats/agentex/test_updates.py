"""``TaskUpdateEncoder``: canonical events -> Agentex ``TaskMessageUpdate`` frames (reference §6.1).

An update is ``start{content}``, ``delta{delta}``, ``full{content}`` or ``done{}``, each with
``index`` and ``parent_task_message``; text deltas are ``{"type": "text", "text_delta"}``,
reasoning deltas ``{"type": "reasoning_content", "content_index", "content_delta"}``. For a sync
agent the server creates the parent message at an index's ``start`` or first ``delta`` (§5).
"""

from __future__ import annotations

import datetime as dt
from pathlib import PurePosixPath
from typing import Any

import pytest
from agentex.types import TaskMessageUpdate
from pydantic import TypeAdapter

from turnwire import model as m
from turnwire.fold import fold
from turnwire.formats.agentex import TaskUpdateEncoder, event_content, render_messages

CLIENT_UPDATE = TypeAdapter(TaskMessageUpdate)


def text(content: str) -> dict[str, Any]:
    return {
        "type": "text",
        "author": "agent",
        "style": "static",
        "format": "plain",
        "content": content,
        "attachments": None,
    }


def reasoning(parts: list[str] | None) -> dict[str, Any]:
    return {"type": "reasoning", "author": "agent", "style": "static", "summary": [], "content": parts}


def data(value: dict[str, Any]) -> dict[str, Any]:
    return {"type": "data", "author": "agent", "style": "static", "data": value}


def encode_all(enc: TaskUpdateEncoder, events: list[m.Event]) -> list[dict[str, Any]]:
    return [frame for event in events for frame in enc.encode(event)]


# --------------------------------------------------------------------------- streamed messages


def test_a_streamed_message_is_start_deltas_done_on_one_index() -> None:
    frames = encode_all(
        TaskUpdateEncoder("task-1"),
        [m.MessageStart("a"), m.MessageDelta("a", "Hel"), m.MessageDelta("a", "lo"), m.MessageEnd("a")],
    )
    assert frames == [
        {"type": "start", "index": 0, "parent_task_message": None, "content": text("")},
        {
            "type": "delta",
            "index": 0,
            "parent_task_message": None,
            "delta": {"type": "text", "text_delta": "Hel"},
        },
        {
            "type": "delta",
            "index": 0,
            "parent_task_message": None,
            "delta": {"type": "text", "text_delta": "lo"},
        },
        {"type": "done", "index": 0, "parent_task_message": None},
    ]


def test_a_streamed_thought_is_a_reasoning_message_with_content_index_0_deltas() -> None:
    frames = encode_all(
        TaskUpdateEncoder(), [m.ThoughtStart("t"), m.ThoughtDelta("t", "hmm"), m.ThoughtEnd("t")]
    )
    assert frames == [
        {"type": "start", "index": 0, "parent_task_message": None, "content": reasoning([])},
        {
            "type": "delta",
            "index": 0,
            "parent_task_message": None,
            "delta": {"type": "reasoning_content", "content_index": 0, "content_delta": "hmm"},
        },
        {"type": "done", "index": 0, "parent_task_message": None},
    ]


def test_a_delta_before_its_start_opens_the_message_first() -> None:
    enc = TaskUpdateEncoder()
    assert enc.encode(m.MessageDelta("x", "a")) == [
        {"type": "start", "index": 0, "parent_task_message": None, "content": text("")},
        {
            "type": "delta",
            "index": 0,
            "parent_task_message": None,
            "delta": {"type": "text", "text_delta": "a"},
        },
    ]
    # the late start adds nothing: the message is already open
    assert enc.encode(m.MessageStart("x")) == []
    assert [f["type"] for f in enc.encode(m.MessageDelta("x", "b"))] == ["delta"]


def test_a_thought_delta_before_its_start_opens_a_reasoning_message() -> None:
    frames = TaskUpdateEncoder().encode(m.ThoughtDelta("t", "so"))
    assert [(f["type"], f["index"]) for f in frames] == [("start", 0), ("delta", 0)]
    assert frames[0]["content"] == reasoning([])
    assert frames[1]["delta"] == {"type": "reasoning_content", "content_index": 0, "content_delta": "so"}


def test_a_second_start_for_an_open_message_adds_no_frame() -> None:
    enc = TaskUpdateEncoder()
    enc.encode(m.MessageStart("a"))
    assert enc.encode(m.MessageStart("a")) == []


def test_an_end_without_an_open_message_adds_no_frame() -> None:
    enc = TaskUpdateEncoder()
    assert enc.encode(m.MessageEnd("never")) == []
    assert enc.encode(m.ThoughtEnd("never")) == []
    enc.encode(m.MessageStart("a"))
    assert len(enc.encode(m.MessageEnd("a"))) == 1
    assert enc.encode(m.MessageEnd("a")) == []


def test_interleaved_messages_each_keep_their_own_index() -> None:
    frames = encode_all(
        TaskUpdateEncoder(),
        [
            m.MessageStart("a"),
            m.ThoughtStart("t"),
            m.MessageDelta("a", "A"),
            m.ThoughtDelta("t", "T"),
            m.MessageStart("b"),
            m.MessageDelta("b", "B"),
            m.MessageEnd("a"),
            m.ThoughtEnd("t"),
            m.MessageEnd("b"),
        ],
    )
    assert [(f["type"], f["index"]) for f in frames] == [
        ("start", 0),
        ("start", 1),
        ("delta", 0),
        ("delta", 1),
        ("start", 2),
        ("delta", 2),
        ("done", 0),
        ("done", 1),
        ("done", 2),
    ]


def test_a_message_and_a_thought_with_the_same_id_are_two_messages() -> None:
    enc = TaskUpdateEncoder()
    encode_all(enc, [m.MessageStart("x"), m.ThoughtStart("x")])
    assert (enc.index_of("message", "x"), enc.index_of("thought", "x")) == (0, 1)


def test_indexes_are_never_reused_even_for_an_id_seen_before() -> None:
    enc = TaskUpdateEncoder()
    frames = encode_all(
        enc,
        [
            m.MessageStart("a"),
            m.MessageEnd("a"),
            m.ToolCall(id="c", name="n", input={}),
            m.MessageStart("a"),
            m.MessageEnd("a"),
        ],
    )
    assert [(f["type"], f["index"]) for f in frames] == [
        ("start", 0),
        ("done", 0),
        ("full", 1),
        ("start", 2),
        ("done", 2),
    ]


def test_index_of_names_an_open_message_and_forgets_it_once_done() -> None:
    enc = TaskUpdateEncoder()
    enc.encode(m.MessageEvent("whole"))
    enc.encode(m.MessageStart("a"))
    assert enc.index_of("message", "a") == 1
    assert enc.index_of("thought", "a") is None
    enc.encode(m.MessageEnd("a"))
    assert enc.index_of("message", "a") is None


def test_a_full_frame_while_a_message_streams_takes_the_next_index_and_the_stream_keeps_its_own() -> None:
    frames = encode_all(
        TaskUpdateEncoder(),
        [
            m.MessageStart("a"),
            m.DataEvent("progress", {"pct": 50}),
            m.MessageDelta("a", "x"),
            m.MessageEnd("a"),
        ],
    )
    assert [(f["type"], f["index"]) for f in frames] == [("start", 0), ("full", 1), ("delta", 0), ("done", 0)]


# --------------------------------------------------------------------------- whole events


@pytest.mark.parametrize(
    ("event", "content"),
    [
        (m.MessageEvent("hello"), text("hello")),
        (m.Thought("because"), reasoning(["because"])),
        (m.Thought(""), reasoning(None)),
        (
            m.ToolCall(id="c1", name="search", input={"q": "x"}),
            {
                "type": "tool_request",
                "author": "agent",
                "style": "static",
                "tool_call_id": "c1",
                "name": "search",
                "arguments": {"q": "x"},
            },
        ),
        (
            m.ToolResult(id="c1", output="2 hits", name="search"),
            {
                "type": "tool_response",
                "author": "agent",
                "style": "static",
                "tool_call_id": "c1",
                "name": "search",
                "content": "2 hits",
                "is_error": None,
            },
        ),
        (m.DataEvent("rows", [1, 2]), data({"name": "rows", "value": [1, 2]})),
        (m.DataEvent(None, {"k": 1}), data({"k": 1})),
        (
            m.FileEvent("https://x/a.png", "image/png"),
            data({"type": "file", "url": "https://x/a.png", "media_type": "image/png"}),
        ),
        (m.ErrorEvent("boom", "E_TOOL"), data({"type": "error", "message": "boom", "code": "E_TOOL"})),
        (m.ErrorEvent("boom"), data({"type": "error", "message": "boom", "code": None})),
        (
            m.InteractionRequest("tok-1", "user_approval", {"toolCallId": "c1", "toolName": "delete_file"}),
            data(
                {
                    "type": "interaction_request",
                    "id": "tok-1",
                    "kind": "user_approval",
                    "payload": {"toolCallId": "c1", "toolName": "delete_file"},
                }
            ),
        ),
    ],
    ids=lambda v: None if isinstance(v, dict) else type(v).__name__,
)
def test_a_whole_event_is_one_full_frame_with_its_content(event: m.Event, content: dict) -> None:
    assert event_content(event) == content
    assert TaskUpdateEncoder().encode(event) == [
        {"type": "full", "index": 0, "parent_task_message": None, "content": content}
    ]


def test_a_tool_call_raw_input_wins_over_input_and_json_text_becomes_the_arguments_object() -> None:
    content = event_content(
        m.ToolCall(id="c", name="n", input={"partial": True}, raw_input='{"path": "a.txt"}')
    )
    assert content is not None and content["arguments"] == {"path": "a.txt"}


def test_a_tool_result_keeps_is_error_and_a_missing_output_is_null_content() -> None:
    content = event_content(m.ToolResult(id="c", name="n", is_error=True))
    assert content is not None and (content["content"], content["is_error"]) == (None, True)


def test_an_interaction_payload_that_is_not_json_is_made_json() -> None:
    payload = {"at": dt.datetime(2026, 1, 2, 3, 4, 5), "path": PurePosixPath("/tmp/a.txt"), "n": 1}
    content = event_content(m.InteractionRequest("i1", "user_input", payload))
    assert content is not None
    assert content["data"]["payload"] == {"at": "2026-01-02T03:04:05", "path": "/tmp/a.txt", "n": 1}


@pytest.mark.parametrize(
    "event",
    [
        m.Usage(input=1, output=2),
        m.Done("end_turn"),
        m.InteractionResponse("i1", "user_input", {"text": "a"}),
    ],
    ids=lambda e: type(e).__name__,
)
def test_events_with_no_agentex_counterpart_give_no_frame(event: m.Event) -> None:
    enc = TaskUpdateEncoder()
    assert event_content(event) is None
    assert enc.encode(event) == []
    assert enc.encode(m.MessageEvent("next"))[0]["index"] == 0  # and take no index


# --------------------------------------------------------------------------- bind


def test_bind_sets_the_parent_on_later_frames_of_that_index_only() -> None:
    enc = TaskUpdateEncoder("task-1")
    start = enc.encode(m.MessageStart("a"))
    enc.encode(m.MessageStart("b"))
    parent = {"id": "665f", "task_id": "task-1", "content": text(""), "streaming_status": "IN_PROGRESS"}
    enc.bind(0, parent)
    assert start[0]["parent_task_message"] is None  # frames already handed out are not changed
    delta_a = enc.encode(m.MessageDelta("a", "x"))
    delta_b = enc.encode(m.MessageDelta("b", "y"))
    done_a = enc.encode(m.MessageEnd("a"))
    assert delta_a[0]["parent_task_message"] == parent
    assert done_a == [{"type": "done", "index": 0, "parent_task_message": parent}]
    assert delta_b[0]["parent_task_message"] is None


def test_the_encoder_keeps_the_task_id_it_was_made_for() -> None:
    assert TaskUpdateEncoder("task-1").task_id == "task-1"
    assert TaskUpdateEncoder().task_id is None


# --------------------------------------------------------------------------- against the client and fold

TURN: list[m.Event] = [
    m.ThoughtStart("t"),
    m.ThoughtDelta("t", "hmm"),
    m.ThoughtEnd("t"),
    m.MessageStart("a"),
    m.MessageDelta("a", "Hel"),
    m.MessageDelta("a", "lo"),
    m.MessageEnd("a"),
    m.ToolCall(id="c", name="n", input={"q": 1}),
    m.ToolResult(id="c", output="ok", name="n"),
    m.DataEvent("rows", [1]),
    m.FileEvent("https://x/f.csv", "text/csv"),
    m.ErrorEvent("late", "E"),
    m.InteractionRequest("tok", "user_approval", {"toolCallId": "c"}),
    m.Usage(input=1),
    m.Done("paused"),
]


def test_every_frame_validates_against_the_official_client_update_models() -> None:
    enc = TaskUpdateEncoder("task")
    parent = {"id": "p", "task_id": "task", "content": reasoning([])}
    enc.bind(0, parent)
    frames = encode_all(enc, TURN)
    assert [f["type"] for f in frames] == ["start", "delta", "done", "start", "delta", "delta", "done"] + [
        "full"
    ] * 6
    for frame in frames:
        update = CLIENT_UPDATE.validate_python(frame)
        assert (update.type, update.index) == (frame["type"], frame["index"])
        if "content" in frame:
            assert update.content.model_dump(mode="json") == frame["content"]
        if frame["parent_task_message"] is not None:
            assert update.parent_task_message.id == "p"


def test_full_frames_of_tool_events_carry_what_fold_makes_of_the_same_events() -> None:
    events = TURN[7:9]
    frames = encode_all(TaskUpdateEncoder(), events)
    tool_msgs = [msg for msg in fold(events).messages if msg.role == "tool"]
    assert [f["content"] for f in frames] == render_messages(tool_msgs)
