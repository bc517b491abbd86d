"""Outbound Agenta messages: block form, camelCase, nothing null, the content normalisation rule."""

from __future__ import annotations

import json
from importlib import resources

from turnwire.formats.agenta import parse_messages, render_messages
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)


def render_one(message: Message) -> dict:
    (out,) = render_messages([message])
    return out


def test_no_blocks_render_as_empty_string_content():
    assert render_one(Message("assistant")) == {"role": "assistant", "content": ""}


def test_one_text_block_renders_as_a_bare_string():
    assert render_one(Message("user", [TextBlock("hi")])) == {"role": "user", "content": "hi"}


def test_a_lone_empty_text_block_stays_a_block_list_so_it_round_trips():
    assert render_one(Message("user", [TextBlock("")])) == {
        "role": "user",
        "content": [{"type": "text", "text": ""}],
    }


def test_two_text_blocks_render_as_a_block_list():
    assert render_one(Message("user", [TextBlock("a"), TextBlock("b")]))["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b"},
    ]


def test_reasoning_and_data_blocks_are_dropped():
    msg = Message("assistant", [ReasoningBlock("think"), TextBlock("answer"), DataBlock({"a": 1}, "x")])
    assert render_one(msg) == {"role": "assistant", "content": "answer"}


def test_only_dropped_blocks_render_as_empty_content():
    assert render_one(Message("assistant", [ReasoningBlock("think")])) == {"role": "assistant", "content": ""}


def test_image_and_resource_use_camel_case_and_omit_unset_fields():
    msg = Message(
        "user",
        [
            ImageBlock(data="aGk=", mime_type="image/png"),
            ResourceBlock(uri="https://x/a.pdf", mime_type="application/pdf", filename="a.pdf", size=3),
        ],
    )
    assert render_one(msg)["content"] == [
        {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        {
            "type": "resource",
            "uri": "https://x/a.pdf",
            "mimeType": "application/pdf",
            "filename": "a.pdf",
            "size": 3,
        },
    ]


def test_attachment_renders_attachment_id():
    assert render_one(Message("user", [AttachmentBlock("att_1", mime_type="text/plain")]))["content"] == [
        {"type": "attachment", "attachmentId": "att_1", "mimeType": "text/plain"}
    ]


def test_tool_blocks_use_camel_case_keys():
    msg = Message(
        "assistant",
        [ToolCallBlock("c1", "bash", {"command": "ls"}), ToolResultBlock("c1", "bash", "ok", False)],
    )
    assert render_one(msg)["content"] == [
        {"type": "tool_call", "toolCallId": "c1", "toolName": "bash", "input": {"command": "ls"}},
        {"type": "tool_result", "toolCallId": "c1", "toolName": "bash", "output": "ok", "isError": False},
    ]


def test_tool_result_unset_output_and_unknown_error_are_omitted():
    assert render_one(Message("tool", [ToolResultBlock("c1")]))["content"] == [
        {"type": "tool_result", "toolCallId": "c1"}
    ]


def test_tool_result_explicit_null_output_is_sent():
    assert render_one(Message("tool", [ToolResultBlock("c1", output=None)]))["content"] == [
        {"type": "tool_result", "toolCallId": "c1", "output": None}
    ]


def test_tool_call_without_input_omits_input():
    assert render_one(Message("assistant", [ToolCallBlock("c1", "t")]))["content"] == [
        {"type": "tool_call", "toolCallId": "c1", "toolName": "t"}
    ]


def test_unknown_block_renders_its_raw_dict_unchanged():
    raw = {"type": "citation", "url": "u", "extra": [1, {"b": None}]}
    assert render_one(Message("assistant", [UnknownBlock(raw)]))["content"] == [
        {"type": "citation", "url": "u", "extra": [1, {"b": None}]}
    ]


def test_display_content_is_sent_only_when_set_and_null_means_hidden():
    rendered = render_messages(
        [
            Message("user", [TextBlock("a")]),
            Message("user", [TextBlock("b")], display_content=None),
            Message("user", [TextBlock("c")], display_content=""),
            Message("user", [TextBlock("d")], display_content="D"),
        ]
    )
    assert rendered == [
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b", "display_content": None},
        {"role": "user", "content": "c", "display_content": ""},
        {"role": "user", "content": "d", "display_content": "D"},
    ]


def test_display_content_variants_round_trip_distinctly():
    wire = [
        {"role": "user", "content": "x"},
        {"role": "user", "content": "x", "display_content": None},
        {"role": "user", "content": "x", "display_content": ""},
        {"role": "user", "content": "x", "display_content": "y"},
    ]
    parsed = parse_messages(wire)
    assert [m.display_content for m in parsed] == [UNSET, None, "", "y"]
    assert render_messages(parsed) == wire


def test_message_id_is_rendered_when_set():
    assert render_one(Message("assistant", [TextBlock("x")], id="m1")) == {
        "role": "assistant",
        "content": "x",
        "id": "m1",
    }


def test_flat_batch_shapes_render_back_in_block_form():
    wire = [
        {"role": "tool", "content": "", "tool_call_id": "c", "tool_name": "t", "input": {"a": 1}},
        {"role": "tool", "content": "done", "tool_call_id": "c", "is_error": False},
    ]
    assert render_messages(parse_messages(wire)) == [
        {
            "role": "tool",
            "content": [{"type": "tool_call", "toolCallId": "c", "toolName": "t", "input": {"a": 1}}],
        },
        {
            "role": "tool",
            "content": [{"type": "tool_result", "toolCallId": "c", "output": "done", "isError": False}],
        },
    ]


def test_bundled_example_is_in_normalised_form():
    text = resources.files("turnwire.examples").joinpath("agenta-conversation.json").read_text("utf-8")
    wire = json.loads(text)
    assert render_messages(parse_messages(wire)) == wire
    roles = [m["role"] for m in wire]
    assert roles[:2] == ["system", "user"]
    kinds = {b["type"] for m in wire if isinstance(m["content"], list) for b in m["content"]}
    assert {"image", "tool_call", "tool_result", "text"} <= kinds
    assert any("display_content" in m for m in wire)
