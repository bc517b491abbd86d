"""The Agentex format: content validation, content <-> canonical both ways, update frames."""

from __future__ import annotations

import pytest
from agentex.types import TaskMessageContent, TaskMessageUpdate
from pydantic import TypeAdapter

from turnwire import model as m
from turnwire.errors import InputError
from turnwire.fold import fold
from turnwire.formats import get_format
from turnwire.formats.agentex import TaskUpdateEncoder, normalize_content, parse_messages, render_messages

CONTENT = TypeAdapter(TaskMessageContent)
UPDATE = TypeAdapter(TaskMessageUpdate)

NORMALISED = [
    {
        "type": "text",
        "author": "user",
        "style": "static",
        "format": "plain",
        "content": "hi",
        "attachments": None,
    },
    {
        "type": "text",
        "author": "agent",
        "style": "active",
        "format": "code",
        "content": "x = 1",
        "attachments": [{"file_id": "f", "name": "a.png", "size": 10, "type": "image/png"}],
    },
    {
        "type": "text",
        "author": "user",
        "style": "static",
        "format": "plain",
        "content": "",
        "attachments": [],
    },
    {"type": "reasoning", "author": "agent", "style": "static", "summary": ["s"], "content": ["a", "b"]},
    {"type": "reasoning", "author": "agent", "style": "static", "summary": [], "content": None},
    {"type": "reasoning", "author": "agent", "style": "static", "summary": [], "content": [""]},
    {"type": "data", "author": "user", "style": "static", "data": {"k": [1, {"z": None}]}},
    {
        "type": "tool_request",
        "author": "agent",
        "style": "static",
        "tool_call_id": "c",
        "name": "n",
        "arguments": {"q": 1},
    },
    {
        "type": "tool_request",
        "author": "user",
        "style": "static",
        "tool_call_id": "c",
        "name": "n",
        "arguments": {},
    },
    {
        "type": "tool_response",
        "author": "agent",
        "style": "static",
        "tool_call_id": "c",
        "name": "n",
        "content": None,
        "is_error": True,
    },
    {
        "type": "tool_response",
        "author": "agent",
        "style": "static",
        "tool_call_id": "c",
        "name": "n",
        "content": [1, "two"],
        "is_error": None,
    },
]


@pytest.mark.parametrize("content", NORMALISED, ids=lambda c: c["type"])
def test_normalised_content_round_trips_exactly(content: dict) -> None:
    assert render_messages(parse_messages([content])) == [content]
    # And what we render is valid for the official client's own models.
    assert CONTENT.validate_python(content).model_dump(mode="json") == content


def test_defaults_are_filled_and_unknown_keys_dropped() -> None:
    out = normalize_content({"type": "text", "author": "user", "content": "x", "extra": 1})
    assert out == NORMALISED[0] | {"content": "x"}
    assert normalize_content({"author": "agent", "summary": []})["type"] == "reasoning"


def test_roles_follow_author_and_tools_are_role_tool() -> None:
    roles = [msg.role for msg in parse_messages(NORMALISED)]
    assert roles == [
        "user",
        "assistant",
        "user",
        "assistant",
        "assistant",
        "assistant",
        "user",
        "tool",
        "tool",
        "tool",
        "tool",
    ]


def test_task_messages_and_bare_contents_both_parse() -> None:
    (msg,) = parse_messages([{"id": "abc", "task_id": "t", "content": NORMALISED[1]}])
    assert msg.id == "abc"
    assert msg.content == [
        m.TextBlock("x = 1"),
        m.AttachmentBlock("f", filename="a.png", mime_type="image/png", size=10),
    ]


@pytest.mark.parametrize(
    ("item", "loc"),
    [
        ({"type": "text", "author": "assistant", "content": "x"}, ("messages", 1, "author")),
        ({"type": "text", "author": "user"}, ("messages", 1, "content")),
        (
            {"type": "tool_request", "author": "agent", "tool_call_id": "c", "name": "n", "arguments": []},
            ("messages", 1, "arguments"),
        ),
        ({"type": "video", "author": "user"}, ("messages", 1, "type")),
        (
            {
                "type": "text",
                "author": "user",
                "content": "x",
                "attachments": [{"file_id": "f", "size": 1, "type": "t"}],
            },
            ("messages", 1, "attachments", 0, "name"),
        ),
        (
            {"task_id": "t", "content": {"type": "data", "author": "user", "data": 3}},
            ("messages", 1, "content", "data"),
        ),
        ("nope", ("messages", 1)),
    ],
)
def test_bad_input_names_index_and_field(item: object, loc: tuple) -> None:
    with pytest.raises(InputError) as info:
        parse_messages([NORMALISED[0], item])
    assert info.value.loc == loc


def test_multi_block_message_renders_one_content_per_block() -> None:
    msg = m.Message(
        "assistant",
        [
            m.TextBlock("a"),
            m.AttachmentBlock("f1"),
            m.ReasoningBlock("r"),
            m.ToolCallBlock("c", "n", '{"x": 1}'),
            m.ToolResultBlock("c", "n"),
            m.DataBlock([1], name="rows"),
            m.ImageBlock(uri="http://x/i.png"),
        ],
    )
    out = render_messages([msg])
    assert [c["type"] for c in out] == ["text", "reasoning", "tool_request", "tool_response", "data", "data"]
    assert out[0]["attachments"] == [{"file_id": "f1", "name": "", "size": 0, "type": ""}]
    assert out[2]["arguments"] == {"x": 1} and out[3]["content"] is None
    assert out[4]["data"] == {"name": "rows", "value": [1]}
    assert out[5]["data"] == {"type": "image", "uri": "http://x/i.png"}
    for content in out:
        CONTENT.validate_python(content)


def test_format_is_registered() -> None:
    assert get_format("agentex").parse_messages is parse_messages


def test_encoder_frames_match_the_client_schema_and_fold_agrees() -> None:
    events: list[m.Event] = [
        m.ThoughtStart("t"),
        m.ThoughtDelta("t", "hmm"),
        m.ThoughtEnd("t"),
        m.MessageStart("a"),
        m.MessageDelta("a", "Hel"),
        m.MessageDelta("a", "lo"),
        m.MessageEnd("a"),
        m.ToolCall(id="c", name="n", input={"q": 1}),
        m.ToolResult(id="c", output="ok", name="n"),
        m.Usage(input=1),
        m.Done("end_turn"),
    ]
    enc = TaskUpdateEncoder("task")
    frames = [f for e in events for f in enc.encode(e)]
    assert [(f["type"], f["index"]) for f in frames] == [
        ("start", 0),
        ("delta", 0),
        ("done", 0),
        ("start", 1),
        ("delta", 1),
        ("delta", 1),
        ("done", 1),
        ("full", 2),
        ("full", 3),
    ]
    assert frames[4]["delta"] == {"type": "text", "text_delta": "Hel"}
    assert frames[1]["delta"] == {"type": "reasoning_content", "content_index": 0, "content_delta": "hmm"}
    for frame in frames:
        assert UPDATE.validate_python(frame).type == frame["type"]
    # The full frames carry what fold() makes of the same events.
    tool_msgs = [msg for msg in fold(events).messages if msg.role == "tool"]
    assert [f["content"] for f in frames if f["type"] == "full"] == render_messages(tool_msgs)


def test_delta_without_start_opens_the_message_and_bind_sets_parent() -> None:
    enc = TaskUpdateEncoder()
    first = enc.encode(m.MessageDelta("x", "a"))
    assert [f["type"] for f in first] == ["start", "delta"]
    enc.bind(0, {"id": "p", "task_id": "t", "content": first[0]["content"]})
    assert enc.encode(m.MessageEnd("x"))[0]["parent_task_message"]["id"] == "p"
    assert enc.encode(m.MessageEnd("x")) == []
